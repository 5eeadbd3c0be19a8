"""The production setup: docker-compose.yml and the Dockerfile, checked without a Docker engine.

`docker compose config` (or the older `docker-compose config`) validates the compose file
against the Compose schema when one of them is installed; the structural checks below run
everywhere.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from rootline.settings import Settings
from rootline.settings_doc import env_name
from tests.conftest import REPO_DIR

COMPOSE_FILE = REPO_DIR / "docker-compose.yml"
DOCKERFILE = REPO_DIR / "Dockerfile"
SETTINGS_VARIABLES = {env_name(name) for name in Settings.model_fields}


def _compose_tool() -> list[str] | None:
    """`docker compose` (v2 plugin) if it answers, else `docker-compose` (v1), else None."""
    docker = shutil.which("docker")
    if docker:
        probe = subprocess.run(
            [docker, "compose", "version"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_compose_config_validates() -> None:
    tool = _compose_tool()
    if tool is None:
        pytest.skip(
            "neither `docker compose` nor `docker-compose` is installed: compose schema "
            "validation SKIPPED (apt-get install docker-compose)"
        )
    result = subprocess.run(
        [*tool, "-f", str(COMPOSE_FILE), "config", "-q"],
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"{' '.join(tool)} config: {result.stderr}{result.stdout}"


def _instruction(name: str) -> list[str]:
    """The JSON-form arguments of the Dockerfile's (last) ``name`` instruction."""
    found = re.findall(
        rf"^{name} (?:.*\\\n)*.*?(\[.*\])$", DOCKERFILE.read_text(encoding="utf-8"), re.M
    )
    assert found, f"the Dockerfile has no {name} [...]"
    arguments: list[str] = json.loads(found[-1])
    return arguments


def test_services_and_healthchecks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) >= {"db", "objectstore", "objectstore-init", "app"}
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["objectstore"]["healthcheck"]["test"]
    # The app is built from the Dockerfile and keeps its HEALTHCHECK.
    assert "build" in services["app"] and "healthcheck" not in services["app"]
    assert "/api/health" in " ".join(_instruction("HEALTHCHECK"))
    for name, service in services.items():
        if name not in {"objectstore-init", "app"}:  # one-shot; checked by its image
            assert "healthcheck" in service, name


def test_app_waits_for_its_dependencies(compose: dict[str, Any]) -> None:
    app = compose["services"]["app"]
    assert "build" in app
    assert app["depends_on"] == {
        "db": {"condition": "service_healthy"},
        "objectstore": {"condition": "service_healthy"},
        "objectstore-init": {"condition": "service_completed_successfully"},
    }
    assert compose["services"]["objectstore-init"]["depends_on"] == {
        "objectstore": {"condition": "service_healthy"}
    }
    command = app.get("command") or _instruction("CMD")
    assert command[:2] == ["rootline", "serve"]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert command[command.index("--workers") + 1] == "4"
    assert "--no-migrate" not in command  # serve migrates once, before its workers start


def test_every_rootline_variable_is_a_setting(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        environment = service.get("environment") or {}
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        unknown = {k for k in environment if k.startswith("ROOTLINE_")} - SETTINGS_VARIABLES
        assert not unknown, f"{name} sets variables that are no setting: {sorted(unknown)}"
    for variable in re.findall(r"\bROOTLINE_[A-Z0-9_]+", DOCKERFILE.read_text(encoding="utf-8")):
        assert variable in SETTINGS_VARIABLES, f"Dockerfile sets {variable}, which is no setting"


def test_the_app_environment_is_valid_and_uses_the_created_bucket(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = compose["services"]["app"]["environment"]
    for key, value in environment.items():
        monkeypatch.setenv(key, str(value))
    settings = Settings()
    assert settings.storage == "s3"
    assert settings.resolved_database_url.startswith("postgresql+psycopg://")
    assert settings.resolved_database_url.endswith("@db:5432/rootline")
    assert settings.s3_endpoint_url == "http://objectstore:9000"
    init_command = " ".join(compose["services"]["objectstore-init"]["command"])
    assert f"/{settings.s3_bucket}" in init_command
    credentials = compose["services"]["objectstore"]["environment"]
    assert settings.s3_access_key_id == credentials["MINIO_ROOT_USER"]
    assert settings.s3_secret_access_key is not None
    assert settings.s3_secret_access_key.get_secret_value() == credentials["MINIO_ROOT_PASSWORD"]
    volume_targets = [v.split(":")[1] for v in compose["services"]["app"]["volumes"]]
    assert str(settings.data_dir) in volume_targets


def _stages(dockerfile: str) -> list[tuple[str, str]]:
    """(FROM line, body) of each stage."""
    parts = re.split(r"^(FROM .*)$", dockerfile, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def test_dockerfile_builds_the_frontend_then_a_non_root_python_image() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    (front_from, front), (app_from, app) = _stages(text)
    assert re.match(r"FROM node:20\S* AS frontend$", front_from)
    assert "npm ci" in front and "npm run build" in front
    assert re.match(r"FROM python:3\.11-slim\b", app_from)
    assert "COPY --from=frontend /src/frontend/dist frontend/dist" in app
    # The backend serves the web app from where the image puts it.
    assert "ROOTLINE_FRONTEND_DIR=/app/frontend/dist" in app
    assert re.search(r"^WORKDIR /app$", app, flags=re.MULTILINE)
    user = re.findall(r"^USER (\S+)$", app, flags=re.MULTILINE)
    assert user and user[-1] not in {"root", "0"}
    assert re.search(r"^VOLUME \[\"/var/lib/rootline\"\]$", app, flags=re.MULTILINE)
    assert "ROOTLINE_DATA_DIR=/var/lib/rootline" in app


def test_dockerfile_copies_only_what_exists_and_is_not_ignored() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    ignored = [
        line.strip()
        for line in (REPO_DIR / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for line in re.findall(r"^COPY (?!--from)(.+)$", text, flags=re.MULTILINE):
        *sources, _target = line.split()
        for source in sources:
            path = REPO_DIR / source.rstrip("/")
            assert path.exists(), f"COPY {source}: not in the repository"
            assert source.rstrip("/") not in ignored, f"COPY {source}: excluded by .dockerignore"
    # What the package finds beside itself at run time (migrations, the demo's captures).
    for needed in ("migrations", "lab/fixtures/time_wait_storm", "backend/rootline"):
        assert re.search(rf"^COPY {re.escape(needed)} ", text, flags=re.MULTILINE), needed


def test_image_paths_match_what_the_package_expects() -> None:
    """The package finds migrations/, lab/fixtures/ and frontend/dist at parents[2] of its
    modules; in the image that is /app, because it is installed in place from /app/backend."""
    from rootline import db, demo, settings

    for module, relative in (
        (db, db.MIGRATIONS_DIR),
        (demo, demo.DEMO_DIR),
        (settings, settings.DEFAULT_FRONTEND_DIR),
    ):
        root = Path(module.__file__ or "").resolve().parents[2]
        assert relative.is_relative_to(root)
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "pip install --no-deps -e backend" in text
