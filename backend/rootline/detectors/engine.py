"""The checklist engine: load and validate the rules, run their quantities, judge, render.

For each rule (``rules/<id>.toml``) the engine asks its module for measurements, one per
entity, and walks the verdict ladder on each: ``confirmed`` when the rule's confirmed group
holds, ``likely`` when its likely group holds *and* at least one evidence item is at or past
its named threshold (a hunch is not a finding), else ``ruled_out``; ``insufficient_data``
when no entity could be judged. The entity shown is the one with the strongest verdict, then
the largest ``rank`` quantities. Texts are the rule's templates, filled with the quantities
(``{name:bytes}``, ``{name:pct}`` ...; see :class:`_Formatter`), thresholds (``{t.name}``),
``{entity}``, ``{judged}`` (entities judged), ``{alike}`` (entities with the same verdict),
``{met_evidence}`` / ``{unmet_evidence}`` (the evidence items at or past their threshold,
and those short of it, joined) and ``{all_evidence}``, so a summary states exactly the
observations behind it. An ``insufficient_data`` text has ``{met_evidence}`` too, unmeasured
when nothing met (so a ``[[clause]]`` around it drops).

Then the differential diagnosis: each evidence item may name the symptom it observes
(``sendq_full``, ``recvq_full``, ``time_wait``...) on an entity. A finding whose every
observation past threshold is a symptom that a confirmed cause of higher precedence explains
(its rule lists the symptom under ``explains``, on the same entity) is not a second cause:
it is ruled out as such, says "explained by <its title>", links to it, and ranks below it.
A template names another item as ``{title.<id>}`` (its title in quotes), never by its id.

The rules version is a hash of the rule files and of the quantities code: findings carry it,
and those computed by another version are recomputed (:mod:`rootline.checklist.service`).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import string
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, cast

from rootline.detectors import assumed_time
from rootline.detectors import quantities as q
from rootline.detectors.base import (
    VERDICT_ORDER,
    Evidence,
    Finding,
    IncidentData,
    Measurement,
    Missing,
    Params,
    QuantitiesModule,
    Quantity,
    Verdict,
)
from rootline.detectors.rule import Comparison, EvidenceRule, Group, Rule

_CODE_DIR = Path(__file__).parent


def rules_dir() -> Path:
    """Where the rule files are: the package's ``rules/``, or ``ROOTLINE_RULES_DIR`` (a team
    that tunes its thresholds keeps its own copy; tests edit a copy)."""
    return Path(os.environ.get("ROOTLINE_RULES_DIR") or _CODE_DIR / "rules")


class RuleError(ValueError):
    """A rule file that does not validate, or disagrees with its quantities module."""


def load_rule(path: Path) -> Rule:
    try:
        return Rule.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise RuleError(f"{path.name}: {exc}") from exc


def _sources() -> list[Path]:
    return sorted(rules_dir().glob("*.toml")) + sorted(_CODE_DIR.glob("*.py"))


def rules_version() -> str:
    """sha256 (12 hex digits) of every rule file and every module of the detectors package.

    Re-hashed when a file's size or modification time changes, so an edited threshold is a
    new version at once (and the findings of the old one are recomputed).
    """
    signature = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in _sources())
    return _hash(signature)


@cache
def _hash(signature: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _, _ in signature:
        path = Path(name)
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# --- conditions ---------------------------------------------------------------------------


def _operand(value: Any, thresholds: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value in thresholds:
        return thresholds[value]
    return value


def compare(observed: Quantity, operator: str, operand: Any) -> bool | None:
    """``observed <operator> operand``; None when there is nothing to compare."""
    if operator == "present":
        return observed is not None
    if operator == "absent":
        return observed is None
    if observed is None:
        return None
    if isinstance(observed, float) and math.isnan(observed):
        return None
    try:
        if operator == "==":
            return bool(observed == operand)
        if operator == "!=":
            return bool(observed != operand)
        if operator == ">=":
            return bool(observed >= operand)
        if operator == ">":
            return bool(observed > operand)
        if operator == "<=":
            return bool(observed <= operand)
        if operator == "<":
            return bool(observed < operand)
    except TypeError:
        return None
    raise RuleError(f"unknown operator {operator}")  # pragma: no cover (schema forbids it)


def holds(
    group: Group | None, values: Mapping[str, Quantity], thresholds: Mapping[str, Any]
) -> bool:
    """Whether a condition group holds on one entity's quantities (an empty group holds)."""
    if group is None:
        return True
    results = []
    for condition in group.all if group.all is not None else group.any or []:
        if isinstance(condition, Comparison):
            result = compare(
                values.get(condition.quantity),
                condition.operator,
                _operand(condition.operand, thresholds),
            )
            results.append(bool(result))
        else:
            results.append(holds(condition, values, thresholds))
    return all(results) if group.all is not None else any(results)


