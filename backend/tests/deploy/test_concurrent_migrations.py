"""Replicas starting together on PostgreSQL migrate one at a time (an advisory lock)."""

from __future__ import annotations

import os
import subprocess

import pytest
from sqlalchemy import inspect

from rootline.db import create_scratch_database, make_engine
from tests.conftest import BACKEND_DIR, POSTGRES_ADMIN_URL, ROOTLINE


def test_three_upgrades_at_once_all_succeed() -> None:
    scratch = create_scratch_database(POSTGRES_ADMIN_URL, "rootline_migrate")
    if scratch is None:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}")
    try:
        env = {**os.environ, "ROOTLINE_DATABASE_URL": scratch.url}
        processes = [
            subprocess.Popen(
                [ROOTLINE, "db", "upgrade"],
                env=env,
                cwd=BACKEND_DIR,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(3)
        ]
        outputs = [p.communicate(timeout=120)[0] for p in processes]
        assert [p.returncode for p in processes] == [0, 0, 0], outputs
        engine = make_engine(scratch.url)
        try:
            assert "incidents" in inspect(engine).get_table_names()
        finally:
            engine.dispose()
    finally:
        scratch.drop()
