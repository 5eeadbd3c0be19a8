"""A real S3-compatible server for the storage tests: moto's standalone server, in a process
of its own on a free port (``moto_server`` from ``moto[server]``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import free_port

MOTO_SERVER = Path(sys.executable).with_name("moto_server")
ACCESS_KEY = "rootline-test"
SECRET_KEY = "rootline-test-secret"
REGION = "us-east-1"


@dataclass(frozen=True, slots=True)
class S3Server:
    endpoint_url: str

    def client(self) -> Any:
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=Config(s3={"addressing_style": "path"}),
        )

    def new_bucket(self) -> str:
        name = f"rootline-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        listing = self.client().list_objects_v2(Bucket=bucket)
        return [item["Key"] for item in listing.get("Contents", [])]


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto_server on 127.0.0.1; skipped (saying so) when moto[server] is not installed."""
    executable = str(MOTO_SERVER) if MOTO_SERVER.exists() else shutil.which("moto_server")
    if executable is None:
        pytest.skip("moto_server not installed (pip install 'moto[server]'): S3 tests SKIPPED")
    port = free_port()
    log_path = tmp_path_factory.mktemp("moto") / "moto_server.log"
    log = log_path.open("w")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
    process = subprocess.Popen(
        [executable, "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{url}/moto-api/", timeout=1)
            break
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                log.close()
                pytest.fail(f"moto_server did not start: {log_path.read_text()[-2000:]}")
            time.sleep(0.2)
    yield S3Server(url)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()
