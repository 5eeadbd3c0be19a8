"""Verdicts resting on evidence whose time was assumed, not read from the file.

Some files carry no time of their own and the parser had to place them
(:func:`rootline.parsers.base.assumed_times`, the one list of such cases): an ``ss`` or
``netstat`` listing without a timestamp line sits at the upload time (``placed_at_upload``),
application-log lines with a time of day only sit on the upload's date
(``app_log.date_assumed``), a GC log with JVM uptimes only sits near the Unix epoch
(``unanchored``). The detectors read their points like any other; :func:`qualify`, run by the
engine on every finding, says what follows from it, in one place for every checklist id:

1. Every evidence item from such a file carries ``time_assumed`` (what was assumed); the
   symptom overlap (:mod:`rootline.detectors.symptom`) leaves those items out.
2. The evidence a verdict rests on: for ``confirmed`` / ``likely``, its observations at or
   past their threshold (proxies aside); for ``ruled_out``, every observation. Only items
   naming their artifact count (a quantity the detector could not trace to a file decides
   nothing here), and not those of a file holding no time at all (a sysctl dump's settings:
   they hold whenever the listing was taken). When every one of them comes from files of
   assumed time:

   - and the incident holds *dated* evidence (a file with its own clock) none of which lies
     within :data:`~rootline.detectors.symptom.OVERLAP_TOLERANCE_MS` of where those files
     were placed, the evidence cannot be shown to cover the period the dated files describe
     (an undated listing beside a GC log of 2022): a ``ruled_out`` becomes
     ``insufficient_data`` (nothing is ruled out for a window the evidence may not cover),
     and a ``confirmed`` / ``likely`` stays (the mechanism was seen) but says its time is
     unknown and apart from the dated captures. Both say what would decide;
   - otherwise (no dated evidence at all, as when listings taken during a live incident are
     uploaded at once; or dated files around the assumed instant) the verdict stays and its
     summary says the time was assumed, and how to give the file its own.

   When only part of it comes from such files (an undated listing beside dated counters),
   or an item of its own time was placed against them (a GC pause against a slow period
   read from log lines without dates: ``Evidence.against``), the verdict stays and the
   summary says which part was assumed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import PurePosixPath

from rootline.detectors.base import ArtifactTime, Finding, IncidentData, Missing
from rootline.detectors.quantities import fmt_duration_ms, iso_ms
from rootline.detectors.symptom import OVERLAP_TOLERANCE_MS
from rootline.parsers.base import (
    DATE_ASSUMED,
    PLACED_AT_UPLOAD,
    TIME_ASSUMPTION_FACTS,
    UNANCHORED,
)

# How to give a file its own time, by what was assumed.
_RECAPTURE = "while :; do date -Is; <the same command>; sleep 5; done > capture.txt"
_DECIDE = {
    PLACED_AT_UPLOAD: (
        "re-capture it with a timestamp line before each reading (`" + _RECAPTURE + "`), or"
        " give the file its capture time (a clock offset on it in the artifacts table)"
    ),
    DATE_ASSUMED: (
        "give the file its day (a clock offset on it in the artifacts table), or log with"
        " dates (a %d{yyyy-MM-dd HH:mm:ss.SSS} pattern)"
    ),
    UNANCHORED: "give the JVM start time (the JVM start field at upload, or --jvm-start)",
}
_DECIDE_OTHER = "give the file its time (a clock offset on it in the artifacts table)"
_COMMANDS = {
    PLACED_AT_UPLOAD: _RECAPTURE,
    DATE_ASSUMED: "logback: <pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger - %msg%n</pattern>",
    UNANCHORED: "ps -o lstart= -p <pid>   # the JVM's start time, for the JVM start field",
}


class _Files:
    """The incident's artifacts by name, to find the file an evidence item names."""

    def __init__(self, times: Sequence[ArtifactTime]) -> None:
        self._by_name: dict[str, list[ArtifactTime]] = defaultdict(list)
        for t in times:
            self._by_name[t.artifact].append(t)
        self.dated = [span for t in times if not t.assumed and (span := t.span) is not None]

    def assumed(self, artifact: str | None, host: str | None) -> ArtifactTime | None:
        """The file of assumed time ``artifact`` names, or None (its own time, or unknown).
        Two files of one name are told apart by host; still two, assumed only if both are."""
        found = self._named(artifact, host)
        return found[0] if found and all(t.assumed for t in found) else None

    def timeless(self, artifact: str | None, host: str | None) -> bool:
        """Whether the file holds no time at all (a sysctl dump: settings only), so that it
        neither places a verdict nor leaves it unplaced."""
        found = self._named(artifact, host)
        return bool(found) and all(t.start_ms is None and not t.assumed for t in found)

    def _named(self, artifact: str | None, host: str | None) -> list[ArtifactTime]:
        found = self._by_name.get(artifact or "", [])
        if len(found) > 1:
            found = [t for t in found if t.host == host] or found
        return found


