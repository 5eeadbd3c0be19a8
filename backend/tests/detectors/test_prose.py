"""The checklist's prose never reads "n/a": run every rule over each real capture alone (the
shared corpus when present, and the fixtures) and read every summary, explanation and
evidence line. A quantity a capture lacks leaves its clause out ([[...]] in the templates) or
picks another wording (an evidence item's ``when``); it never prints as "n/a". A count of one
takes the singular ("1 host judged", never "1 hosts" or "1 host(s)")."""

from __future__ import annotations

import re
from pathlib import Path

from rootline.detectors import registry
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
            for where, text in texts:
                if "n/a" in text:
                    bad.append(f"{path.name}: {finding.id} {where}: {text[:200]}")
                elif LEFTOVERS.search(text):
                    bad.append(f"{path.name}: {finding.id} {where} leftover: {text[:200]}")
                elif match := ONE_PLURAL.search(text):
                    bad.append(f"{path.name}: {finding.id} {where} {match[0]!r}: {text[:200]}")
    assert read >= 20  # the fixtures alone hold more than that
    assert not bad, "\n".join(bad[:20])
