# One image with the backend (and, once it exists, the built frontend).
FROM python:3.11-slim
WORKDIR /app
COPY backend/requirements.lock backend/pyproject.toml backend/
RUN pip install --no-cache-dir -r backend/requirements.lock
COPY backend backend
COPY migrations migrations
COPY alembic.ini .
COPY lab/fixtures/time_wait_storm lab/fixtures/time_wait_storm
RUN pip install --no-cache-dir --no-deps -e backend
EXPOSE 8000
CMD ["rootline", "serve", "--host", "0.0.0.0", "--port", "8000"]