def qualify(finding: Finding, data: IncidentData, missing: Sequence[Missing] = ()) -> Finding:
    """``finding`` with what the module says of evidence of assumed time (changed in place).
    ``missing``: the rule's own list of what to collect, for a verdict turned
    ``insufficient_data``."""
    times = data.artifact_times()
    if not any(t.assumed for t in times):
        return finding
    files = _Files(times)
    placed: dict[int, list[ArtifactTime]] = {}  # evidence index -> its files of assumed time
    placed_against: list[ArtifactTime] = []  # of files an item of its own time was placed against
    for index, item in enumerate(finding.evidence):
        own = files.assumed(item.artifact, item.host)
        others = [t for t in (files.assumed(a, item.host) for a in item.against) if t is not None]
        found = list({t.artifact: t for t in ([own] if own else []) + others}.values())
        if found:
            item.time_assumed = ", ".join(dict.fromkeys(w for t in found for w, _ in t.assumed))
            placed[index] = found
        if own is None and item.artifact:
            placed_against += others
    basis = [
        i
        for i, e in enumerate(finding.evidence)
        if e.artifact
        and not files.timeless(e.artifact, e.host)
        and (finding.verdict == "ruled_out" or (e.met and not e.corroborates))
    ]
    if finding.verdict == "insufficient_data" or not basis or any(i not in placed for i in basis):
        # Beside evidence of its own time: said, the verdict kept.
        partly = {t.artifact: t for i in basis if i in placed for t in placed[i]}
        against = {t.artifact: t for t in placed_against if t.artifact not in partly}
        if partly:
            sources = list(partly.values())
            finding.summary += (
                f" Part of what this rests on has an assumed time ({_said_all(sources)}):"
                f" {_decide_all(sources)}."
            )
        if against:
            sources = list(against.values())
            finding.summary += (
                f" Part of it was placed against files whose time was assumed"
                f" ({_said_all(sources)}), so where it falls against them is a guess:"
                f" {_decide_all(sources)}."
            )
        return finding
    sources = list({t.artifact: t for i in basis for t in placed[i]}.values())
    spans = [span for t in sources if (span := t.span) is not None]
    apart = bool(files.dated) and not any(
        start - OVERLAP_TOLERANCE_MS <= dated_end and end + OVERLAP_TOLERANCE_MS >= dated_start
        for start, end in spans
        for dated_start, dated_end in files.dated
    )
    said = _said_all(sources)
    decide = _decide_all(sources)
    # Uptimes counted from the epoch lie decades before anything: no gap worth stating.
    placed_spans = [] if any(w == UNANCHORED for t in sources for w, _ in t.assumed) else spans
    where = _apart(files.dated, placed_spans) if apart else ""
    if finding.verdict == "ruled_out" and apart:
        finding.verdict = "insufficient_data"
        finding.summary = (
            f"Not ruled out: what this rests on comes only from files whose time is not"
            f" known ({said}), {where}, so it cannot rule this cause out for the time those"
            f" captures cover. What it shows, wherever it was taken: {finding.summary} To"
            f" decide, {decide}."
        )
        finding.missing = [_missing(t) for t in sources[:2]] + list(missing)
    elif apart:
        finding.summary += (
            f" Its time is not known ({said}), {where}, so whether this was at work then is"
            f" unknown: {decide}."
        )
    else:
        finding.summary += f" Its time is assumed ({said}); to give it its own, {decide}."
    return finding


def _said_all(sources: Sequence[ArtifactTime]) -> str:
    said = "; ".join(_said(t) for t in sources[:2])
    if len(sources) > 2:
        said += f"; and {len(sources) - 2} more such files"
    return said


def _decide_all(sources: Sequence[ArtifactTime]) -> str:
    return "; ".join(dict.fromkeys(_decide(t) for t in sources))


def _name(t: ArtifactTime) -> str:
    return PurePosixPath(t.artifact.rsplit("!", 1)[-1]).name or t.artifact


def _said(t: ArtifactTime) -> str:
    """What was assumed of one file's times, in a clause."""
    parts = []
    for what, detail in t.assumed:
        if what == PLACED_AT_UPLOAD:
            parts.append(
                f"{_name(t)} holds no timestamp, so its time was taken as the upload time,"
                f" {iso_ms(t.start_ms)}"
            )
        elif what == DATE_ASSUMED:
            parts.append(
                f"{_name(t)} gives times of day without a date, put on {detail}, the upload's date"
            )
        elif what == UNANCHORED:
            parts.append(f"{_name(t)} holds JVM uptimes only, no clock time")
        else:
            parts.append(f"{_name(t)}: {TIME_ASSUMPTION_FACTS.get(what, what)}: {detail}")
    return "; ".join(parts)


def _decide(t: ArtifactTime) -> str:
    return "; ".join(_DECIDE.get(what, _DECIDE_OTHER) for what, _ in t.assumed[:1])


def _missing(t: ArtifactTime) -> Missing:
    what = t.assumed[0][0]
    return Missing(f"{_name(t)} with its own time", _COMMANDS.get(what, _RECAPTURE))


def _apart(dated: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> str:
    """Where the dated captures lie against the assumed placement, in a clause."""
    first = min(start for start, _ in dated)
    last = max(end for _, end in dated)
    span = iso_ms(first) if first == last else f"{iso_ms(first)} to {iso_ms(last)}"
    clause = f"apart from the captures that carry their own time ({span}"
    if spans:
        placed_at = min(start for start, _ in spans)
        gap = placed_at - last if placed_at > last else first - max(end for _, end in spans)
        if gap > 0:
            side = "after" if placed_at > last else "before"
            clause += f"; placed {_long_duration(gap)} {side} them"
    return clause + ")"


def _long_duration(duration_ms: float) -> str:
    """A gap that may be years long, in days past two of them, in hours past two of those.

    >>> _long_duration(90_000), _long_duration(3 * 3_600_000), _long_duration(400 * 86_400_000)
    ('90.0 s', '3.0 h', '400 days')
    """
    if duration_ms >= 2 * 86_400_000:
        return f"{duration_ms / 86_400_000:,.0f} days"
    if duration_ms >= 2 * 3_600_000:
        return f"{duration_ms / 3_600_000:.1f} h"
    return fmt_duration_ms(duration_ms)
