"""The draft's root cause when the cause may be a symptom of what was not captured."""

from __future__ import annotations

from typing import Any

from rootline.checklist.schemas import EvidenceRead, FindingRead
from rootline.postmortems.draft import DraftInput, draft_sections

NETWORK = ("single_connection_bottleneck", "small_send_buffer", "receiver_not_reading")
TITLES = {
    "threadpool_exhaustion": "Thread pool exhaustion",
    "single_connection_bottleneck": "One long connection carries the load",
    "small_send_buffer": "Send buffer smaller than the bandwidth-delay product",
    "receiver_not_reading": "Receiver not reading fast enough",
    "gc_pauses": "Long GC pauses",
}


def draft_input(**fields: Any) -> DraftInput:
    """A draft's input: a one-file incident of no named host, titled "t", unless said."""
    base: dict[str, Any] = {
        "title": "t",
        "summary": "",
        "timezone": "UTC",
        "window": (0, 1),
        "hosts": [],
        "artifact_count": 1,
    }
    return DraftInput(**{**base, **fields})


def finding(id_: str, verdict: str, summary: str = "") -> FindingRead:
    return FindingRead(
        id=id_,
        title=TITLES[id_],
        verdict=verdict,
        effective_verdict=verdict,
        summary=summary or f"{id_} is {verdict}",
        evidence=[],
        explanation="",
        remedies=[],
        missing=[],
        parameters={},
        references=[],
        explained_by=[],
        entity="pool DubboServerHandler" if id_ == "threadpool_exhaustion" else "",
        review=None,
        computed_at_ms=0,
    )


def evidence(summary: str, from_ms: int, to_ms: int) -> EvidenceRead:
    """An observation past its threshold over ``from_ms`` .. ``to_ms``."""
    return EvidenceRead(
        summary=summary,
        observed=None,
        threshold=None,
        unit="",
        from_ms=from_ms,
        to_ms=to_ms,
        series=None,
        labels={},
        event_kind=None,
        artifact=None,
        host=None,
        met=True,
        threshold_name=None,
        symptom=None,
        corroborates=False,
        operator=None,
    )


def sections(network_verdict: str) -> dict[str, str]:
    findings = [finding("threadpool_exhaustion", "confirmed", "The pool ran full.")]
    findings += [finding(id_, network_verdict) for id_ in NETWORK]
    draft = draft_input(
        title="Provider slow",
        window=(0, 60_000),
        hosts=["provider-1"],
        artifact_count=2,
        findings=findings,
    )
    return draft_sections(draft)


def test_a_full_pool_with_the_network_not_captured_may_be_a_symptom() -> None:
    drafted = sections("insufficient_data")
    assert (
        "Root cause: **Thread pool exhaustion** (pool DubboServerHandler), possibly a symptom"
        " of the network path, which could not be judged." in drafted["summary"]
    )
    causes = drafted["root_causes"]
    assert "**Possibly a symptom.** A full pool is often a symptom of the network path" in causes
    assert (
        "Not judged for lack of data: One long connection carries the load, Send buffer"
        " smaller than the bandwidth-delay product, Receiver not reading fast enough." in causes
    )
    assert "`ss -tinm` on both sides during the jam" in causes and "would decide." in causes
    # Said once, before the mechanism, right under the cause.
    assert causes.index("The pool ran full.") < causes.index("Possibly a symptom")
    assert causes.count("Possibly a symptom") == 1


def test_a_full_pool_with_the_network_ruled_out_is_the_root_cause_plainly() -> None:
    drafted = sections("ruled_out")
    assert "Root cause: **Thread pool exhaustion** (pool DubboServerHandler)." in drafted["summary"]
    assert "symptom" not in drafted["summary"] + drafted["root_causes"]


def test_a_network_cause_at_work_is_named_not_hedged_over() -> None:
    """With the single connection likely, the draft lists it as contributing; no hedge."""
    drafted = draft_sections(
        draft_input(
            findings=[
                finding("threadpool_exhaustion", "confirmed"),
                finding("single_connection_bottleneck", "likely"),
                finding("small_send_buffer", "insufficient_data"),
            ],
        )
    )
    assert "symptom" not in drafted["summary"] + drafted["root_causes"]
    assert "One long connection carries the load" in drafted["contributing_factors"]


