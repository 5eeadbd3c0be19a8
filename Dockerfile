# syntax=docker/dockerfile:1
# The production image: the built web app and the backend, served by `rootline serve`.
# Build from the repository root: `docker build -t rootline .` (docker-compose.yml does).

# --- 1. The web app -------------------------------------------------------------------
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

# --- 2. The backend, serving the web app ---------------------------------------------
FROM python:3.11-slim AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

# Dependencies first (their layer survives code changes), every one pinned by hash.
COPY backend/requirements-runtime.lock backend/requirements-runtime.lock
RUN pip install --require-hashes -r backend/requirements-runtime.lock

# The package, installed in place: migrations/, lab/fixtures/ (the demo) and frontend/dist sit
# beside it at the paths the code expects (/app/...), as in a source checkout.
COPY alembic.ini ./
COPY migrations migrations
COPY lab/fixtures/time_wait_storm lab/fixtures/time_wait_storm
COPY backend/pyproject.toml backend/setup.py backend/
COPY backend/rootline backend/rootline
# The compiled loops (backend/setup.py) need gcc only while they are built: removed in the
# same layer, so the image does not carry it.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install --no-deps -e backend \
    && python -c "import rootline.parsers._nmon_fast, rootline.parsers._ss_fast, rootline.series._planes" \
    && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
COPY --from=frontend /src/frontend/dist frontend/dist

RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/rootline --no-create-home rootline \
    && mkdir -p /var/lib/rootline \
    && chown rootline:rootline /var/lib/rootline
ENV ROOTLINE_DATA_DIR=/var/lib/rootline \
    ROOTLINE_FRONTEND_DIR=/app/frontend/dist
VOLUME ["/var/lib/rootline"]
USER rootline

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=10 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4)"]
CMD ["rootline", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "4"]
