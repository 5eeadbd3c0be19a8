"""The image installs only what the app runs on, at the versions the tests ran with."""

from __future__ import annotations

import re

from tests.conftest import BACKEND_DIR, REPO_DIR

PIN = re.compile(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(\S+)", re.MULTILINE)


def _pins(name: str) -> dict[str, str]:
    text = (BACKEND_DIR / name).read_text()
    return {package.lower(): version for package, version in PIN.findall(text)}


def test_runtime_lock_is_the_full_lock_without_the_dev_tools() -> None:
    runtime, full = _pins("requirements-runtime.lock"), _pins("requirements.lock")
    drifted = {p: (v, full.get(p)) for p, v in runtime.items() if full.get(p) != v}
    assert not drifted, f"regenerate requirements-runtime.lock (README): {drifted}"
    assert {"fastapi", "sqlalchemy", "argon2-cffi", "boto3"} <= runtime.keys()
    assert not {"pytest", "hypothesis", "moto", "mypy", "ruff", "schemathesis"} & runtime.keys()
    assert "file:///" not in (BACKEND_DIR / "requirements-runtime.lock").read_text()


def test_the_image_installs_the_runtime_lock() -> None:
    dockerfile = (REPO_DIR / "Dockerfile").read_text()
    assert "pip install --require-hashes -r backend/requirements-runtime.lock" in dockerfile
    assert "requirements.lock" not in dockerfile.replace("requirements-runtime.lock", "")


def test_runtime_lock_holds_every_runtime_dependency() -> None:
    """Each of pyproject's dependencies is pinned in the image's lock (zstandard and pyarrow
    were once missing: the image could not open a .zst upload)."""
    import tomllib

    declared = tomllib.loads((BACKEND_DIR / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
    names = {
        re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in declared
    }
    runtime = {p.replace("_", "-") for p in _pins("requirements-runtime.lock")}
    assert names - runtime == set(), "regenerate requirements-runtime.lock (README)"
