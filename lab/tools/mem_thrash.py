"""Memory load for the memory_pressure scenario (lab helper B), stdlib only.

A process whose working set does not fit in its memory limit: it keeps --anon-mb of
anonymous memory resident (touched every second; there is no swap on the lab machine, so
the kernel cannot page it out) and reads random pages of a --file-mb file through mmap
(an index or a memory-mapped store). When anon + file working set exceed the memory
cgroup's limit, every read of an evicted page is a major fault: a disk read on the reading
thread's time, and reclaim runs on every allocation.

    mem_thrash.py prepare --file /var/tmp/x --file-mb 1024   # write, fsync, drop from cache
    mem_thrash.py run --file /var/tmp/x --anon-mb 200 --seconds 30

``run`` prints one JSON line at the end: page reads and major faults per second (from
getrusage), so the scenario can quote how much work the faults cost.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import random
import resource
import time

PAGE = 4096


def prepare(args: argparse.Namespace) -> None:
    """Write --file-mb of data, fsync it and drop it from the page cache (cold start)."""
    block = os.urandom(1 << 20)
    with open(args.file, "wb") as out:
        for _ in range(args.file_mb):
            out.write(block)
        out.flush()
        os.fsync(out.fileno())
        os.posix_fadvise(out.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    print(json.dumps({"role": "mem-prepare", "file_mb": args.file_mb}), flush=True)


def run(args: argparse.Namespace) -> None:
    """Keep --anon-mb resident and read random pages of --file for --seconds."""
    anon = bytearray(args.anon_mb << 20)
    anon_pages = len(anon) // PAGE
    for page in range(anon_pages):  # calloc'd pages are not resident until written
        anon[page * PAGE] = 1
    with open(args.file, "rb") as source:
        mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
    mapped.madvise(mmap.MADV_RANDOM)  # no readahead: one fault = one page, as for an index
    file_pages = len(mapped) // PAGE
    started = time.monotonic()
    stop_at = started + args.seconds
    per_second: list[list[int]] = []  # [page reads, major faults] per second
    total_reads = 0
    checksum = 0
    while time.monotonic() < stop_at:
        second_end = time.monotonic() + 1
        faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        reads = 0
        while time.monotonic() < second_end:
            for _ in range(200):
                checksum ^= mapped[random.randrange(file_pages) * PAGE]
            reads += 200
        for page in range(0, anon_pages, 16):  # keep the anonymous set hot
            anon[page * PAGE] ^= 1
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - faults_before
        per_second.append([reads, faults])
        total_reads += reads
    elapsed = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "role": "mem-thrash",
                "anon_mb": args.anon_mb,
                "file_mb": len(mapped) >> 20,
                "seconds": round(elapsed, 1),
                "page_reads": total_reads,
                "page_reads_per_s": round(total_reads / elapsed),
                "major_faults": usage.ru_majflt,
                "max_rss_mb": usage.ru_maxrss >> 10,
                "per_second_reads_majfaults": per_second,
                "checksum": checksum,
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="write the file and drop it from the page cache")
    p.set_defaults(handler=prepare)
    p.add_argument("--file", required=True)
    p.add_argument("--file-mb", type=int, default=1024)
    r = sub.add_parser("run", help="keep anon memory resident and read random file pages")
    r.set_defaults(handler=run)
    r.add_argument("--file", required=True)
    r.add_argument("--anon-mb", type=int, default=200)
    r.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    args.handler(args)


if __name__ == "__main__":
    main()
