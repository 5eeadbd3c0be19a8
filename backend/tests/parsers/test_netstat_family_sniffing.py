"""Every netstat-family file (our captures and the corpus) goes to the right parser, and no
parser of the family claims another kind's file; every such file parses with data and
without failing; no input makes these parsers raise."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.parsers import netstat, netstat_s, nstat, proc_net, sysctl
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import SNIFF_BYTES, detect_kind, sniff_scores
from tests.conftest import CORPUS_DIR, FIXTURES_DIR, corpus_files

FAMILY = {m.KIND: m for m in (netstat, netstat_s, nstat, proc_net, sysctl)}


def _expected_kind(path: Path) -> str:
    """Kind of a corpus or fixture file, from its name (the test's ground truth only)."""
    name = path.name
    if name.startswith("netstat-s"):
        return "netstat_s"
    if name.startswith("netstat-"):
        return "netstat"
    if name.startswith("nstat-"):
        return "nstat"
    if name.startswith("proc-net-"):
        return "proc_net"
    if name.startswith(("sysctl-", "proc-sys-")):
        return "sysctl"
    raise AssertionError(f"no expected kind for {name}")


FAMILY_FILES = [
    p for kind in FAMILY for p in sorted((FIXTURES_DIR / kind).glob("*.txt"))
] + corpus_files("netstat")
OTHER_FILES = [
    p
    for folder in sorted(FIXTURES_DIR.iterdir())
    if folder.is_dir() and folder.name not in FAMILY
    for p in sorted(folder.rglob("*"))
    if p.is_file() and p.suffix not in (".md", ".java", ".sh", ".py")
] + [p for sub in ("ss", "gc", "nmon", "threads") for p in corpus_files(sub)]


def _head(path: Path) -> str:
    return path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_every_corpus_folder_file_is_covered() -> None:
    if not CORPUS_DIR.is_dir():
        pytest.skip("corpus absent")
    assert len(corpus_files("netstat")) == 18


@pytest.mark.parametrize("path", FAMILY_FILES, ids=_id)
def test_detect_kind_picks_the_right_family_parser(path: Path) -> None:
    expected = _expected_kind(path)
    head = _head(path)
    assert FAMILY[expected].sniff(head) >= 0.8
    assert detect_kind(head) == expected, sniff_scores(head)


@pytest.mark.parametrize("path", FAMILY_FILES, ids=_id)
def test_only_one_family_parser_claims_a_family_file(path: Path) -> None:
    head = _head(path)
    expected = _expected_kind(path)
    for kind, module in FAMILY.items():
        if kind != expected:
            assert module.sniff(head) < 0.5, kind


@pytest.mark.parametrize("path", FAMILY_FILES, ids=_id)
def test_family_file_parses_with_data_and_no_diagnostics(path: Path) -> None:
    module = FAMILY[_expected_kind(path)]
    result = module.parse(path.read_text(), ParseContext(default_time_ms=1_000))
    assert result.status == "parsed", result.diagnostics[:5]
    assert result.series or result.facts


@pytest.mark.parametrize("path", OTHER_FILES, ids=_id)
def test_family_sniffers_do_not_claim_other_kinds(path: Path) -> None:
    head = _head(path)
    for kind, module in FAMILY.items():
        assert module.sniff(head) < 0.5, kind


@pytest.mark.parametrize("module", FAMILY.values(), ids=FAMILY.keys())
@settings(max_examples=150, deadline=None)
@given(text=st.text())
def test_parse_never_raises_on_any_text(module: ModuleType, text: str) -> None:
    assert isinstance(module.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= module.sniff(text) <= 1.0


GARBAGE = [
    "",
    "   ",
    "\x00\x01",
    "=== not a time ===",
    "tcp 0",
    "Ip: 1 2",
    "#kernel x",
    "a = b = c",
    "💥",
]


@pytest.mark.parametrize("path", FAMILY_FILES, ids=_id)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_parse_survives_truncation_and_garbage(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = path.read_text().splitlines()
    lines = lines[: rng.randint(0, len(lines))]
    for _ in range(rng.randint(1, 5)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(GARBAGE))
    text = "\n".join(lines)
    if rng.random() < 0.5:
        text = text[: rng.randint(0, len(text))]
    result = FAMILY[_expected_kind(path)].parse(text, ParseContext())
    assert isinstance(result, ParseResult)
