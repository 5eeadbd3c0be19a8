"""Reading artifacts from files, folders and bundles without a server (``parse``, ``analyze``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from pathlib import Path

from rootline import bundles
from rootline.detectors import registry as detectors
from rootline.detectors.base import Finding
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult


def expand_paths(paths: Iterable[Path]) -> Iterator[Path]:
    """Files as given, and every file below a folder, in name order."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.is_file())
        else:
            yield path


def parse_path(path: Path, context: ParseContext, kind: str | None) -> list[ParsedArtifact]:
    """Parse one file; a bundle gives one result per member (``bundle!member``)."""
    data = path.read_bytes()
    if kind is None and bundles.bundle_format(data) is not None:
        bundle = bundles.unpack(data)
        results: list[ParsedArtifact] = []
        for member in bundle.members:
            member_context = ParseContext(
                timezone=context.timezone,
                default_time_ms=context.default_time_ms,
                host=member.host or context.host,
                jvm_start_ms=context.jvm_start_ms,
                filename=member.path.rsplit("/", 1)[-1] or None,
            )
            result = registry.parse_bytes(member.data, member_context)
            results.append(
                ParsedArtifact(f"{path}!{member.path}", member.host or result.host, result)
            )
        if bundle.refused or bundle.diagnostics or not bundle.members:
            report = ParseResult(kind="bundle")
            for message in bundle.diagnostics:
                report.diagnose(0, message)
            for refusal in bundle.refused:
                report.diagnose(0, f"{refusal.path}: refused: {refusal.reason}")
            if not bundle.members:
                report.diagnose(0, "bundle holds no readable member")
            results.insert(0, ParsedArtifact(str(path), None, report))
        return results
    result = registry.parse_bytes(data, dataclasses.replace(context, filename=path.name), kind=kind)
    return [ParsedArtifact(str(path), context.host or result.host, result)]


def analyze(
    paths: Iterable[Path], context: ParseContext
) -> tuple[list[Finding], list[ParsedArtifact]]:
    """Every checklist finding over the artifacts read from ``paths``, and what was read."""
    parsed = [item for path in expand_paths(paths) for item in parse_path(path, context, None)]
    readable = [p for p in parsed if p.result.status != "failed"]
    return detectors.run_all(MemoryIncidentData(readable)), parsed
