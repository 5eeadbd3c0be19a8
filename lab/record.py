#!/usr/bin/env python3
"""Record the lab's committed fixtures from their manifests.

    lab/record.py <scenario> [name...]     record the named captures (all by default)
    lab/record.py --list [scenario...]     list the captures of each manifest
    lab/record.py --show <folder|bundle>   key numbers of recorded bundles (for `shows`)
    lab/record.py --table <scenario...>    the fixtures README's table of each scenario

Each scenario folder lab/fixtures/<scenario>/ holds a manifest `captures.toml`:

    scenario = "small_send_buffer"           # lab/scenarios/<scenario>.sh
    [[capture]]
    name = "base"                            # bundle(s) in lab/fixtures/<scenario>/<name>/
    role = "failure"                         # failure | contrast | healthy
    env = { RTT_MS = "20", SNDBUF = "16384" } # recorded with these variables set
    varies = "..."                           # what this capture changes
    shows = "..."                            # numbers read from the capture and load.jsonl
    confirmed = ["small_send_buffer"]        # ids that must come out confirmed
    may_confirm = []                         # other ids allowed to be confirmed (say why)
    may_likely = []                          # ids allowed 'likely' on a contrast/healthy run
    why = ""

A capture is recorded by running lab/scenarios/<scenario>.sh as root with the capture's env,
LAB_OUT_DIR=lab/fixtures/<scenario>/<name> and LAB_NS_SUFFIX (namespaces of their own), under
an exclusive flock on /tmp/rootline-lab.lock: two recorders (this one and any other lab
session) never run at once, so neither disturbs the other's timing and CPU. Each recording is
killed after 120 s. Standard library only.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path

LAB = Path(__file__).resolve().parent
FIXTURES = LAB / "fixtures"
LOCK = Path("/tmp/rootline-lab.lock")
TIME_LIMIT_S = 120
ROLES = {"failure", "contrast", "healthy"}
FIELDS = {"name", "role", "env", "varies", "shows", "confirmed", "may_confirm", "may_likely", "why"}


def load_manifest(scenario: str) -> dict:
    path = FIXTURES / scenario / "captures.toml"
    with path.open("rb") as handle:
        manifest = tomllib.load(handle)
    problems = []
    if manifest.get("scenario") != scenario:
        problems.append(f"scenario = {manifest.get('scenario')!r}, expected {scenario!r}")
    names = set()
    for capture in manifest.get("capture", []):
        name = capture.get("name", "?")
        if name in names:
            problems.append(f"{name}: listed twice")
        names.add(name)
        if unknown := set(capture) - FIELDS:
            problems.append(f"{name}: unknown fields {sorted(unknown)}")
        if missing := FIELDS - set(capture):
            problems.append(f"{name}: missing fields {sorted(missing)}")
        if capture.get("role") not in ROLES:
            problems.append(f"{name}: role {capture.get('role')!r} not in {sorted(ROLES)}")
        if capture.get("role") != "failure" and capture.get("confirmed"):
            problems.append(f"{name}: a {capture['role']} capture confirms nothing")
        if not all(isinstance(v, str) for v in capture.get("env", {}).values()):
            problems.append(f"{name}: env values must be strings")
    if problems:
        raise SystemExit(f"{path}:\n  " + "\n  ".join(problems))
    return manifest


def cpu_idle_percent(seconds: float = 3.0) -> int:
    def sample() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        return sum(fields), fields[3]

    total1, idle1 = sample()
    time.sleep(seconds)
    total2, idle2 = sample()
    return 100 * (idle2 - idle1) // max(total2 - total1, 1)


def wait_for_quiet(max_s: float, want_idle: int = 80) -> None:
    """Other sessions share this machine (test suites): CPU-sensitive captures wait, up to
    max_s, until it is at least want_idle % idle over 3 s."""
    started = time.monotonic()
    while True:
        idle = cpu_idle_percent()
        waited = time.monotonic() - started
        if idle >= want_idle or waited >= max_s:
            state = "quiet" if idle >= want_idle else "NOT quiet"
            print(f"[record] machine {state}: {idle} % idle after {waited:.0f} s", file=sys.stderr)
            return


def record(scenario: str, capture: dict, quiet_s: float = 0) -> bool:
    script = LAB / "scenarios" / f"{scenario}.sh"
    out_dir = FIXTURES / scenario / capture["name"]
    env = dict(os.environ)
    env.setdefault("LAB_NS_SUFFIX", "-rec")
    env.update(capture["env"])
    env["LAB_OUT_DIR"] = str(out_dir)
    settings = " ".join(f"{k}={v}" for k, v in capture["env"].items())
    with LOCK.open("a") as lock:
        waited = time.monotonic()
        fcntl.flock(lock, fcntl.LOCK_EX)
        if time.monotonic() - waited > 1:
            print(f"[record] waited {time.monotonic() - waited:.0f} s for {LOCK}", file=sys.stderr)
        print(f"[record] {scenario}/{capture['name']}: {settings or '(defaults)'}", file=sys.stderr)
        if quiet_s:
            wait_for_quiet(quiet_s)
        started = time.monotonic()
        # Its own process group: on timeout the whole scenario gets SIGTERM (its EXIT trap
        # cleans up namespaces and processes), then SIGKILL.
        process = subprocess.Popen(["bash", str(script)], env=env, start_new_session=True)
        try:
            code = process.wait(timeout=TIME_LIMIT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            code = -1
            print(f"[record] {scenario}/{capture['name']}: over {TIME_LIMIT_S} s, stopped", file=sys.stderr)
    elapsed = time.monotonic() - started
    # Lock released: give a recorder waiting on it (another lab session) its turn before this
    # batch's next capture takes it again.
    time.sleep(3)
    bundles = sorted(out_dir.glob("*.tar.gz"))
    ok = code == 0 and bool(bundles)
    print(f"[record] {scenario}/{capture['name']}: {'ok' if ok else 'FAILED'} in {elapsed:.0f} s, "
          f"{len(bundles)} bundle(s), {sum(b.stat().st_size for b in bundles) // 1024} KB", file=sys.stderr)
    return ok


# --- --show: the numbers a `shows` line quotes ---------------------------------------------

SNAPSHOT = re.compile(r"^=== (\S+) ===$")


def snapshots(text: str) -> list[list[str]]:
    chunks: list[list[str]] = []
    for line in text.splitlines():
        if SNAPSHOT.match(line):
            chunks.append([])
        elif chunks:
            chunks[-1].append(line)
    return chunks


def sockets(chunk: list[str]) -> list[dict]:
    """ss -tinm lines of one snapshot -> one dict per socket."""
    found: list[dict] = []
    for line in chunk:
        fields = line.split()
        if not fields or fields[0] == "State":
            continue
        if not line[0].isspace() and len(fields) >= 5:
            found.append({"state": fields[0], "recvq": int(fields[1]), "sendq": int(fields[2]),
                          "local": fields[3], "peer": fields[4], "info": ""})
        elif found:
            found[-1]["info"] += " " + line.strip()
    return found


def info_number(info: str, key: str) -> float | None:
    match = re.search(rf"(?:^|\s){key}[: ]([\d.]+)", info)
    return float(match.group(1)) if match else None


def spread(values: list[float], unit: str = "") -> str:
    if not values:
        return "-"
    return (f"min {min(values):,.0f} median {statistics.median(values):,.0f} "
            f"max {max(values):,.0f}{unit} (n={len(values)})")


def show_bundle(path: Path) -> None:
    with tarfile.open(path) as tar:
        files = {Path(m.name).name: tar.extractfile(m).read().decode(errors="replace")  # type: ignore[union-attr]
                 for m in tar.getmembers() if m.isfile()}
    print(f"== {path}")
    ss = [sockets(c) for c in snapshots(files.get("ss-tinm.txt", ""))]
    estab = [[s for s in snap if s["state"] == "ESTAB"] for snap in ss]
    print(f"  ss -tinm: {len(ss)} snapshots, ESTAB per snapshot {spread([len(e) for e in estab])}")
    if any(estab):
        for label, key in (("Send-Q", "sendq"), ("Recv-Q", "recvq")):
            per_snap = [max((s[key] for s in e), default=0) for e in estab if e]
            busy = sum(1 for v in per_snap if v > 0)
            print(f"  {label} (largest socket per snapshot): {spread(per_snap, ' B')}; non-zero in {busy}")
        infos = [s["info"] for e in estab for s in e]
        for key in ("cwnd", "ssthresh", "rtt", "rto", "mss", "unacked", "retrans", "notsent"):
            values = [v for v in (info_number(i, key) for i in infos) if v is not None]
            if values:
                print(f"  {key}: {spread(values)}")
        for key in ("tb", "rb"):
            values = sorted({int(m) for i in infos for m in re.findall(rf"\b{key}(\d+)", i)})
            print(f"  skmem {key}: {values[:6]}{' ...' if len(values) > 6 else ''}")
        rates = [v for v in (info_number(i, "delivery_rate") for i in infos) if v]
        if rates:
            print(f"  delivery_rate: {spread([r / 8 / 1024 for r in rates], ' KB/s')}")
        app = sum("app_limited" in i for i in infos)
        print(f"  app_limited in {app} of {len(infos)} socket lines")
        last = {}
        for i in infos:
            for key in ("busy", "rwnd_limited", "sndbuf_limited"):
                m = re.search(rf"{key}:(\d+)ms(?:\(([\d.]+)%\))?", i)
                if m:
                    last[key] = m.group(0)
        print(f"  last chrono: {last or '-'}")
        retrans = [re.search(r"retrans:\d+/(\d+)", i) for i in infos]
        total = [int(m.group(1)) for m in retrans if m]
        if total:
            print(f"  retrans (total per socket line): max {max(total)}")
    lnt = [sockets(c) for c in snapshots(files.get("ss-lnt.txt", ""))]
    listen = [s for snap in lnt for s in snap if s["state"] == "LISTEN"]
    if listen:
        print(f"  LISTEN Recv-Q {spread([s['recvq'] for s in listen])}; Send-Q (backlog) "
              f"{sorted({s['sendq'] for s in listen})}")
    estab_s, tw_s = [], []
    for chunk in snapshots(files.get("ss-s.txt", "")):
        for line in chunk:
            m = re.search(r"estab (\d+), closed \d+, orphaned \d+, timewait (\d+)", line)
            if m:
                estab_s.append(int(m.group(1)))
                tw_s.append(int(m.group(2)))
    if estab_s:
        print(f"  ss -s estab {spread(estab_s)}; timewait {spread(tw_s)}")
    # nstat -az prints absolute counters (the namespace's, since it was created): last - first.
    first: dict[str, int] = {}
    totals: dict[str, int] = {}
    for chunk in snapshots(files.get("nstat.txt", "")):
        for line in chunk:
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                first.setdefault(fields[0], int(fields[1]))
                totals[fields[0]] = int(fields[1]) - first[fields[0]]
    wanted = ("TcpOutSegs", "TcpRetransSegs", "TcpInSegs", "TcpActiveOpens", "TcpPassiveOpens",
              "TcpExtTCPTimeouts", "TcpExtTCPLostRetransmit", "TcpExtListenOverflows", "TcpExtListenDrops",
              "TcpExtTCPToZeroWindowAdv", "TcpExtTCPWantZeroWindowAdv", "TcpExtTCPFromZeroWindowAdv",
              "TcpExtTCPWinProbe", "TcpExtTCPSynRetrans", "TcpExtTCPAbortOnData", "TcpOutRsts")
    print("  nstat totals: " + ", ".join(f"{k} {totals[k]:,}" for k in wanted if totals.get(k)))
    # Periodic spikes (heartbeats): TcpInSegs per snapshot, and when it jumped.
    stamps, in_segs = [], []
    for chunk, line in zip(snapshots(files.get("nstat.txt", "")), re.findall(r"^=== (\S+) ===$", files.get("nstat.txt", ""), re.M)):
        for row in chunk:
            if row.startswith("TcpInSegs "):
                stamps.append(line)
                in_segs.append(int(row.split()[1]))
    deltas = [b - a for a, b in zip(in_segs, in_segs[1:])]
    if len(deltas) > 4:
        base = statistics.median(deltas)
        spikes = [i + 1 for i, d in enumerate(deltas) if d > max(5 * base, 100)]
        if spikes:
            print(f"  TcpInSegs per snapshot: median {base:,.0f}, max {max(deltas):,}; spikes (> 5x median) at "
                  f"snapshots {spikes[:12]} of {len(deltas)}, each {spread([deltas[i - 1] for i in spikes])}")
    if totals.get("TcpOutSegs"):
        print(f"  retransmitted share: {100 * totals.get('TcpRetransSegs', 0) / totals['TcpOutSegs']:.2f} %")
    if "threadpool.csv" in files:
        rows = [line.split(",") for line in files["threadpool.csv"].splitlines()[1:] if line]
        active = [int(r[2]) for r in rows]
        print(f"  pool active {spread(active)} of max {rows[0][4] if rows else '?'}; queue max "
              f"{max((int(r[6]) for r in rows), default=0)}")
    nmon = [f for f in files if f.endswith(".nmon")]
    if nmon:
        busy = []
        for line in files[nmon[0]].splitlines():
            parts = line.split(",")
            if parts[0] == "CPU_ALL" and parts[1].startswith("T"):
                busy.append(float(parts[2]) + float(parts[3]))
        print(f"  nmon CPU busy (user+sys, whole machine): {spread(busy, ' %')}")
        if busy:
            high = [i for i, b in enumerate(busy) if b >= statistics.median(busy) + 20]
            if high:
                print(f"  nmon samples >= median + 20 points: {high[:15]} of {len(busy)}")
    sysctl = files.get("sysctl.txt", "")
    for key in ("net.ipv4.tcp_slow_start_after_idle", "net.core.somaxconn", "net.ipv4.tcp_congestion_control"):
        m = re.search(rf"^{re.escape(key)} = (.+)$", sysctl, re.M)
        if m:
            print(f"  {key} = {m.group(1)}")


def show(target: Path) -> None:
    bundles = sorted(target.glob("*.tar.gz")) if target.is_dir() else [target]
    for bundle in bundles:
        show_bundle(bundle)
    load = (target if target.is_dir() else target.parent) / "load.jsonl"
    if load.exists():
        for line in load.read_text().splitlines():
            print(f"  load: {line}")


def markdown_table(scenario: str) -> str:
    """The fixtures README's table for one scenario, from its manifest (reasons listed below it)."""
    rows = ["| capture | role | what varies | what the capture shows |", "|---|---|---|---|"]
    reasons: dict[str, list[str]] = {}
    for capture in load_manifest(scenario).get("capture", []):
        env = " ".join(f"{k}={v}" for k, v in capture["env"].items())
        role = capture["role"]
        if capture["may_confirm"]:
            role += f"; may confirm {', '.join(capture['may_confirm'])}"
        if capture["may_likely"]:
            role += f"; may be likely: {', '.join(capture['may_likely'])}"
        if capture["why"]:
            reasons.setdefault(capture["why"], []).append(f"`{capture['name']}`")
        rows.append(f"| `{capture['name']}` | {role} | {capture['varies']} (`{env}`) | {capture['shows']} |")
    notes = [f"- {', '.join(names)}: {why}" for why, names in reasons.items()]
    return "\n".join(rows + ([""] + notes if notes else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?")
    parser.add_argument("names", nargs="*")
    parser.add_argument("--list", action="store_true", help="list the captures of each manifest")
    parser.add_argument("--show", metavar="PATH", help="print the key numbers of a capture folder or bundle")
    parser.add_argument("--table", action="store_true", help="print the README table of each scenario named")
    parser.add_argument("--quiet", metavar="S", type=float, default=0,
                        help="before each recording, wait up to S s for the machine to be 80 %% idle")
    args = parser.parse_args()
    if args.show:
        show(Path(args.show))
        return
    if args.table:
        for scenario in [args.scenario, *args.names]:
            print(f"### `{scenario}`\n\n{markdown_table(scenario)}\n")
        return
    if args.list:
        scenarios = [args.scenario, *args.names] if args.scenario else sorted(
            p.parent.name for p in FIXTURES.glob("*/captures.toml"))
        for scenario in scenarios:
            for capture in load_manifest(scenario).get("capture", []):
                print(f"{scenario}/{capture['name']:<22} {capture['role']:<9} {json.dumps(capture['env'])}")
        return
    if not args.scenario:
        parser.error("name a scenario")
    if os.geteuid() != 0:
        raise SystemExit("the lab needs root (namespaces, iptables)")
    captures = load_manifest(args.scenario).get("capture", [])
    known = {c["name"]: c for c in captures}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        raise SystemExit(f"not in lab/fixtures/{args.scenario}/captures.toml: {', '.join(unknown)} "
                         f"(known: {', '.join(known)})")
    failed = [c["name"] for c in captures if (not args.names or c["name"] in args.names)
              and not record(args.scenario, c, args.quiet)]
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