def test_the_summary_counts_in_words_singular_and_plural() -> None:
    plural = sections("ruled_out")["summary"]
    assert "read from 2 artifacts of provider-1." in plural
    assert "3 other causes were ruled out with numbers" in plural
    single = draft_sections(
        draft_input(
            hosts=["h"],
            findings=[
                finding("threadpool_exhaustion", "confirmed"),
                finding("gc_pauses", "ruled_out"),
            ],
        )
    )["summary"]
    assert "read from 1 artifact of h." in single
    assert "1 other cause was ruled out with numbers" in single
    assert "(s)" not in plural + single


def test_a_finding_explained_by_another_says_so_once() -> None:
    cause = finding("gc_pauses", "confirmed", "Long pauses.")
    explained = finding(
        "threadpool_exhaustion",
        "ruled_out",
        'Explained by "Long GC pauses": what this item saw is that cause\'s symptom, not a second'
        " cause. The pool ran full.",
    )
    explained.explained_by = ["gc_pauses"]
    draft = draft_input(
        title="Provider slow",
        window=(0, 60_000),
        hosts=["provider-1"],
        findings=[cause, explained],
    )
    ruled_out = draft_sections(draft)["ruled_out"]
    assert ruled_out.count("Explained by") == 1, ruled_out
    assert "gc\\_pauses" not in ruled_out and "gc_pauses" not in ruled_out


def test_the_first_anomaly_names_the_entity_its_evidence_leaves_to_the_summary() -> None:
    def timeline(verdict: str) -> str:
        pool = finding("threadpool_exhaustion", verdict, "The pool ran full on pool X.")
        pool.evidence = [evidence("active 200 of max 200 for 30 s", 5_000, 35_000)]
        draft = draft_input(
            window=(0, 60_000),
            hosts=["h"],
            findings=[pool],
        )
        return draft_sections(draft)["timeline"]

    # A likely cause: the row says whose anomaly it is, and where.
    assert (
        "| First anomaly: active 200 of max 200 for 30 s (Thread pool exhaustion,"
        " pool DubboServerHandler) |" in timeline("likely")
    )
    # A confirmed cause that starts with it: one row, not two at the same instant.
    confirmed = timeline("confirmed")
    assert (
        "| First anomaly: **Thread pool exhaustion** starts on pool DubboServerHandler:"
        " active 200 of max 200 for 30 s |" in confirmed
    )
    assert confirmed.count("active 200") == 1 and confirmed.count("starts on") == 1


def test_action_items_come_from_the_remedies_of_confirmed_and_likely_causes() -> None:
    cause = finding("threadpool_exhaustion", "confirmed")
    cause.remedies = ["Raise maxThreads."]
    factor = finding("gc_pauses", "likely")
    factor.remedies = ["Size the heap."]
    judged_out = finding("small_send_buffer", "ruled_out")
    judged_out.remedies = ["Let autotuning size the buffers."]
    draft = draft_input(
        findings=[cause, factor, judged_out],
    )
    actions = draft_sections(draft)["action_items"]
    assert actions.startswith("Proposed from the remedies of the confirmed and likely causes")
    assert "- [ ] Raise maxThreads. _(from Thread pool exhaustion)_" in actions
    assert "- [ ] Size the heap. _(from Long GC pauses, contributing)_" in actions
    assert "autotuning" not in actions


def test_a_window_of_one_instant_is_called_one() -> None:
    draft = draft_input(
        window=(1_766_316_484_000, 1_766_316_484_000),
        findings=[],
    )
    drafted = draft_sections(draft)
    assert drafted["summary"].startswith("**t**: at one instant, 2025-12-21 11:28:04 (UTC)")
    assert "Capture: one instant" in drafted["timeline"]
    assert "Capture starts" not in drafted["timeline"]


def test_a_draft_without_named_hosts_says_so_plainly() -> None:
    summary = draft_sections(
        draft_input(
            findings=[finding("threadpool_exhaustion", "confirmed")],
        )
    )["summary"]
    assert "read from 1 artifact (no host named at upload)." in summary
    assert "of no named host" not in summary