# --- rendering ----------------------------------------------------------------------------


class _Formatter(string.Formatter):
    """``str.format`` with units people read at once.

    ``bytes`` (IEC), ``rate`` (bytes per second, IEC), ``bits`` (bit/s, SI), ``pct``
    (a percentage), ``share`` (a 0..1 fraction as a percentage), ``ms`` and ``s`` (durations),
    ``count`` (thousands separated), ``ratio`` (2 significant digits, ``x``), ``time``
    (an epoch-ms instant, UTC). An unmeasured value renders ``n/a``.

    ``count NOUN`` (or ``num NOUN``) is a number with its noun, singular for 1 and plural otherwise:
    ``{judged:count host}`` reads "1 host" or "3 hosts"; the last word of a phrase takes the
    plural (``{n:count ESTABLISHED connection}``), and an irregular one is given as
    ``singular|plural`` (``{n:count process|processes}``).

    ``agree SINGULAR|PLURAL`` is the word alone, in the number of the value, for a verb whose
    subject is a count: "{busy:num} of its {max:num thread} {busy:agree was|were} busy" reads
    "1 of its 4 threads was busy" and "3 of its 4 threads were busy".
    """

    def format_field(self, value: Any, format_spec: str) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "n/a"
        base, _, phrase = format_spec.partition(" ")
        if base == "agree":
            one, bar, many = phrase.partition("|")
            if not bar or isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"agree needs a number and singular|plural, not {format_spec!r}")
            return one if _SPECS["num"](float(value)) == "1" else many
        if phrase and base in ("count", "num"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                return f"{value} {phrase}"
            number = _SPECS[base](float(value))
            return f"{number} {noun(phrase, singular=number == '1')}"
        spec = _SPECS.get(format_spec)
        if spec is not None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return str(value)
            return spec(float(value))
        return str(super().format_field(value, format_spec))


_SPECS: dict[str, Callable[[float], str]] = {
    "bytes": q.fmt_bytes,
    "rate": lambda v: q.fmt_bytes(v) + "/s",
    "bits": q.format_bits_per_s,
    "pct": q.fmt_pct,
    "share": lambda v: q.fmt_pct(v * 100.0),
    "ms": q.fmt_duration_ms,
    "s": q.fmt_seconds,
    "count": q.fmt_count,
    "ratio": lambda v: f"{v:.2f}x" if abs(v) < 10 else f"{v:.0f}x",
    "time": q.iso_ms,
    "num": q.fmt_number,
}
_FORMATTER = _Formatter()


def noun(phrase: str, *, singular: bool) -> str:
    """``phrase`` (a singular noun phrase, or ``singular|plural``) in the number asked for.

    >>> noun("host", singular=False), noun("signal family", singular=False)
    ('hosts', 'signal families')
    >>> noun("process|processes", singular=True), noun("process|processes", singular=False)
    ('process', 'processes')
    """
    one, bar, many = phrase.partition("|")
    if bar:
        return one if singular else many
    if singular:
        return phrase
    head, _, last = phrase.rpartition(" ")
    if last.endswith("y") and last[-2:-1] not in ("a", "e", "o", "u"):
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def render(template: str, context: Mapping[str, Any]) -> str:
    """A rule's template filled in; a missing name is a rule error, not a blank.

    A clause in ``[[`` ``]]`` is kept only when every quantity it names was measured: "held
    at most 300 of 300 threads[[ with the queue at {peak_queue:num}]]" reads whole with pool
    metrics and stops after "threads" with a rejection line only, instead of "queue at n/a".
    """
    # Templates are wrapped in the rule file: one line break is a space, a blank line stays.
    paragraphs = [" ".join(p.split()) for p in template.strip().split("\n\n")]
    template = "\n\n".join(p for p in paragraphs if p)
    try:
        return _FORMATTER.vformat(_measured_clauses(template, context), (), context)
    except (KeyError, AttributeError, IndexError, ValueError) as exc:
        raise RuleError(f"template {template[:60]!r}: {type(exc).__name__}: {exc}") from exc


def _measured_clauses(template: str, context: Mapping[str, Any]) -> str:
    """``template`` with each ``[[clause]]`` kept (unbracketed) when all its fields hold a
    value, dropped otherwise. Clauses do not nest."""
    if "[[" not in template:
        return template
    out = []
    rest = template
    while "[[" in rest:
        before, _, after = rest.partition("[[")
        clause, closed, rest = after.partition("]]")
        if not closed:
            raise ValueError(f"unclosed [[ in {template[:60]!r}")
        out.append(before)
        if all(_measured(field, context) for field in _fields(clause)):
            out.append(clause)
    out.append(rest)
    # A dropped clause between two spaces leaves one; one at a paragraph's end leaves none.
    text = re.sub(" {2,}", " ", "".join(out))
    return re.sub(r" +(?=\n|$)|(?<=\n) +|^ +", "", text)


def _measured(field: str, context: Mapping[str, Any]) -> bool:
    value = _FORMATTER.get_field(field, (), context)[0]
    return value is not None and not (isinstance(value, float) and math.isnan(value))


class _Values(dict[str, Any]):
    """Template context: an unmeasured quantity renders ``n/a`` (the rule tests render every
    template on real measurements, so a misspelt name shows there)."""

    def __missing__(self, key: str) -> Any:
        return None


# --- judging ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checklist:
    """One loaded rule and the module computing its quantities."""

    rule: Rule
    module: QuantitiesModule

    @property
    def id(self) -> str:
        return self.rule.id


def load(modules: Sequence[ModuleType]) -> dict[str, Checklist]:
    """Every rule with its module, in the given order; a missing or invalid rule raises."""
    items: dict[str, Checklist] = {}
    for module in modules:
        checklist_id = module.__name__.rsplit(".", 1)[-1]
        rule = load_rule(rules_dir() / f"{checklist_id}.toml")
        if rule.id != checklist_id:
            raise RuleError(f"{checklist_id}.toml declares id {rule.id!r}")
        if not callable(getattr(module, "quantities", None)):
            raise RuleError(f"{module.__name__} has no quantities(data, params)")
        items[checklist_id] = Checklist(rule, cast(QuantitiesModule, module))
    return items


def _entity_verdict(rule: Rule, m: Measurement, params: Params) -> Verdict:
    if holds(rule.verdict.confirmed, m.values, params):
        return "confirmed"
    likely = rule.verdict.likely is not None and holds(rule.verdict.likely, m.values, params)
    # A likely needs at least one observation (not a proxy) at or past its named threshold.
    if likely and any(c.met and not c.item.corroborates for c in _checks(rule, m, params)):
        return "likely"
    return "ruled_out"


def _rank_key(rule: Rule, m: Measurement) -> tuple[float, ...]:
    key = []
    for name in rule.rank:
        value = m.values.get(name)
        number = float(value) if isinstance(value, int | float) else -math.inf
        key.append(-math.inf if math.isnan(number) else number)
    return tuple(key)


class _Titles:
    """``{title.<checklist id>}`` in a template: another item of the checklist by the title a
    reader sees on its card, in quotes, never by its id; an unknown id is a rule error."""

    def __getattr__(self, checklist_id: str) -> str:
        path = rules_dir() / f"{checklist_id}.toml"
        if checklist_id.startswith("_") or not path.is_file():
            raise AttributeError(f"no checklist item {checklist_id!r}")
        return f'"{_rule_title(path, path.stat().st_mtime_ns)}"'


@cache
def _rule_title(path: Path, mtime_ns: int) -> str:
    del mtime_ns  # the cache key: a rule file re-read when it changes
    return load_rule(path).title


def _context(rule: Rule, m: Measurement | None, params: Params, **extra: Any) -> _Values:
    items: dict[str, Any] = dict(m.values) if m else {}
    items.update(extra)
    items["t"] = SimpleNamespace(**params)
    items["title"] = _Titles()
    items["entity"] = m.entity if m else ""
    return _Values(items)


@dataclass(frozen=True, slots=True)
class _Check:
    """One evidence item of a rule on one entity, before any text is rendered."""

    item: EvidenceRule
    observed: Quantity
    threshold: Any
    threshold_name: str | None
    met: bool | None
    operator: str | None = None


def _checks(rule: Rule, m: Measurement, params: Params) -> list[_Check]:
    """The rule's evidence items that apply to ``m``, compared with their thresholds. Cheap:
    the verdict of every entity needs them, the texts only the entity shown."""
    out = []
    for item in rule.evidence:
        observed = m.values.get(item.quantity)
        if observed is None or not holds(item.when, m.values, params):
            continue
        met = threshold = threshold_name = operator = None
        if item.compare is not None:
            operator, operand = item.compare
            threshold = _operand(operand, params)
            threshold_name = operand if isinstance(operand, str) and operand in params else None
            met = bool(compare(observed, operator, threshold))
        out.append(_Check(item, observed, threshold, threshold_name, met, operator))
    return out


def _symptoms(rule: Rule, m: Measurement, params: Params) -> set[str]:
    """The symptoms ``m`` shows past threshold that the rule's mechanism explains."""
    return {
        f"{c.item.symptom}@{m.key}"
        for c in _checks(rule, m, params)
        if c.met and c.item.symptom in rule.explains
    }


def _evidence(rule: Rule, m: Measurement, params: Params) -> list[Evidence]:
    context = _context(rule, m, params)
    items = []
    for c in _checks(rule, m, params):
        anchor = m.anchor_of(c.item.quantity)
        items.append(
            Evidence(
                summary=render(c.item.summary, context),
                observed=_plain(c.observed) if c.item.show_observed else None,
                threshold=_plain(c.threshold) if c.item.show_observed else None,
                unit=c.item.unit,
                from_ms=anchor.from_ms,
                to_ms=anchor.to_ms,
                series=c.item.series or anchor.series,
                labels=dict(anchor.labels),
                event_kind=c.item.event_kind or anchor.event_kind,
                artifact=anchor.artifact,
                host=anchor.host,
                met=c.met,
                threshold_name=c.threshold_name,
                symptom=f"{c.item.symptom}@{m.key}" if c.item.symptom else None,
                corroborates=c.item.corroborates,
                operator=c.operator if c.item.show_observed else None,
                against=list(anchor.against),
            )
        )
    return items


def _plain(value: Any) -> float | str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    number = float(value)
    return round(number, 4) if math.isfinite(number) else str(number)


def judge(item: Checklist, data: IncidentData, *, version: str | None = None) -> Finding:
    """One rule's finding over the incident's data (``version``: the rules version, when the
    caller has read it already), with what evidence of assumed time (an undated listing placed
    at the upload time ...) changes of it: :func:`assumed_time.qualify`."""
    missing = [Missing(h.artifact, h.command) for h in item.rule.missing]
    return assumed_time.qualify(_judge(item, data, version=version), data, missing)


def _judge(item: Checklist, data: IncidentData, *, version: str | None = None) -> Finding:
    rule = item.rule
    params: Params = {name: t.value for name, t in rule.thresholds.items()}
    measurements = item.module.quantities(data, params)
    judgeable = [m for m in measurements if holds(rule.verdict.judgeable, m.values, params)]
    base = {
        "id": rule.id,
        "title": rule.title,
        "parameters": params,
        "references": [r.model_dump() for r in rule.references],
        "rules_version": version or rules_version(),
    }
    if not judgeable:
        chosen = max(measurements, key=lambda m: _rank_key(rule, m)) if measurements else None
        shown = _evidence(rule, chosen, params) if chosen else []
        # What was seen past threshold leads the text (unmeasured here when nothing was).
        met = "; ".join(e.summary for e in shown if e.met) or None
        context = _context(rule, chosen, params, judged=len(measurements), met_evidence=met)
        return Finding(
            verdict="insufficient_data",
            summary=render(
                rule.summary.insufficient_data
                if measurements or rule.summary.nothing_captured is None
                else rule.summary.nothing_captured,
                context,
            ),
            explanation=render(rule.explanation, context) if chosen else "",
            missing=[Missing(h.artifact, h.command) for h in rule.missing],
            remedies=_remedies(rule, chosen, params),
            evidence=shown,
            entity=chosen.entity if chosen else "",
            **base,  # type: ignore[arg-type]
        )
    verdicts = [(_entity_verdict(rule, m, params), m) for m in judgeable]
    verdict, chosen = min(
        verdicts,
        key=lambda vm: (VERDICT_ORDER[vm[0]], tuple(-x for x in _rank_key(rule, vm[1]))),
    )
    alike = sum(1 for v, _ in verdicts if v == verdict)
    evidence = _evidence(rule, chosen, params)
    context = _context(
        rule,
        chosen,
        params,
        judged=len(judgeable),
        alike=alike,
        met_evidence="; ".join(e.summary for e in evidence if e.met) or "none",
        unmet_evidence="; ".join(e.summary for e in evidence if e.met is False) or "none",
        all_evidence="; ".join(e.summary for e in evidence) or "none",
    )
    template = {
        "confirmed": rule.summary.confirmed,
        "likely": rule.summary.likely or rule.summary.confirmed,
        "ruled_out": rule.summary.ruled_out,
    }[verdict]
    explains = sorted(
        set().union(*(_symptoms(rule, m, params) for v, m in verdicts if v == "confirmed"))
    )
    return Finding(
        verdict=verdict,
        summary=render(template, context),
        evidence=evidence,
        explanation=render(rule.explanation, context),
        remedies=_remedies(rule, chosen, params),
        entity=chosen.entity,
        explains=explains,
        **base,  # type: ignore[arg-type]
    )


def _remedies(rule: Rule, m: Measurement | None, params: Params) -> list[str]:
    values = m.values if m else {}
    context = _context(rule, m, params)
    out = []
    for remedy in rule.remedies:
        # With nothing measured, only a condition on what is absent can hold.
        if remedy.when is not None and not holds(remedy.when, values, params):
            continue
        if remedy.unless is not None and m is not None and holds(remedy.unless, values, params):
            continue
        # A remedy that quotes a number (a buffer size, the BDP) applies when it was measured.
        if any(values.get(name) is None for name in _fields(remedy.text) - _NOT_QUANTITIES):
            continue
        out.append(render(remedy.text, context))
    return out


# Names a template fills in that are not an entity's quantities: thresholds, titles.
_NOT_QUANTITIES = frozenset({"t", "title"})


def _fields(template: str) -> set[str]:
    """The top-level names a template fills in (``{bdp:bytes}`` -> ``bdp``, ``{t.x}`` -> ``t``)."""
    return {
        name.split(".", 1)[0].split("[", 1)[0]
        for _, name, _, _ in _FORMATTER.parse(template)
        if name
    }


def diagnose(findings: list[Finding], rules: Mapping[str, Rule]) -> list[Finding]:
    """One symptom, one cause: findings whose every observation past threshold is a symptom
    that a confirmed cause of higher precedence explains are marked explained by it."""
    explained_by: dict[str, set[str]] = {}
    for cause in findings:
        if cause.verdict == "confirmed" and cause.id in rules:
            for symptom in cause.explains:
                explained_by.setdefault(symptom, set()).add(cause.id)
    for finding in findings:
        if finding.verdict not in ("confirmed", "likely") or finding.id not in rules:
            continue
        # What the finding rests on: its observations past threshold, proxies aside.
        met = [e for e in finding.evidence if e.met and not e.corroborates]
        if not met or any(e.symptom is None for e in met):
            continue
        precedence = rules[finding.id].precedence
        causes: set[str] = set()
        for item in met:
            assert item.symptom is not None
            candidates = {
                c
                for c in explained_by.get(item.symptom, set())
                if c != finding.id and rules[c].precedence > precedence
            }
            if not candidates:
                break
            causes |= candidates
        else:
            # Named by the titles a reader sees on the checklist, never by their ids.
            names = ", ".join(f'"{rules[c].title}"' for c in sorted(causes))
            finding.explained_by = sorted(causes)
            what = "that cause's symptom" if len(causes) == 1 else "those causes' symptom"
            finding.summary = (
                f"Explained by {names}: what this item saw is {what}, not a"
                f" second cause. {finding.summary}"
            )
            finding.verdict = "ruled_out"
    return findings
