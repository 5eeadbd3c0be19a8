"""``docs/checklist.md``: every checklist id, its mechanism, thresholds and references.

Generated from the rule files (``python -m rootline.detectors.docs > docs/checklist.md``, or
``make docs``); ``make test`` fails when the committed document drifts from the rules.
"""

from __future__ import annotations

import sys

from rootline.detectors import registry
from rootline.detectors.rule import Comparison, Group, Rule


def _condition(group: Group | None) -> str:
    if group is None:
        return "-"
    parts = []
    for item in group.all if group.all is not None else group.any or []:
        if isinstance(item, Comparison):
            operand = "" if item.operand is None else f" {item.operand}"
            parts.append(f"`{item.quantity} {item.operator}{operand}`")
        else:
            parts.append(f"({_condition(item)})")
    return (" and " if group.all is not None else " or ").join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rule_section(rule: Rule) -> str:
    lines = [
        f"## `{rule.id}`: {rule.title}",
        "",
        f"Judges each **{rule.entity.replace('_', ' ')}**; reads {', '.join(rule.inputs)}.",
        "",
        _cell(rule.mechanism),
        "",
        "| threshold | value | unit | why |",
        "|---|---|---|---|",
    ]
    for name, threshold in rule.thresholds.items():
        lines.append(
            f"| `{name}` | {threshold.value} | {threshold.unit} | {_cell(threshold.why)} |"
        )
    lines += [
        "",
        f"- **confirmed** when {_condition(rule.verdict.confirmed)}",
        f"- **likely** when {_condition(rule.verdict.likely)}, with at least one evidence item"
        " at or past its threshold",
        f"- **insufficient data** unless {_condition(rule.verdict.judgeable)}"
        if rule.verdict.judgeable
        else "- **insufficient data** when nothing it judges was captured",
        "- otherwise **ruled out**, with the numbers of the closest entity",
    ]
    if rule.explains:
        lines.append(
            f"- explains {', '.join(f'`{s}`' for s in rule.explains)} when confirmed"
            f" (precedence {rule.precedence})"
        )
    lines += ["", "References:", ""]
    for ref in rule.references:
        where = ref.url or ref.source or ""
        lines.append(f"- {ref.title}" + (f" ({where})" if where else ""))
    return "\n".join(lines) + "\n"


def render_markdown() -> str:
    """The whole document, in checklist order."""
    checklists = registry.checklists()
    head = [
        "# The checklist",
        "",
        "Generated from `backend/rootline/detectors/rules/*.toml` by"
        " `python -m rootline.detectors.docs`; do not edit by hand (`make test` checks it).",
        "A threshold change is one value in one rule file; findings stored by an older rules"
        " version are recomputed.",
        "",
        "Every id, whatever its rule: a verdict resting only on files whose time was assumed"
        " (an `ss` or `netstat` listing without a timestamp, placed at the upload time;"
        " log lines with a time of day only, put on the upload's date; a GC log with JVM"
        " uptimes only) says so. When the incident holds files with their own clock and none"
        " lies near where those files were placed, **ruled out** becomes **insufficient"
        " data** (the evidence cannot be shown to cover their time), and **confirmed** /"
        " **likely** say the time is unknown; either way the summary says how to give the"
        " file its time (`backend/rootline/detectors/assumed_time.py`).",
        "",
        "| id | title | judges |",
        "|---|---|---|",
    ]
    ids = [i for i in registry.IDS if i in checklists]
    head += [f"| `{i}` | {checklists[i].rule.title} | {checklists[i].rule.entity} |" for i in ids]
    return "\n".join(head) + "\n\n" + "\n".join(rule_section(checklists[i].rule) for i in ids)


if __name__ == "__main__":
    sys.stdout.write(render_markdown())
