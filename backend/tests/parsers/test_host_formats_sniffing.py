"""The network and host formats of issue 13 part 5 (/proc/net/tcp and dev, Windows and BSD
netstat, BSD sysctl): every fixture goes to its own parser and no other parser claims it
(>= 0.5); their sniffers claim no other fixture or corpus file; no input makes them raise."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import SNIFF_BYTES, detect_kind, sniff_scores
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

NEW_KINDS = [
    kind
    for kind in (
        "proc_net_tcp",
        "proc_net_dev",
        "netstat_windows",
        "netstat_s_windows",
        "netstat_bsd",
        "sysctl_bsd",
    )
    if kind in registry.PARSERS
]
MODULES: dict[str, ModuleType] = {kind: registry.PARSERS[kind] for kind in NEW_KINDS}  # type: ignore[misc]
_SKIPPED_SUFFIXES = {".md", ".sh", ".py", ".java", ".json"}


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix not in _SKIPPED_SUFFIXES)


OWN = [(kind, p) for kind in NEW_KINDS for p in _files(FIXTURES_DIR / kind)]
OTHERS = [
    p
    for folder in sorted(FIXTURES_DIR.iterdir())
    if folder.is_dir() and folder.name not in NEW_KINDS
    for p in _files(folder)
] + (_files(CORPUS_DIR) if CORPUS_DIR.is_dir() else [])


def _head(path: Path) -> str:
    return path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")


def test_every_new_kind_has_fixtures() -> None:
    assert len(NEW_KINDS) == 6
    for kind in NEW_KINDS:
        assert any(k == kind for k, _ in OWN), kind


@pytest.mark.parametrize(("kind", "path"), OWN, ids=[f"{k}/{p.name}" for k, p in OWN])
def test_fixture_goes_to_its_parser_and_no_other_claims_it(kind: str, path: Path) -> None:
    head = _head(path)
    scores = sniff_scores(head)
    assert detect_kind(head) == kind, scores
    assert scores[kind] >= 0.8
    assert [k for k, score in scores.items() if k != kind and score >= 0.5] == []


@pytest.mark.parametrize(("kind", "path"), OWN, ids=[f"{k}/{p.name}" for k, p in OWN])
def test_fixture_parses_without_diagnostics(kind: str, path: Path) -> None:
    result = registry.parse_bytes(path.read_bytes(), ParseContext(default_time_ms=1_000))
    assert (result.kind, result.status) == (kind, "parsed"), result.diagnostics[:3]
    assert result.series or result.facts


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_new_sniffers_do_not_claim_other_kinds(path: Path) -> None:
    head = _head(path)
    for kind, module in MODULES.items():
        assert module.sniff(head) < 0.5, kind


@pytest.mark.parametrize("kind", NEW_KINDS)
@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_parse_never_raises_on_any_text(kind: str, text: str) -> None:
    module = MODULES[kind]
    assert isinstance(module.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= module.sniff(text) <= 1.0


GARBAGE = ["", "   ", "\x00\x01", "=== not a time ===", "tcp 0", "  TCP  x", "a: b: c", "💥", "|"]


@pytest.mark.parametrize(("kind", "path"), OWN, ids=[f"{k}/{p.name}" for k, p in OWN])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_parse_survives_truncation_and_garbage(kind: str, path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = path.read_text(errors="replace").splitlines()
    lines = lines[: rng.randint(0, len(lines))]
    for _ in range(rng.randint(1, 5)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(GARBAGE))
    text = "\n".join(lines)
    if rng.random() < 0.5:
        text = text[: rng.randint(0, len(text))]
    result = MODULES[kind].parse(text, ParseContext())
    assert isinstance(result, ParseResult)
    assert result.status != "failed" or result.diagnostics
