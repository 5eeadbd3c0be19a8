"""The whole checklist on the public corpus (../shared/corpus, see its SOURCES.md): real files
written by ss, netstat, nstat, sysctl, nmon, JVM GC logging and jstack on machines nobody tuned
for Rootline. Each file, each group of files SOURCES.md places on one machine, and each corpus
folder as one incident is analysed once (``rootline analyze``'s path, cached), then:

- no checklist id fails on it ("The detector failed" is a bug, never a verdict);
- every ``confirmed`` / ``likely`` rests on an evidence item that met its threshold (a proxy
  marked ``corroborates`` does not count), every ``ruled_out`` says numbers;
- the verdicts checked by reading the files are pinned in ``PINS``, one line of reason each.
  A pin marked ``now=...`` is a verdict the checklist gets wrong today: the case is a strict
  xfail, so the fix flips it (then drop ``now``).

The corpus is never copied into the repository; without it every test here skips.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

import pytest

from rootline import offline
from rootline.detectors import registry
from rootline.detectors.base import Finding
from rootline.detectors.data import ParsedArtifact
from rootline.parsers.base import ParseContext
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.corpus

FOLDERS = ("ss", "netstat", "nmon", "gc", "gc-other-jvms", "threads")
ABSENT = f"corpus not found at {CORPUS_DIR} (set ROOTLINE_CORPUS_DIR)"
# Zone-less files land at this instant in every run (the CLI takes the wall clock).
CONTEXT = ParseContext.for_zone("UTC", default_time_ms=1_700_000_000_000)

# Files SOURCES.md places on one machine, analysed together as one incident.
GROUPS: dict[str, tuple[str, ...]] = {
    # "ss -tulpn listening sockets on the same RHEL host"
    "group:rhel-workstation-insights": (
        "ss/ss-tupna-rhel-workstation-insights.txt",
        "ss/ss-tulpn-rhel-workstation-insights.txt",
    ),
    # jc's tests/fixtures/centos-7.7: one VM (hostname localhost.localdomain in all three)
    "group:centos77-jc": (
        "ss/ss-a-centos77-jc.txt",
        "netstat/netstat-default-centos77-jc.txt",
        "netstat/sysctl-a-centos77-jc.txt",
    ),
    # jc's tests/fixtures/ubuntu-18.04: one VM
    "group:ubuntu1804-jc": (
        "ss/ss-a-ubuntu1804-jc.txt",
        "ss/ss-tulpen-ubuntu1804-jc.txt",
        "netstat/netstat-lnp-ubuntu1804-jc.txt",
    ),
    # two nmon runs of the same 2-vCPU VM (VM-12-13-centos) on the same day
    "group:centos7-kvm-nmon": (
        "nmon/linux-centos7-kvm-nmon16g-top-1000x5s-nmon-analysis-tools.nmon",
        "nmon/linux-centos7-kvm-nmon16g-incomplete-run-nmon-analysis-tools.nmon",
    ),
}


class Pin(NamedTuple):
    verdict: str
    why: str
    now: str | None = None  # today's (wrong) verdict: the case is a strict xfail


R, C, L, N = "ruled_out", "confirmed", "likely", "insufficient_data"

# file or group -> {checklist id: the verdict read off the file, and why}
PINS: dict[str, dict[str, Pin]] = {
    # --- ss ------------------------------------------------------------------------------
    "ss/ss-a-centos77-jc.txt": {
        "time_wait_storm": Pin(R, "ss -a lists every state: no TIME-WAIT row (0) beside 2 ESTAB"),
        "accept_queue_overflow": Pin(
            N, "one listing, 4 LISTEN Recv-Q 0: a drained queue, no counter"
        ),
        "heartbeat_storm": Pin(
            N, "2 tcp ESTAB sockets in one listing, no CPU/packet series: a moment"
        ),
    },
    "ss/ss-a-ubuntu1804-jc.txt": {
        "time_wait_storm": Pin(R, "ss -a (its unix sockets ESTAB): tcp LISTEN only, 0 TIME-WAIT"),
        "accept_queue_overflow": Pin(
            N, "one listing, 4 LISTEN Recv-Q 0: a drained queue, no counter"
        ),
    },
    "ss/ss-itn-twoline-tcpinfo-mysql-clients-plantegg.txt": {
        "receiver_not_reading": Pin(R, "Recv-Q 0, no rwnd_limited in 44.6 min busy (app_limited)"),
        "heartbeat_storm": Pin(N, "2 ESTAB MySQL client connections in one listing: a moment"),
    },
    "ss/ss-lt-listen-backlog-old-iproute2-k8s-node-plantegg.txt": {
        "time_wait_storm": Pin(N, "ss -lt: listening sockets only, nothing of TIME-WAIT"),
        "accept_queue_overflow": Pin(
            N, "one ss -lt, 17 LISTEN Recv-Q 0 (backlogs 10, 128): no burst"
        ),
    },
    "ss/ss-noemitauOH-oneline-tcpinfo-skmem-desktop-pcp.txt": {
        "small_send_buffer": Pin(R, "41 ESTAB all Send-Q 0, no sndbuf_limited on any socket"),
        "receiver_not_reading": Pin(R, "every Recv-Q 0, no rwnd_limited on any socket"),
        "time_wait_storm": Pin(
            R, "4 TIME-WAIT beside 41 ESTAB; all 4 on ephemeral ports to :443 (client side)"
        ),
        "accept_queue_overflow": Pin(N, "one listing, 24 LISTEN Recv-Q 0: no counter"),
        "heartbeat_storm": Pin(N, "41 ESTAB in one listing, no series"),
    },
    "ss/ss-noemitauOH-oneline-tcpinfo-skmem-ubuntu-pcp.txt": {
        "time_wait_storm": Pin(R, "ss -a: 17 LISTEN, 3 ESTAB, no TIME-WAIT row (0)"),
        "small_send_buffer": Pin(R, "3 ESTAB, Send-Q 0, no sndbuf_limited"),
        "receiver_not_reading": Pin(R, "3 ESTAB, Recv-Q 0, no rwnd_limited"),
        "accept_queue_overflow": Pin(N, "one listing, 17 LISTEN Recv-Q 0: no counter"),
        "heartbeat_storm": Pin(N, "3 ESTAB in one listing, no series"),
    },
    "ss/ss-o-i-state-established-twoline-tcpinfo-kernel-doc.txt": {
        "small_send_buffer": Pin(N, "one socket, no skmem: the send buffer is not in the file"),
    },
    "ss/ss-s-summary-old-iproute2-orphaned-kernel-doc.txt": {
        "time_wait_storm": Pin(R, "ss -s: timewait 0/0, estab 1"),
        "heartbeat_storm": Pin(N, "ss -s: 1 established, read once, no series"),
    },
    "ss/ss-tulpen-ubuntu1804-jc.txt": {
        "accept_queue_overflow": Pin(N, "one listing of LISTEN sockets, Recv-Q 0"),
    },
    "ss/ss-tulpn-rhel-workstation-insights.txt": {
        "accept_queue_overflow": Pin(N, "one listing, 9 LISTEN Recv-Q 0 (backlogs 5-128)"),
    },
    "ss/ss-tulpne-wide-cgroup-mailserver-jc.txt": {
        "accept_queue_overflow": Pin(N, "one listing of LISTEN sockets, Recv-Q 0"),
    },
    "ss/ss-tupna-rhel-workstation-insights.txt": {
        "time_wait_storm": Pin(R, "3 TIME-WAIT beside 7 ESTAB"),
        "accept_queue_overflow": Pin(N, "one listing, 9 LISTEN Recv-Q 0: no counter"),
        "heartbeat_storm": Pin(N, "7 ESTAB in one listing, no series"),
    },
    # --- netstat / nstat / /proc/net / sysctl -------------------------------------------
    "netstat/netstat-agn-group-memberships-insights.txt": {
        "accept_queue_overflow": Pin(N, "multicast group table: no TCP socket or counter"),
    },
    "netstat/netstat-default-centos77-jc.txt": {
        "time_wait_storm": Pin(R, "connections w/o servers: 3 ESTABLISHED, no TIME_WAIT"),
        "heartbeat_storm": Pin(N, "3 ESTABLISHED in one listing, no series"),
    },
    "netstat/netstat-default-fedora32-jc.txt": {
        "time_wait_storm": Pin(R, "1 ESTABLISHED, no TIME_WAIT"),
        "heartbeat_storm": Pin(N, "1 ESTABLISHED in one listing, no series"),
    },
    "netstat/netstat-i-bonded-interfaces-insights.txt": {
        "tcp_retransmissions": Pin(N, "interface table: no TCP counter"),
    },
    "netstat/netstat-lnp-ubuntu1804-jc.txt": {
        "accept_queue_overflow": Pin(N, "netstat shows no backlog for LISTEN sockets, no counter"),
    },
    "netstat/netstat-neopa-rhel-excerpt-insights.txt": {
        "time_wait_storm": Pin(R, "1 ESTABLISHED, 1 SYN_RECV, no TIME_WAIT"),
        "heartbeat_storm": Pin(N, "1 ESTABLISHED in one listing, no series"),
    },
    "netstat/netstat-s-rhel7-insights.txt": {
        "heartbeat_storm": Pin(N, "139 connections established, one since-boot gauge, no series"),
        "tcp_retransmissions": Pin(N, "one since-boot reading (428 of 2,890,303): not placeable"),
    },
    "netstat/nstat-delta-kernel-header-tcp-client-kernel-doc.txt": {
        "tcp_retransmissions": Pin(N, "a delta of 1 segment sent: far too few for a rate"),
    },
    "netstat/proc-net-netstat-jc.txt": {
        "accept_queue_overflow": Pin(R, "TcpExt ListenOverflows 0 since boot"),
    },
    "netstat/proc-net-netstat-kernel4.15-pcp.txt": {
        "accept_queue_overflow": Pin(N, "ListenOverflows 90 since boot, read once: not placeable"),
    },
    "netstat/proc-net-netstat-node-exporter.txt": {
        "accept_queue_overflow": Pin(R, "TcpExt ListenOverflows 0 since boot"),
    },
    "netstat/proc-net-snmp-kernel2.6.32-pcp.txt": {
        "heartbeat_storm": Pin(N, "Tcp CurrEstab 10, read once, no series"),
    },
    "netstat/proc-net-snmp-kernel3.19-pcp.txt": {
        "heartbeat_storm": Pin(N, "Tcp CurrEstab 42, read once, no series"),
    },
    "netstat/proc-net-snmp-node-exporter.txt": {
        "heartbeat_storm": Pin(N, "Tcp CurrEstab 0, read once, no series"),
    },
    "netstat/proc-net-sockstat-busy-server-insights.txt": {
        "time_wait_storm": Pin(
            N,
            "tw 2030 (past 1,000) beside TCP inuse 1365 (every socket but TIME-WAIT, so "
            "ESTAB <= 1365): the 1.5 per socket is a lower bound, one snapshot shows no rise, "
            "no TcpExtTW: neither churn nor its absence is shown",
        ),
    },
    "netstat/sysctl-a-centos77-jc.txt": {
        "slow_start_after_idle": Pin(N, "the setting alone, no per-connection cwnd (ss -ti)"),
    },
    # --- nmon ----------------------------------------------------------------------------
    "nmon/aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon": {
        "memory_pressure": Pin(
            C, "PAGE pgsin 2.6k-47.9k/s, pgsout 2k-31.7k/s all 31 snapshots; paging space +6.6 GB"
        ),
        "cpu_saturation": Pin(
            L,
            "PROC,T0027 Runnable 60.20 on 28 logical CPUs = 2.15 per CPU, averaged by "
            "topas_nmon over the 1200 s interval, one reading (user+sys peaks at 85.7 %)",
        ),
        "heartbeat_storm": Pin(N, "20 min snapshots cannot show a 5 s - 5 min period"),
    },
    "nmon/aix61-tl09-power7-topas-nmon-vg-diskserv-top-nmonchart-sampleD.nmon": {
        "cpu_saturation": Pin(
            C, "CPU01/CPU02 >= 95 % T0074-T0133 (5 h) while CPU_ALL < 90 %: TOP dataserver 103 %"
        ),
        "memory_pressure": Pin(
            L, "free 0.1 % + numperm down to ~3 % (minperm 3 %) for hours; pgsin/pgsout ~0"
        ),
        "heartbeat_storm": Pin(N, "5 min snapshots cannot show a 5 s - 5 min period"),
    },
    "nmon/aix71-tl03-power7-topas-nmon-300s-nmon2influxdb.nmon": {
        "cpu_saturation": Pin(R, "user+sys peaks at 80 %, busiest logical CPU 64 %"),
        "memory_pressure": Pin(R, "available never below 71 %, no paging-space I/O"),
        "heartbeat_storm": Pin(N, "5 min snapshots cannot show a 5 s - 5 min period"),
    },
    "nmon/aix712-topas-nmon-1s-top-nfs-omp-nmonrrd.nmon": {
        "cpu_saturation": Pin(R, "user+sys peaks at 74 %; a CPU at >= 95 % for 3 s at most"),
        "memory_pressure": Pin(R, "available never below 38 %, no paging"),
    },
    "nmon/linux-centos7-kvm-nmon16g-incomplete-run-nmon-analysis-tools.nmon": {
        "cpu_saturation": Pin(R, "user+sys peaks at 7.8 % over the 6 snapshots"),
        "memory_pressure": Pin(R, "78 % available, no swap"),
    },
    "nmon/linux-centos7-kvm-nmon16g-top-1000x5s-nmon-analysis-tools.nmon": {
        "cpu_saturation": Pin(R, "user+sys peaks at 10 % on 2 vCPUs"),
        "memory_pressure": Pin(R, "78 % available, no swap"),
        "heartbeat_storm": Pin(
            N, "a 60 s CPU wave (autocorrelation 0.6), packets not periodic, no connection count"
        ),
    },
    "nmon/linux-nmon-headerless-fragment-5-snapshots-grafana-influx-nmon.csv": {
        "cpu_saturation": Pin(R, "user+sys peaks at 3.4 % on 12 CPUs"),
        "memory_pressure": Pin(R, "70 % available, no swap"),
    },
    "nmon/linux-rhel7-s390x-nmon16f-1000x1s-omp-nmonrrd.nmon": {
        "cpu_saturation": Pin(R, "user+sys peaks at 31 % on 2 CPUs"),
        "memory_pressure": Pin(R, "94 % available, no swap"),
        "heartbeat_storm": Pin(R, "no periodic CPU or packet spikes"),
    },
    "nmon/linux-rhel7-s390x-nmon16f-stress-100x1s-omp-nmonrrd.nmon": {
        "cpu_saturation": Pin(C, "the stress run: user+sys 100 % for 99 of 100 s, 5 runnable on 2"),
        "memory_pressure": Pin(R, "90 % available, no swap"),
    },
    # --- GC logs (HotSpot) ---------------------------------------------------------------
    "gc/jdk-ujl-parallel-gc-all-safepoint-oscpu-gcviewer.txt": {
        "gc_pauses": Pin(R, "8 pauses, the longest 13.6 ms"),
    },
    "gc/jdk-ujl-serial-gc-all-safepoint-oscpu-gcviewer.txt": {
        "gc_pauses": Pin(R, "4 pauses, the longest 10.9 ms"),
    },
    "gc/jdk-ujl-shenandoah-gctoolkit.log": {
        "gc_pauses": Pin(C, "Pause Degenerated GC (Mark) 5619 ms after an allocation failure"),
    },
    "gc/jdk-ujl-zgc-allocation-stall-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "7 allocation stalls up to 29 ms (each blocks its own thread; likely from 200 ms), 3 sub-ms pauses, in a log of 1.3 s: too short to rule out: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk11plus-ujl-g1-time-uptime-decorations-gctoolkit.log": {
        "gc_pauses": Pin(L, "G1 young pauses of 300 and 428 ms, above G1's 200 ms goal"),
    },
    "gc/jdk17-ujl-g1-full-concurrent-cycle-gc-all-safepoint-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "9 short pauses in a log of 77 ms: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk17-ujl-g1-utctime-uptime-level-tags-garbagecat.txt": {
        "gc_pauses": Pin(
            N,
            "2 short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk17-ujl-shenandoah-time-uptime-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "4 short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk17-ujl-shenandoah-uptime-level-garbagecat.txt": {
        "gc_pauses": Pin(
            N,
            "5 short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk21-ujl-zgc-generational-major-minor-garbagecat.txt": {
        "gc_pauses": Pin(R, "3 pauses, the longest 0.23 ms"),
    },
    "gc/jdk21-ujl-zgc-nongenerational-garbagecat.txt": {
        "gc_pauses": Pin(
            N,
            "153 sub-ms pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk6or7-icms-parnew-details-gctoolkit.log": {
        "gc_pauses": Pin(
            R,
            "longest 183 ms (System.gc at start-up), p99 9 ms, 0.1 % of 68 min: only the "
            "first 10 s (JVM start) reach 5.8 %, under the 10 % that costs requests",
        ),
    },
    "gc/jdk7-g1-appstopped-tenuring-ergonomics-decimal-comma-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "1 pause of 28 ms (decimal-comma locale read) in a log of 1.9 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk7-g1-details-appstopped-heapatgc-gctoolkit.log": {
        "gc_pauses": Pin(L, "G1 young pauses of 494 and 238 ms (application stopped 0.49 s)"),
    },
    "gc/jdk7-parallel-datestamps-gccause-tenuring-gctoolkit.log": {
        "gc_pauses": Pin(C, "Full GC (Ergonomics) 2.41 s, after 0.74 s and 1.37 s ones"),
    },
    "gc/jdk8-cms-parnew-details-tenuring-gccause-macos-gctoolkit.log": {
        "gc_pauses": Pin(
            R,
            "55 ParNew pauses, the longest 116 ms, 0.6 % of the log; the worst 10 s holds "
            "3.1 %: ordinary young collections",
        ),
    },
    "gc/jdk8-cms-parnew-windows-rotated-part2-gcviewer.txt": {
        "gc_pauses": Pin(R, "93 pauses, the longest 8.3 ms"),
    },
    "gc/jdk8-cms-printgcid-datestamps-openjdk8u342-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk8-g1-printgcid-datestamps-openjdk8u342-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk8-g1-redhat-8u352-timestamps-garbagecat.txt": {
        "gc_pauses": Pin(
            N,
            "short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk8-g1-string-dedup-rotated-logfile-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "short pauses in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc/jdk8-parallel-parold-details-tenuring-gccause-macos-gctoolkit.log": {
        "gc_pauses": Pin(C, "application stopped 28.2 s of 35.8 s: 910 pauses, 153 full GCs"),
    },
    "gc/jdk8-shenandoah-details-shutdown-gcviewer.txt": {
        "gc_pauses": Pin(N, "only the shutdown statistics, no pause line: no pause to judge"),
    },
    "gc/jdk8-parallel-printgcid-loongarch64-gcviewer.txt": {
        "gc_pauses": Pin(C, "544 + 194 + 649 ms (System.gc full) stopped within 4.5 s"),
    },
    "gc/jdk8-serial-defnew-details-tenuring-gctoolkit.log": {
        "gc_pauses": Pin(
            R,
            "longest 138 ms, p99 138 ms, 1.3 % of the log; the worst 10 s holds 6.6 % "
            "(young pauses <= 126 ms): no long pause and no large share",
        ),
    },
    "gc/jdk9or10-ujl-g1-xlog-gc-minimal-uptime-gctoolkit.log": {
        "gc_pauses": Pin(
            R,
            "3,435 pauses with p99 3.4 ms (one 135 ms jcmd full GC): the worst 10 s at "
            "5.4 % is thousands of 1-3 ms young pauses",
        ),
    },
    "gc/jdk9to13-ujl-cms-gc-trace-gctoolkit.log": {
        "gc_pauses": Pin(C, "612 pauses add up to 1.1 s of the 2.0 s the log covers"),
    },
    # --- GC logs of other JVMs (the pauses each parser reads: tests/parsers/test_gc_other_jvms)
    "gc-other-jvms/hpux-jdk13-xverbosegc-gcviewer.txt": {
        "gc_pauses": Pin(
            C, "a 1,977.596 ms System.gc() full GC (collection 60, field 18) among 135"
        ),
    },
    "gc-other-jvms/ibm-j9-java6-r26-verbosegc-xml-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "one scavenge of 5.3 ms in a log of 1.4 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc-other-jvms/ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt": {
        "gc_pauses": Pin(
            N,
            "two scavenges of 25 and 22 ms in a log shorter than 10 s: shorter than the 10 s window, it rules nothing out",
        ),
    },
    "gc-other-jvms/ibm-jdk131-verbosegc-text-gcviewer.txt": {
        "gc_pauses": Pin(C, "<GC(6): freed 26667280 bytes ... in 4211 ms>: a 4.2 s full GC"),
    },
    "gc-other-jvms/jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt": {
        "gc_pauses": Pin(R, "44 [pau] phases, the longest OC#3's Main 125.003 ms, 3.2 % of 10 s"),
    },
    # --- thread dumps and pool logs ------------------------------------------------------
    "threads/dubbo-2.6.5-threadpool-exhausted-warn-with-stacktrace-xinsblog.log": {
        "threadpool_exhaustion": Pin(C, "Thread pool is EXHAUSTED: active 300 of max 300"),
        "gc_pauses": Pin(N, "no GC log"),
    },
    "threads/jdk6-jboss-atg-http-worker-pool-threads-leogtzr.txt": {
        "threadpool_exhaustion": Pin(N, "http-0.0.0.0-8180: 1 of 7 threads RUNNABLE"),
        "thread_lock_contention": Pin(R, "one thread waits for one lock (JCA PoolFiller's)"),
    },
    "threads/jdk7-jboss-ajp-runnable-thread-pool-famaridon.log": {
        "threadpool_exhaustion": Pin(N, "ajp-8009: 8 of 14 RUNNABLE, 4 of them in socketRead0"),
        "thread_lock_contention": Pin(R, "no 'waiting to lock' line, no deadlock section"),
    },
    "threads/sap-jvm-j2ee-engine-std-server-dump-tda-fork.log": {
        "threadpool_exhaustion": Pin(
            N,
            "all 35 JCO.ServerThread are RUNNABLE in RfcListen -> nativeSAP_CMACCPTP, i.e. "
            "idle, waiting for the next RFC call (10-150 ms of CPU each)",
        ),
        "thread_lock_contention": Pin(
            C,
            "both dumps: 4 of 5 RMI/IIOP Workers BLOCKED on one Object held by RMI/IIOP Worker"
            " [3], 7 then 10 of 15 HTTP Workers on the FCAServer monitor held by a RUNNABLE one",
        ),
    },
    "threads/jdk25-jstack-java-level-deadlock-jthreaddump.txt": {
        "thread_lock_contention": Pin(C, "Found one Java-level deadlock: A <-> B on two Objects"),
    },
    "threads/jdk25-readwritelock-contention-jthreaddump.txt": {
        "thread_lock_contention": Pin(
            C,
            "Found 3 deadlocks (2 two-way, 1 three-way); beside them 3 of 3 ReadLockWaiters"
            " parked on the RW lock a sleeping WriteLockHolder holds",
        ),
    },
    "threads/jdk6-server-heritrix-rmi-monitor-contention-tda.log": {
        "thread_lock_contention": Pin(
            L,
            "30 of 42 ToeThreads BLOCKED on the FrontierScheduler monitor held by a RUNNABLE"
            " ToeThread: contention, in a single dump",
        ),
    },
    "threads/jdk6-client-vm-multiple-dumps-tda.log": {
        "thread_lock_contention": Pin(R, "3 dumps 5 s apart, no thread waits for a lock"),
    },
    "threads/jrockit-jdk14-dump-tda-fork.txt": {
        "thread_lock_contention": Pin(
            R, "2 of 4 JMS.TimerClientPool threads wait for the thread manager: a handoff"
        ),
    },
    # --- groups --------------------------------------------------------------------------
    "group:rhel-workstation-insights": {
        "time_wait_storm": Pin(R, "3 TIME-WAIT beside 7 ESTAB"),
        "accept_queue_overflow": Pin(N, "two listings of one moment, LISTEN Recv-Q 0, no counter"),
        "heartbeat_storm": Pin(N, "7 ESTAB in two listings of one moment, no series"),
    },
    "group:centos77-jc": {
        "time_wait_storm": Pin(R, "netstat: 3 ESTABLISHED, no TIME_WAIT"),
        "accept_queue_overflow": Pin(N, "one listing, 4 LISTEN Recv-Q 0, no counter"),
        "slow_start_after_idle": Pin(N, "tcp_slow_start_after_idle = 1 but no ss -ti cwnd"),
    },
    "group:ubuntu1804-jc": {
        "time_wait_storm": Pin(R, "ss -a: no TIME-WAIT row, no ESTAB tcp socket"),
        "accept_queue_overflow": Pin(N, "listings of one moment, LISTEN Recv-Q 0, no counter"),
    },
    "group:centos7-kvm-nmon": {
        "heartbeat_storm": Pin(N, "a 60 s CPU wave in both runs, no connection count"),
        "cpu_saturation": Pin(R, "user+sys peaks at 10 % on 2 vCPUs"),
        "memory_pressure": Pin(R, "78 % available, no swap"),
    },
}

# gc_pauses ruled out on a log of which no pause was read: the numbers it gives are zeros.
# (jdk8-shenandoah-details-shutdown was one: now insufficient_data, see PINS.)
ZERO_PAUSE_RULED_OUT: dict[str, str] = {}


def _files() -> list[str]:
    if not CORPUS_DIR.is_dir():
        return []
    return [
        f"{folder}/{p.name}"
        for folder in FOLDERS
        if (CORPUS_DIR / folder).is_dir()
        for p in sorted((CORPUS_DIR / folder).iterdir())
        if p.is_file()
    ]


def _members(case: str) -> tuple[str, ...]:
    if case in GROUPS:
        return GROUPS[case]
    if case.startswith("folder:"):
        return (case.removeprefix("folder:"),)
    return (case,)


def _params(cases: Sequence[object]) -> list[object]:
    """The cases, or one case that skips with the reason when the corpus is absent."""
    return list(cases) or [pytest.param("", marks=pytest.mark.skip(reason=ABSENT))]


FILES = _files()
CASES = FILES + (list(GROUPS) + [f"folder:{f}" for f in FOLDERS] if FILES else [])


@functools.cache
def _analysis(case: str) -> tuple[tuple[Finding, ...], tuple[ParsedArtifact, ...]]:
    paths = [CORPUS_DIR / rel for rel in _members(case)]
    missing = [p for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"corpus file not available: {missing[0]}")
    findings, parsed = offline.analyze(paths, CONTEXT)
    return tuple(findings), tuple(parsed)


def _findings(case: str) -> dict[str, Finding]:
    return {f.id: f for f in _analysis(case)[0]}


def _where(case: str, finding: Finding) -> str:
    return f"{case}: {finding.id} {finding.verdict}: {finding.summary}"


@pytest.mark.parametrize("case", _params(CASES))
def test_every_checklist_id_runs(case: str) -> None:
    findings = _analysis(case)[0]
    assert sorted(f.id for f in findings) == sorted(registry.IDS)
    failed = [_where(case, f) for f in findings if "detector failed" in f.summary.lower()]
    assert not failed, failed
    for f in findings:
        assert f.summary.strip() and f.summary.rstrip().endswith("."), _where(case, f)
        # an unmeasured quantity in a sentence that needs it reads as nonsense
        assert not re.search(r"not shown: none|n/a/s\b|holds n/a", f.summary), _where(case, f)
        if f.verdict == "insufficient_data":
            assert f.missing and all(m.command for m in f.missing), _where(case, f)
        else:
            assert f.evidence, _where(case, f)


@pytest.mark.parametrize("case", _params(CASES))
def test_a_positive_verdict_rests_on_a_met_observation(case: str) -> None:
    for f in _analysis(case)[0]:
        if f.verdict in ("confirmed", "likely"):
            met = [e for e in f.evidence if e.met is True and not e.corroborates]
            assert met, _where(case, f)


# "(3 hosts judged)" / "(40 judged)" count entities, they are not the numbers meant here.
_JUDGED = re.compile(r"\(\d[\d,]* (?:[\w ]+\(s\) |[\w ]+ )?judged\)")


@pytest.mark.parametrize("case", _params(CASES))
def test_a_ruled_out_says_numbers(case: str) -> None:
    for f in _analysis(case)[0]:
        if f.verdict == "ruled_out":
            assert re.search(r"\d", _JUDGED.sub("", f.summary)), _where(case, f)


@pytest.mark.parametrize(
    "rel",
    _params(
        [
            pytest.param(
                rel,
            )
            for rel in FILES
        ]
    ),
)
def test_every_corpus_file_is_read(rel: str) -> None:
    parsed = _analysis(rel)[1]
    assert parsed and all(p.result.status != "failed" for p in parsed), [
        (p.name, p.result.kind, [d.message for d in p.result.diagnostics[:2]]) for p in parsed
    ]


def _pin_params() -> list[object]:
    if not FILES:
        return [pytest.param("", "", None, marks=pytest.mark.skip(reason=ABSENT))]
    params: list[object] = []
    for case, pins in PINS.items():
        for checklist_id, pin in pins.items():
            marks = (
                [pytest.mark.xfail(strict=True, reason=f"gives {pin.now} today; {pin.why}")]
                if pin.now
                else []
            )
            params.append(
                pytest.param(case, checklist_id, pin, marks=marks, id=f"{case}-{checklist_id}")
            )
    return params


@pytest.mark.parametrize(("case", "checklist_id", "pin"), _pin_params())
def test_pinned_verdict(case: str, checklist_id: str, pin: Pin) -> None:
    finding = _findings(case)[checklist_id]
    assert finding.verdict == pin.verdict, f"{pin.why} | {_where(case, finding)}"


def test_pins_name_corpus_files_and_checklist_ids() -> None:
    if not FILES:
        pytest.skip(ABSENT)
    for case, pins in PINS.items():
        assert case in GROUPS or case in FILES, case
        assert set(pins) <= set(registry.IDS), case
    assert all(rel in FILES for members in GROUPS.values() for rel in members)
    assert (CORPUS_DIR / "SOURCES.md").is_file()


@pytest.mark.parametrize(
    "rel",
    _params(
        [
            pytest.param(
                rel,
                marks=[pytest.mark.xfail(strict=True, reason=ZERO_PAUSE_RULED_OUT[rel])]
                if rel in ZERO_PAUSE_RULED_OUT
                else [],
            )
            for rel in FILES
            if rel.startswith("gc")
        ]
    ),
)
def test_gc_pauses_rules_out_only_on_pauses_it_read(rel: str) -> None:
    finding = _findings(rel)["gc_pauses"]
    if finding.verdict == "ruled_out":
        assert not re.search(r"\bover 0 pauses\b", finding.summary), _where(rel, finding)
