"""Upload to verdicts: a 100 MB three-host collector bundle through a real server.

    cd backend && .venv/bin/python -m bench.pipeline

Builds (once, into bench-data) a collector bundle as ``rootline-collect.sh`` writes it: one
``rootline-<host>-<stamp>/`` folder per host holding an ``ss -tinm`` loop (20 MB), ``nstat``
series (5 MB) and a unified GC log (8 MB), tar.gz'd: ~100 MB of text in 9 files. Then, per
setup, starts ``rootline serve`` on a scratch database, uploads the bundle over HTTP and
times until every member is parsed and the checklist answers (the parse worker recomputes it
after each member): "upload to verdicts".

Setups: the default server (one parse thread in the server process) on SQLite and on
PostgreSQL; then on PostgreSQL a server with no parse thread (``ROOTLINE_PARSE_THREADS=0``)
and 1, 2 and 4 ``rootline worker`` processes beside it, to show how parsing scales with
worker processes. Wall time is what a user waits; the CPU seconds of the server and the
workers are printed beside it (this machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench.load import BACKEND, ROOTLINE, prepare_database, start_server
from bench.run import BENCH_DATA, MB, PG_ADMIN, bench_file
from rootline.db import create_scratch_database

HOSTS = ("provider-1", "provider-2", "consumer-1")
PLAN = (
    ("bench.gen_ss", "generate", 20, "ss-tinm.txt"),
    ("bench.gen_nstat", "generate", 5, "nstat.txt"),
    ("bench.gen_gc", "generate_unified", 8, "gc.log"),
)
TARGET_S = 10.0


def bundle() -> Path:
    path = BENCH_DATA / "collector-3-hosts-100mb.tar.gz"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    with tarfile.open(partial, "w:gz", compresslevel=6) as tar:
        for host in HOSTS:
            for module, function, size_mb, name in PLAN:
                source = bench_file(module, function, size_mb)
                assert source is not None, module
                tar.add(source, arcname=f"rootline-{host}-20261121T072900/{name}")
    partial.rename(path)
    return path


def text_mb() -> float:
    with tarfile.open(bundle()) as tar:
        return sum(m.size for m in tar.getmembers()) / MB


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def server(url: str, workers: int, parse_threads: int) -> Iterator[tuple[str, str]]:
    token = prepare_database(url)
    with tempfile.TemporaryDirectory(prefix="rootline-pipeline-") as tmp:
        data_dir = Path(tmp)
        env = {
            **os.environ,
            "ROOTLINE_DATABASE_URL": url,
            "ROOTLINE_DATA_DIR": str(data_dir),
            "ROOTLINE_LOAD_DEMO": "false",
        }
        os.environ["ROOTLINE_PARSE_THREADS"] = str(parse_threads)
        process, base = start_server(url, data_dir, 1, data_dir / "server.log")
        os.environ.pop("ROOTLINE_PARSE_THREADS")
        parsers = [
            subprocess.Popen(
                [ROOTLINE, "worker", "--threads", "1"],
                env=env,
                cwd=BACKEND,
                stdout=(data_dir / f"worker-{i}.log").open("wb"),
                stderr=subprocess.STDOUT,
            )
            for i in range(workers)
        ]
        try:
            yield base, token
        finally:
            for p in [*parsers, process]:
                p.terminate()
            for p in [*parsers, process]:
                p.wait(30)


def upload_to_verdicts(base: str, token: str, path: Path, timeout_s: float = 600) -> float:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        incident = client.post("/api/incidents", json={"title": "pipeline"}).json()["id"]
        started = time.perf_counter()
        response = client.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": path.name},
            content=path.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert response.status_code in (201, 202), response.text
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            artifacts = client.get(f"/api/incidents/{incident}/artifacts").json()
            members = [a for a in artifacts if a["kind"] != "bundle"]
            waiting = [a for a in artifacts if a["status"] in ("pending", "parsing")]
            if len(members) >= len(HOSTS) * len(PLAN) and not waiting:
                checklist = client.get(f"/api/incidents/{incident}/checklist")
                assert checklist.status_code == 200, checklist.text
                elapsed = time.perf_counter() - started
                bad = [a["filename"] for a in members if a["status"] != "parsed"]
                assert not bad, f"not parsed: {bad}"
                assert checklist.json()["findings"]
                return elapsed
            time.sleep(0.2)
    raise SystemExit(f"not parsed within {timeout_s} s")


def run(label: str, url: str, workers: int, parse_threads: int, path: Path, size: float) -> None:
    cpu_before = children_cpu_s()
    with server(url, workers, parse_threads) as (base, token):
        elapsed = upload_to_verdicts(base, token, path)
    cpu = children_cpu_s() - cpu_before
    verdict = "ok" if elapsed <= TARGET_S else f"OVER target {TARGET_S:.0f} s"
    print(
        f"  {label:<44} {elapsed:6.1f} s wall = {size / elapsed:5.1f} MB/s"
        f" (server + workers {cpu:5.1f} CPU s)  [{verdict}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", default="1,2,4", help="worker process counts on PostgreSQL")
    args = parser.parse_args()
    path = bundle()
    size = text_mb()
    print(
        f"Upload to verdicts: {path.name} ({path.stat().st_size / MB:.0f} MB gzipped, "
        f"{size:.0f} MB of text in {len(HOSTS) * len(PLAN)} files, {len(HOSTS)} hosts;"
        f" {os.cpu_count()} CPUs)"
    )
    with tempfile.TemporaryDirectory(prefix="rootline-pipeline-db-") as tmp:
        run("SQLite, default server (1 parse thread)", f"sqlite:///{tmp}/p.db", 0, 1, path, size)
    scratch = create_scratch_database(PG_ADMIN, "rootline_pipeline")
    if scratch is None:
        print("  PostgreSQL not reachable: PostgreSQL numbers SKIPPED")
        return
    scratch.drop()
    for label, workers, threads in [
        ("PostgreSQL, default server (1 parse thread)", 0, 1),
        *[
            (f"PostgreSQL, {n} rootline worker process(es)", n, 0)
            for n in (int(x) for x in args.workers.split(","))
        ],
    ]:
        db = create_scratch_database(PG_ADMIN, "rootline_pipeline")
        assert db is not None
        try:
            run(label, db.url, workers, threads, path, size)
        finally:
            db.drop()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
