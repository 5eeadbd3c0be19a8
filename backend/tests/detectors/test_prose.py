"""The checklist's prose never reads "n/a": run every rule over each real capture alone (the
shared corpus when present, and the fixtures) and read every summary, explanation and
evidence line. A quantity a capture lacks leaves its clause out ([[...]] in the templates) or
picks another wording (an evidence item's ``when``); it never prints as "n/a". A count of one
takes the singular ("1 host judged", never "1 hosts" or "1 host(s)"), and so does a verb whose
subject is that one ("1 of its 4 threads was busy", never "were"). No text names a checklist item
by its id, nor the host twice in one sentence."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from rootline.detectors import engine, registry
from rootline.detectors.data import MemoryIncidentData
from tests.detectors.runtime_incident import CORPUS, FIXTURES, parsed

SKIPPED_SUFFIXES = {".md", ".sh", ".py"}
# What a dropped clause must not leave behind: doubled spaces, a space before a comma or
# semicolon, empty parentheses (accept() and the like aside), a paragraph ending on a space.
LEFTOVERS = re.compile(r"  | [,;]|(?<!\w)\(\)|[,;]\.| $", re.MULTILINE)
# A count of one with a plural noun ("1 hosts judged", "1 ESTABLISHED connections") or a
# "(s)" left to the reader: a template writes {n:count host} instead (engine.noun). A number
# in a longer one (0.1, 21, 1,000) or a unit (1 s, 1 ms) is none of it.
ONE_PLURAL = re.compile(
    r"(?<![\d.,/+-])1 (?:[A-Z][\w+/-]* )?"
    r"(?!(?:is|was|has|does|its|this|thus|plus|as|us|always|series|ms|s)\b)[a-z][a-z-]*(?<!s)s\b"
    r"|\w\(s\)"
)
# A count of one as the subject of a plural verb: "1 of its 4 threads were busy", "1 of this
# host's listed connections are", "1 connection were" (a template writes {n:agree was|were}).
ONE_PLURAL_VERB = re.compile(
    r"(?<![\d.,/+-])1 (?:of (?:[\w'+./-]+ ){1,6}?(?:\([^()]*\) )?|[a-z][\w-]* )(?:were|are|have)\b"
)


# The host named twice in one sentence ("on host h1: TIME-WAIT peaked at 0 sockets on host h1"):
# the summary names the entity, its evidence does not again. Every capture is read as host h1.
SENTENCE_END = re.compile(r"(?<=[\w)])\. (?=[A-Z])")
HOST_TWICE = re.compile(r"\bh1\b.*\bh1\b")

# A checklist id in a reader's text ("see single_connection_bottleneck"): a template writes
# {title.single_connection_bottleneck}, the title the reader sees on that item's card.
CHECKLIST_ID = re.compile(r"(?<![\w.])(?:" + "|".join(sorted(registry.checklists())) + r")(?!\w)")


def _bad_prose(text: str) -> str | None:
    """What is wrong with one text of a finding, or None."""
    if "n/a" in text:
        return "n/a"
    if match := CHECKLIST_ID.search(text):
        return f"checklist id {match[0]!r}"
    if LEFTOVERS.search(text):
        return "leftover"
    if match := ONE_PLURAL.search(text) or ONE_PLURAL_VERB.search(text):
        return repr(match[0])
    return None


def _captures() -> list[Path]:
    roots = [root for root in (CORPUS, FIXTURES) if root.is_dir()]
    return [
        p
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix not in SKIPPED_SUFFIXES
    ]


def test_no_text_of_any_finding_reads_n_a_on_any_single_capture() -> None:
    read = 0
    bad: list[str] = []
    for path in _captures():
        try:
            artifact = parsed(path, "h1")
        except Exception:  # not a capture any parser reads (a README, a binary): not prose
            continue
        read += 1
        for finding in registry.run_all(MemoryIncidentData([artifact])):
            texts = [("summary", finding.summary), ("explanation", finding.explanation)]
            texts += [("evidence", e.summary) for e in finding.evidence]
            texts += [("remedy", r) for r in finding.remedies]
            for where, text in texts:
                if wrong := _bad_prose(text):
                    bad.append(f"{path.name}: {finding.id} {where} {wrong}: {text[:200]}")
                for sentence in SENTENCE_END.split(text):
                    if HOST_TWICE.search(sentence):
                        bad.append(f"{path.name}: {finding.id} {where} host twice: {sentence}")
    assert read >= 20  # the fixtures alone hold more than that
    assert not bad, "\n".join(bad[:20])


def test_every_template_agrees_with_a_count_of_one() -> None:
    # The corpus does not hold every count at one: render each rule's texts with every
    # quantity and threshold it names at 1, and read them as above.
    bad: list[str] = []
    for checklist_id, item in registry.checklists().items():
        rule = item.rule
        texts = [
            rule.explanation,
            *(e.summary for e in rule.evidence),
            *(r.text for r in rule.remedies),
        ]
        texts += [t for t in rule.summary.model_dump().values() if t]
        for template in texts:
            names = engine._fields(template) - {"t", "title"}
            context: dict[str, object] = {name: 1 for name in names}
            context["t"] = SimpleNamespace(**{name: 1 for name in rule.thresholds})
            context["title"] = engine._Titles()
            text = engine.render(template, context)
            match = ONE_PLURAL_VERB.search(text)
            if match:
                bad.append(f"{checklist_id} {match[0]!r}: {text[:200]}")
    assert not bad, "\n".join(bad)
