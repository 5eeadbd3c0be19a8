"""The scenario x checklist-id matrix over every recorded variation (lab/fixtures).

Each scenario folder holds a ``captures.toml`` manifest: one entry per capture (a folder of
collector bundles) with its role (failure, contrast, healthy), what it varies (RTT, buffer
and pool sizes, connection counts, congestion control, capture length...), the numbers it
shows, and the checklist ids that must come out ``confirmed``. The matrix holds when:

- every failure capture gets its scenario's cause ``confirmed``, whatever the variation;
  where the recording cannot show the whole mechanism (a lab process that saturates the
  2-vCPU machine by design, a wave too light to cost CPU), its manifest lists the cause
  under ``likely`` with the reason in ``why``, and the verdict must be at least likely;
- no capture gets a ``confirmed`` its manifest does not list (``may_confirm`` names the
  rare second cause that is really there, with the reason in ``why``);
- contrast and healthy captures get no ``likely`` beyond ``may_likely`` (with its reason);
- every ``likely`` anywhere rests on at least one observation past its named threshold;
- every ``ruled_out`` says its numbers.

``python -m tests.detectors.test_lab_scenarios`` prints the matrix.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from rootline.detectors.base import Finding
from rootline.offline import analyze
from rootline.parsers.base import ParseContext
from tests.detectors.conn_incident import LAB_FIXTURES
from tests.detectors.net_incident import T0

ROLES = ("failure", "contrast", "healthy")


@dataclass(frozen=True)
class Capture:
    scenario: str
    name: str
    role: str
    varies: str
    shows: str
    why: str
    confirmed: frozenset[str]
    likely: frozenset[str]
    may_confirm: frozenset[str]
    may_likely: frozenset[str]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return LAB_FIXTURES / self.scenario / self.name

    @property
    def label(self) -> str:
        return f"{self.scenario}/{self.name}"


def manifests() -> list[Path]:
    return sorted(LAB_FIXTURES.glob("*/captures.toml")) if LAB_FIXTURES.is_dir() else []


def captures() -> list[Capture]:
    out = []
    for path in manifests():
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
        for entry in manifest.get("capture", []):
            out.append(
                Capture(
                    scenario=path.parent.name,
                    name=entry["name"],
                    role=entry["role"],
                    varies=entry.get("varies", ""),
                    shows=entry.get("shows", ""),
                    why=entry.get("why", ""),
                    confirmed=frozenset(entry.get("confirmed", [])),
                    likely=frozenset(entry.get("likely", [])),
                    may_confirm=frozenset(entry.get("may_confirm", [])),
                    may_likely=frozenset(entry.get("may_likely", [])),
                    env=dict(entry.get("env", {})),
                )
            )
    return out


@cache
def findings_of(folder: Path) -> dict[str, Finding]:
    findings, parsed = analyze([folder], ParseContext.for_zone("UTC", default_time_ms=T0))
    assert parsed, f"nothing parsed in {folder}"
    return {f.id: f for f in findings}


def test_every_capture_folder_is_in_a_manifest() -> None:
    listed = {c.folder.resolve() for c in captures()}
    on_disk = {
        p.parent.resolve()
        for p in LAB_FIXTURES.glob("*/*/*.tar.gz")
        if not p.parent.name.startswith(".")
    }
    assert on_disk <= listed, f"captures without a manifest entry: {sorted(on_disk - listed)}"


@pytest.mark.parametrize("capture", captures(), ids=lambda c: c.label)
def test_manifest_entry_is_complete(capture: Capture) -> None:
    assert capture.role in ROLES
    assert capture.folder.is_dir(), capture.folder
    assert capture.varies and capture.shows, "say what varies and what the capture shows"
    if capture.role == "failure":
        assert capture.confirmed or capture.likely, "a failure capture names its cause"
        if capture.likely:
            assert capture.why, "say why the capture shows its cause only in part"
    else:
        assert not capture.confirmed and not capture.likely


@pytest.mark.parametrize("capture", captures(), ids=lambda c: c.label)
def test_verdicts(capture: Capture) -> None:
    findings = findings_of(capture.folder)
    confirmed = {i for i, f in findings.items() if f.verdict == "confirmed"}
    assert capture.confirmed <= confirmed, {
        i: findings[i].summary for i in capture.confirmed if i in findings
    }
    unexpected = confirmed - capture.confirmed - capture.may_confirm - capture.likely
    assert not unexpected, {i: findings[i].summary for i in unexpected}
    at_least_likely = {i for i, f in findings.items() if f.verdict in ("confirmed", "likely")}
    assert capture.likely <= at_least_likely, {
        i: findings[i].summary for i in capture.likely if i in findings
    }
    for finding in findings.values():
        if finding.verdict == "likely":
            assert any(e.met for e in finding.evidence), f"{finding.id}: likely on no threshold"
        if finding.verdict == "ruled_out":
            assert re.search(r"\d", finding.summary), f"{finding.id} ruled out without numbers"
    if capture.role != "failure":
        flagged = {
            i: f.summary
            for i, f in findings.items()
            if f.verdict == "likely" and i not in capture.may_likely
        }
        assert not flagged


def matrix() -> str:
    """Every capture x checklist id, one letter per verdict (C L . ? and x for explained)."""
    from rootline.detectors.registry import IDS

    letters = {"confirmed": "C", "likely": "L", "ruled_out": ".", "insufficient_data": "?"}
    short = [i[:4] for i in IDS]
    lines = [f"{'capture':46} {'role':9} " + " ".join(f"{s:4}" for s in short) + "  ok"]
    for capture in captures():
        if not capture.folder.is_dir():
            lines.append(f"{capture.label:46} {capture.role:9} (not recorded yet)")
            continue
        findings = findings_of(capture.folder)
        cells = []
        for i in IDS:
            f = findings.get(i)
            letter = "-" if f is None else "x" if f.explained_by else letters[f.verdict]
            cells.append(f"{letter:4}")
        confirmed = {i for i, f in findings.items() if f.verdict == "confirmed"}
        flagged = {i for i, f in findings.items() if f.verdict in ("confirmed", "likely")}
        likely = {i for i, f in findings.items() if f.verdict == "likely"}
        ok = (
            capture.confirmed <= confirmed
            and capture.likely <= flagged
            and not (confirmed - capture.confirmed - capture.may_confirm - capture.likely)
            and (capture.role == "failure" or not (likely - capture.may_likely))
        )
        lines.append(
            f"{capture.label:46} {capture.role:9} " + " ".join(cells) + ("  ok" if ok else "  FAIL")
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(matrix())
