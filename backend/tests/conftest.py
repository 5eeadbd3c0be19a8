"""Shared test fixtures: where the corpus and our own captured fixtures live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BACKEND_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = BACKEND_DIR.parent
FIXTURES_DIR = BACKEND_DIR / "tests" / "fixtures"
# The public corpus sits beside the repository (../shared/corpus) and is never copied into it.
CORPUS_DIR = Path(os.environ.get("ROOTLINE_CORPUS_DIR", REPO_DIR.parent / "shared" / "corpus"))


def corpus_files(subdir: str) -> list[Path]:
    """Every file of one corpus folder, for parametrised tests (empty when the corpus is absent)."""
    folder = CORPUS_DIR / subdir
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file())


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR} (set ROOTLINE_CORPUS_DIR)")
    return CORPUS_DIR


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR
