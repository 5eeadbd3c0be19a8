"""Settings, read from environment variables prefixed ``ROOTLINE_`` (see the README's table)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    max_upload_bytes: int = Field(
        default=1024**3, description="Largest accepted file, in bytes (default 1 GiB)."
    )
    max_request_bytes: int = Field(
        default=4 * 1024**3,
        description="Largest accepted multipart request (all its files together), in bytes.",
    )
    load_demo: bool = Field(
        default=True, description="Load the demo incident on the first start of an empty database."
    )

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'rootline.db').resolve()}"

    @property
    def resolved_artifacts_dir(self) -> Path:
        return (self.artifacts_dir or self.data_dir / "artifacts").resolve()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
