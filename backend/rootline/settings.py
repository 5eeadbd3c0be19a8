"""Settings, read from environment variables prefixed ``ROOTLINE_`` (see the README's table)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Where `npm run build` writes in a source checkout.
DEFAULT_FRONTEND_DIR = Path(__file__).resolve().parents[2] / "frontend" / "dist"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ROOTLINE_", extra="ignore")

    data_dir: Path = Field(
        default=Path("data"),
        description="Where the embedded SQLite file and the stored artifacts live by default.",
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; default sqlite:///<data_dir>/rootline.db.",
    )
    artifacts_dir: Path | None = Field(
        default=None, description="Raw artifact store; default <data_dir>/artifacts."
    )
    storage: Literal["local", "s3"] = Field(
        default="local",
        description="Where raw artifacts are kept: local (artifacts_dir) or s3 (the s3_* settings).",
    )
    s3_endpoint_url: str | None = Field(
        default=None,
        description="S3-compatible endpoint, e.g. http://minio:9000; default AWS S3.",
    )
    s3_bucket: str | None = Field(
        default=None, description="Bucket for raw artifacts (required when storage is s3)."
    )
    s3_region: str | None = Field(
        default=None, description="Region of the bucket; default boto3's (AWS_DEFAULT_REGION)."
    )
    s3_access_key_id: str | None = Field(
        default=None,
        description="S3 access key; default boto3's chain (AWS_ACCESS_KEY_ID, instance role).",
    )
    s3_secret_access_key: SecretStr | None = Field(
        default=None, description="S3 secret key; default boto3's chain (AWS_SECRET_ACCESS_KEY)."
    )
    s3_prefix: str = Field(
        default="artifacts/",
        description="Key prefix of the blobs in the bucket: <prefix><sha[:2]>/<sha256>.",
    )
    s3_create_bucket: bool = Field(
        default=False, description="Create the bucket at start when it does not exist."
    )
    request_threads: int = Field(
        default=1000,
        ge=1,
        description=(
            "Threads per server process for blocking request work; keep it above the "
            "requests one process has in flight."
        ),
    )
    heavy_requests: int = Field(
        default=4,
        ge=1,
        description=(
            "Heavy requests (timeline points, raw downloads, checklists) run at once per "
            "server process; more wait in line, so cheap requests stay fast under load."
        ),
    )
    heavy_wait_s: float = Field(
        default=60.0,
        gt=0,
        description="How long a heavy request waits for its turn before a 503 (Retry-After).",
    )
    chromium: str = Field(
        default="chromium",
        description="Chromium (a path, or a name on PATH) that prints postmortems to PDF.",
    )
    parse_threads: int = Field(
        default=1,
        ge=0,
        description=(
            "Parse worker threads per server process (0: none here, run `rootline worker`)."
        ),
    )
    max_upload_bytes: int = Field(
        default=1024**3, description="Largest accepted file, in bytes (default 1 GiB)."
    )
    max_request_bytes: int = Field(
        default=4 * 1024**3,
        description="Largest accepted multipart request (all its files together), in bytes.",
    )
    db_pool_size: int = Field(
        default=8,
        ge=1,
        description="Database connections each worker keeps; on PostgreSQL workers x (pool + overflow + 3 of the rate limiter) must stay under max_connections.",
    )
    db_max_overflow: int = Field(
        default=4, ge=0, description="Extra connections a worker may open under load."
    )
    frontend_dir: Path | None = Field(
        default=None,
        description="The built web app (index.html + assets); default <repo>/frontend/dist.",
    )
    load_demo: bool = Field(
        default=True, description="Load the demo incident on the first start of an empty database."
    )
    session_days: float = Field(
        default=14, gt=0, description="How long a sign-in session lasts, in days."
    )
    cookie_secure: Literal["auto", "true", "false"] = Field(
        default="auto",
        description=(
            "Mark the session cookies Secure: auto = when the request came over https"
            " (X-Forwarded-Proto counts only with trust_proxy_headers)."
        ),
    )
    keep_alive_s: int = Field(
        default=75,
        ge=1,
        description=(
            "Seconds an idle HTTP connection is kept open; above any proxy's idle timeout, or "
            "a request sent as the server closes the connection is lost."
        ),
    )
    header_timeout_s: float = Field(
        default=30,
        gt=0,
        description=(
            "Seconds a client has to send a request's headers (from its first byte, or from"
            " connecting); then 408 and the connection is closed."
        ),
    )
    body_timeout_s: float = Field(
        default=60,
        gt=0,
        description=(
            "Seconds a request body may pause between bytes before the connection is closed"
            " (time the server is busy and not reading does not count)."
        ),
    )
    public_url: str | None = Field(
        default=None,
        description=(
            "The URL users open, e.g. https://rootline.example.com: browsers' writes and"
            " sign-ins are accepted only from its origin (default: whatever Host the request"
            " names, which a DNS-rebinding page controls; set it in any shared deployment)."
        ),
    )
    trust_proxy_headers: bool = Field(
        default=False,
        description=(
            "Believe X-Forwarded-Proto/-Host/-For (set it only behind a reverse proxy that"
            " overwrites them)."
        ),
    )
    login_rate_limit: int = Field(
        default=10,
        ge=1,
        description="Failed sign-ins allowed per user name from one client IP in one window (5x per IP over all names, 10x per name over all IPs).",
    )
    share_rate_limit: int = Field(
        default=30,
        ge=1,
        description="Failed share-link (and one-time link) lookups per client IP in one window before they are answered 429; a valid link always works.",
    )
    rate_limit_window_s: int = Field(
        default=300, ge=1, description="Length of the rate-limit window, in seconds."
    )

    @field_validator("public_url")
    @classmethod
    def _public_url_is_an_origin(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError("public_url must be an http:// or https:// URL with a host")
        return value.strip()

    @property
    def public_origin(self) -> str | None:
        """``scheme://host[:port]`` of ``public_url`` as a browser writes it in ``Origin``
        (lower case, default port left out), or None when no public URL is set."""
        if self.public_url is None:
            return None
        parts = urlsplit(self.public_url)
        default_port = {"http": 80, "https": 443}[parts.scheme]
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        port = "" if parts.port in (None, default_port) else f":{parts.port}"
        return f"{parts.scheme}://{host}{port}".lower()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'rootline.db').resolve()}"

    @property
    def resolved_frontend_dir(self) -> Path:
        return (self.frontend_dir or DEFAULT_FRONTEND_DIR).resolve()

    @property
    def resolved_artifacts_dir(self) -> Path:
        return (self.artifacts_dir or self.data_dir / "artifacts").resolve()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
