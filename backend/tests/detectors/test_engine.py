"""The checklist engine: rule validation, the verdict ladder, templates, the differential
diagnosis, the rules version and the generated document."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rootline.detectors import engine, registry
from rootline.detectors.base import Anchor, Evidence, Finding, Measurement
from rootline.detectors.docs import render_markdown
from rootline.detectors.rule import Rule
from tests.detectors.net_incident import incident

REPO = Path(__file__).resolve().parents[3]

RULE = """
id = "toy"
title = "A toy cause"
entity = "connection"
inputs = ["ss"]
mechanism = "A queue that fills."
precedence = 40
explanation = "Queue {queue:bytes} against {t.queue_min:bytes}."
[[references]]
title = "nothing"
[thresholds.queue_min]
value = 1000
unit = "bytes"
why = "a queue past a kilobyte is a queue"
[thresholds.share_min]
value = 0.5
unit = "share"
why = "half of the snapshots at least"
[verdict]
judgeable = { all = [["queue", "present"]] }
confirmed = { all = [["queue", ">=", "queue_min"], ["share", ">=", "share_min"]] }
likely = { any = [["queue", ">=", "queue_min"], ["other", "==", true]] }
[[evidence]]
quantity = "queue"
compare = [">=", "queue_min"]
summary = "queue {queue:bytes} (threshold {t.queue_min:bytes})"
symptom = "sendq_full"
[[evidence]]
quantity = "share"
compare = [">=", "share_min"]
summary = "full in {share:share} of snapshots"
symptom = "sendq_full"
[summary]
confirmed = "{entity}: {met_evidence}."
likely = "{entity}: {met_evidence}; not shown: {unmet_evidence}."
ruled_out = "Nothing: {unmet_evidence} ({judged:count} judged)."
insufficient_data = "No queue captured."
[[missing]]
artifact = "ss"
command = "ss -tinm"
[[remedies]]
text = "Always."
[[remedies]]
when = { all = [["queue", ">=", 5000]] }
text = "Only for a big queue of {queue:bytes}."
"""


def toy(values: list[dict[str, Any]], rule_text: str = RULE) -> Finding:
    rule = Rule.model_validate(tomllib.loads(rule_text))
    measurements = [
        Measurement(f"conn {i}", f"conn:{i}", v, Anchor("tcp.conn.sendq.bytes", {}, 1, 2, "h"))
        for i, v in enumerate(values)
    ]
    module = SimpleNamespace(quantities=lambda data, params: measurements)
    return engine.judge(engine.Checklist(rule, module), incident())  # type: ignore[arg-type]


def test_the_ladder_and_the_templates() -> None:
    confirmed = toy([{"queue": 500, "share": 0.9}, {"queue": 8192, "share": 0.75}])
    assert confirmed.verdict == "confirmed" and confirmed.entity == "conn 1"
    assert (
        confirmed.summary == "conn 1: queue 8.0 KiB (threshold 1000 B); full in 75 % of snapshots."
    )
    assert confirmed.explanation == "Queue 8.0 KiB against 1000 B."
    assert confirmed.remedies == ["Always.", "Only for a big queue of 8.0 KiB."]
    assert [e.met for e in confirmed.evidence] == [True, True]
    assert confirmed.evidence[0].threshold_name == "queue_min"
    # how each observation meets its threshold, for the chips ("threshold > 0 deadlocks")
    assert [e.operator for e in confirmed.evidence] == [">=", ">="]

    likely = toy([{"queue": 2000, "share": 0.1}])
    assert likely.verdict == "likely"
    assert "not shown: full in 10 % of snapshots" in likely.summary
    assert likely.remedies == ["Always."]

    ruled_out = toy([{"queue": 10, "share": 0.1}])
    assert ruled_out.verdict == "ruled_out" and "(1 judged)" in ruled_out.summary

    missing = toy([{"share": 0.9}])
    assert missing.verdict == "insufficient_data" and missing.missing[0].command == "ss -tinm"


def test_a_likely_needs_an_observation_past_its_threshold() -> None:
    """The likely ladder holds through `other`, which no evidence item shows: not a finding."""
    finding = toy([{"queue": 10, "share": 0.1, "other": True}])
    assert finding.verdict == "ruled_out"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("value = 1000\n", ""), "value"),
        (
            ('["queue", ">=", "queue_min"], ["share"', '["queue", ">=", "queue_mn"], ["share"'),
            "queue_mn",
        ),
        (('compare = [">=", "share_min"]', 'compare = [">=", "no_such"]'), "no_such"),
        (('why = "half of the snapshots at least"', 'why = "x"'), "why"),
        (('entity = "connection"', 'entity = "galaxy"'), "entity"),
        (('command = "ss -tinm"', 'command = "ss"\nextra = 1'), "extra"),
    ],
)
def test_a_rule_that_does_not_validate_says_where(change: tuple[str, str], message: str) -> None:
    text = RULE.replace(*change, 1)
    assert text != RULE
    with pytest.raises(ValueError, match=message):
        Rule.model_validate(tomllib.loads(text))


def test_every_rule_file_validates_and_names_its_module() -> None:
    for checklist_id, item in registry.checklists().items():
        assert item.rule.id == checklist_id
        assert item.rule.references and item.rule.missing and item.rule.remedies


def _finding(checklist_id: str, verdict: str, *symptoms: str) -> Finding:
    return Finding(
        id=checklist_id,
        title=checklist_id,
        verdict=verdict,  # type: ignore[arg-type]
        summary="Seen.",
        evidence=[Evidence(summary=s, met=True, symptom=s) for s in symptoms],
    )


def test_one_symptom_one_cause() -> None:
    rules = registry.checklists()
    cause = _finding(
        "small_send_buffer", "confirmed", "sendq_full@conn:a|b", "sndbuf_limited@conn:a|b"
    )
    # what its mechanism accounts for, over every connection it confirmed
    cause.explains = ["sendq_full@conn:a|b", "sendq_full@conn:e|f"]
    elsewhere = _finding("single_connection_bottleneck", "likely", "sendq_full@conn:e|f")
    echo = _finding("single_connection_bottleneck", "likely", "sendq_full@conn:a|b")
    own = _finding(
        "single_connection_bottleneck", "likely", "sendq_full@conn:a|b", "recvq_full@conn:a|b"
    )
    other_conn = _finding("single_connection_bottleneck", "likely", "sendq_full@conn:c|d")
    engine.diagnose([cause, echo, elsewhere], {k: c.rule for k, c in rules.items()})
    assert echo.verdict == "ruled_out" and echo.explained_by == ["small_send_buffer"]
    assert elsewhere.verdict == "ruled_out" and elsewhere.explained_by == ["small_send_buffer"]
    # Named by its title, as the checklist card names it, never by its id.
    assert echo.summary.startswith(
        'Explained by "Send buffer smaller than the bandwidth-delay product": what this item saw'
        " is that cause's symptom, not a second cause. Seen."
    )
    assert cause.verdict == "confirmed" and not cause.explained_by
    for standing in (own, other_conn):
        engine.diagnose([cause, standing], {k: c.rule for k, c in rules.items()})
        assert standing.verdict == "likely" and not standing.explained_by


def test_a_proxy_alone_neither_makes_a_likely_nor_keeps_a_finding_standing() -> None:
    text = RULE.replace(
        'summary = "full in {share:share} of snapshots"\nsymptom = "sendq_full"',
        'summary = "full in {share:share} of snapshots"\ncorroborates = true',
    )
    assert text != RULE
    # `share` is now a proxy: met, but a likely needs a primary observation past threshold
    assert toy([{"queue": 10, "share": 0.9, "other": True}], text).verdict == "ruled_out"
    rules = {k: c.rule for k, c in registry.checklists().items()}
    cause = _finding("small_send_buffer", "confirmed")
    cause.explains = ["sendq_full@conn:a|b"]
    finding = _finding("single_connection_bottleneck", "likely", "sendq_full@conn:a|b")
    finding.evidence.append(Evidence(summary="pool idle", met=True, corroborates=True))
    engine.diagnose([cause, finding], rules)
    assert finding.explained_by == ["small_send_buffer"]


def test_the_rules_version_follows_an_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(engine.rules_dir(), tmp_path / "rules")
    monkeypatch.setenv("ROOTLINE_RULES_DIR", str(tmp_path / "rules"))
    before = engine.rules_version()
    assert engine.rules_version() == before
    rule = tmp_path / "rules" / "small_send_buffer.toml"
    rule.write_text(rule.read_text().replace("value = 30.0", "value = 31.0", 1))
    assert engine.rules_version() != before
    assert (
        registry.checklists()["small_send_buffer"].rule.thresholds["sndbuf_limited_min_pct"].value
        == 31.0
    )


def test_the_generated_document_has_not_drifted() -> None:
    committed = (REPO / "docs" / "checklist.md").read_text(encoding="utf-8")
    assert committed == render_markdown(), "run `make docs` and commit docs/checklist.md"


def test_a_bracketed_clause_is_kept_only_when_all_it_names_was_measured() -> None:
    template = (
        "held {active:num} of {max:num}[[ (queue {queue:num} of {capacity:num})]];"
        "[[ {rejected:count} rejected;]] done at {t.limit:ms}"
    )
    t = SimpleNamespace(limit=1500.0)
    full = {"active": 3, "max": 4, "queue": 7, "capacity": 8, "rejected": 1200, "t": t}
    assert (
        engine.render(template, full) == "held 3 of 4 (queue 7 of 8); 1,200 rejected; done at 1.5 s"
    )
    some = {**full, "capacity": None, "rejected": float("nan")}
    assert engine.render(template, some) == "held 3 of 4; done at 1.5 s"
    # outside a clause an unmeasured value still reads n/a, and a clause must be closed
    assert engine.render("{x:num}[[ y]]", {"x": None}) == "n/a y"
    with pytest.raises(engine.RuleError):
        engine.render("a [[ {x}", {"x": 1})
    assert engine.render("A. [[B {x}.]] C.", {"x": None}) == "A. C."
    # a dropped clause at a paragraph's end or start leaves no space behind
    assert engine.render("A. [[B {x}.]]\n\n[[C {x}.]] D.", {"x": None}) == "A.\n\nD."


def test_a_count_with_its_noun_is_singular_for_one_and_plural_otherwise() -> None:
    template = "{judged:count host} judged; {lines:count rejection line}; {cpus:num logical CPU}"
    assert engine.render(template, {"judged": 1, "lines": 1, "cpus": 1.0}) == (
        "1 host judged; 1 rejection line; 1 logical CPU"
    )
    assert engine.render(template, {"judged": 0, "lines": 1200, "cpus": 2}) == (
        "0 hosts judged; 1,200 rejection lines; 2 logical CPUs"
    )
    assert engine.render("{n:count signal family}, {n:count pass}", {"n": 3}) == (
        "3 signal families, 3 passes"
    )
    assert engine.render("{n:count connection or host|connections or hosts}", {"n": 1}) == (
        "1 connection or host"
    )
    # in a clause, unmeasured: dropped like any other field
    assert engine.render("A[[, {n:count host}]].", {"n": None}) == "A."


def test_a_template_names_another_item_by_its_title() -> None:
    context = engine._context(registry.checklists()["cpu_saturation"].rule, None, {})
    text = engine.render("GC threads point to {title.gc_pauses}.", context)
    assert text == 'GC threads point to "Long GC pauses".'
    with pytest.raises(engine.RuleError, match="no checklist item 'gc_pause'"):
        engine.render("see {title.gc_pause}", context)
