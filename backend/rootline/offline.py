"""Reading artifacts from files, folders, bundles and compressed files without a server
(``parse``, ``analyze``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from rootline import bundles
from rootline.detectors import registry as detectors
from rootline.detectors.base import Finding
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers import registry
from rootline.parsers.base import Fact, ParseContext, ParseResult


def expand_paths(paths: Iterable[Path]) -> Iterator[Path]:
    """Files as given, and every file below a folder, in name order."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.is_file())
        else:
            yield path


def parse_path(path: Path, context: ParseContext, kind: str | None) -> list[ParsedArtifact]:
    """Parse one file; an archive or a compressed file gives one result per member
    (``bundle!member``, nested ones ``bundle!member!inner``), opened exactly as the
    server's parse worker opens them (``bundles.open_nested``)."""
    return _parse_data(path.read_bytes(), str(path), path.name, context, kind, depth=0)


def _parse_data(
    data: bytes, shown: str, name: str, context: ParseContext, kind: str | None, depth: int
) -> list[ParsedArtifact]:
    bundle = bundles.open_nested(data, name, depth)
    if bundle is None:
        named = replace(context, filename=name.replace("\\", "/").rsplit("/", 1)[-1] or None)
        result = registry.parse_bytes(data, named, kind=kind)
        return [ParsedArtifact(shown, context.host or result.host, result, context.default_time_ms)]
    results: list[ParsedArtifact] = []
    for member in bundle.members:
        # As the worker records a member: the host given for the bundle, else the one its
        # path in the bundle names.
        member_context = replace(context, host=context.host or member.host)
        results += _parse_data(
            member.data,
            f"{shown}!{member.path}",
            member.path,
            member_context,
            bundle.member_kind(kind),
            depth + 1,
        )
    # A bundle is listed only when it has something to say (a clean one is its members).
    messages = bundle.messages()
    if messages or not bundle.members:
        report = ParseResult(kind="bundle")
        for message in messages:
            report.diagnose(0, message)
        if not bundle.members:
            report.diagnose(0, "bundle holds no readable member")
        else:
            # What was kept of it (a truncated .gz's prefix) is read: partial, as the
            # server says, not failed.
            report.facts.append(Fact("bundle.members", str(len(bundle.members))))
        results.insert(0, ParsedArtifact(shown, context.host, report))
    return results


def analyze(
    paths: Iterable[Path], context: ParseContext
) -> tuple[list[Finding], list[ParsedArtifact]]:
    """Every checklist finding over the artifacts read from ``paths``, and what was read."""
    parsed = [item for path in expand_paths(paths) for item in parse_path(path, context, None)]
    readable = [p for p in parsed if p.result.status != "failed"]
    return detectors.run_all(MemoryIncidentData(readable)), parsed
