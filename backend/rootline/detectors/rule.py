"""The schema of a checklist rule file (``detectors/rules/<id>.toml``), validated by Pydantic.

A rule is the checklist item as data: the mechanism it names, the references behind it, the
thresholds with their units and reasons, the entity it judges, the verdict ladder over named
quantities, the order of entities, the templates of its texts, the missing-data hints and the
remedies with the condition under which each applies. The numbers come from one Python
function per id (``quantities(data, params)``, in ``detectors/<id>.py``); the engine
(:mod:`rootline.detectors.engine`) loads, validates, runs and renders. A threshold change is
one value in one file.

A condition is ``[quantity, operator, operand]``: the operand is a threshold's name, or a
literal number, string or boolean. ``[quantity, "present"]`` and ``[quantity, "absent"]``
test whether the quantity was measured at all. A comparison with an unmeasured quantity is
false. ``{all = [...]}`` and ``{any = [...]}`` nest.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Operator = Literal[">=", ">", "<=", "<", "==", "!=", "present", "absent"]
Entity = Literal[
    "connection", "peer_group", "listener", "pool", "host", "jvm", "port_range", "incident"
]
Scalar = float | int | str | bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Comparison(_Strict):
    quantity: str
    operator: Operator
    operand: Scalar | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            if len(value) == 2 and value[1] in ("present", "absent"):
                return {"quantity": value[0], "operator": value[1]}
            if len(value) == 3:
                return {"quantity": value[0], "operator": value[1], "operand": value[2]}
            raise ValueError(f"a condition is [quantity, operator, operand], got {value!r}")
        return value

    @model_validator(mode="after")
    def _operand_needed(self) -> Comparison:
        if self.operator not in ("present", "absent") and self.operand is None:
            raise ValueError(f"{self.quantity} {self.operator} needs an operand")
        return self


class Group(_Strict):
    all: list[Condition] | None = None
    any: list[Condition] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Group:
        if (self.all is None) == (self.any is None):
            raise ValueError("a group has exactly one of `all` or `any`")
        return self


Condition = Annotated[Comparison | Group, Field(union_mode="left_to_right")]
Group.model_rebuild()


class Threshold(_Strict):
    value: float | int | str
    unit: str
    why: str = Field(min_length=10, description="Why this value: a report, a kernel fact.")


class Reference(_Strict):
    title: str
    url: str | None = None
    source: str | None = Field(default=None, description="A field report (seeds/...) or a doc.")


class Ladder(_Strict):
    confirmed: Group
    likely: Group | None = None
    judgeable: Group | None = Field(
        default=None,
        description="When no entity meets it, the verdict is insufficient_data (what to collect).",
    )


class EvidenceRule(_Strict):
    quantity: str
    summary: str
    compare: tuple[Operator, Scalar] | None = Field(
        default=None, description="[operator, threshold]: whether the observation met it."
    )
    unit: str = ""
    series: str | None = None
    event_kind: str | None = None
    symptom: str | None = Field(
        default=None,
        description="The symptom this observation is (sendq_full, recvq_full, time_wait ...):"
        " another confirmed cause whose mechanism explains it takes it over.",
    )
    when: Group | None = None
    show_observed: bool = Field(
        default=True,
        description="False where the number means nothing to a reader (a ratio over a zero"
        " denominator): it is still compared, and the summary says it in words.",
    )
    corroborates: bool = Field(
        default=False,
        description="A proxy (pool activity, CPU) that supports the mechanism: shown and"
        " compared, but on its own it neither makes a likely nor keeps a finding standing"
        " against a cause that explains its symptoms.",
    )


class Summaries(_Strict):
    confirmed: str
    likely: str | None = None
    ruled_out: str
    insufficient_data: str
    nothing_captured: str | None = Field(
        default=None,
        description="insufficient_data when no input at all was captured (else the"
        " insufficient_data text, which may speak of what was captured but not judgeable).",
    )


class MissingHint(_Strict):
    artifact: str
    command: str


class Remedy(_Strict):
    text: str
    when: Group | None = Field(
        default=None, description="Offered only when this holds on the entity shown."
    )
    unless: Group | None = Field(
        default=None,
        description="Left out when this holds on the entity shown: general advice for one form"
        " of the cause (a hot lock) that does not apply to another (a deadlock alone). Kept"
        " when nothing was measured.",
    )


class Rule(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str
    entity: Entity
    inputs: list[str]
    mechanism: str
    references: list[Reference] = Field(min_length=1)
    thresholds: dict[str, Threshold]
    verdict: Ladder
    rank: list[str] = Field(
        default_factory=list,
        description="Quantities ordering the entities of one verdict, largest first.",
    )
    precedence: int = Field(
        default=50,
        description="Between two confirmed causes, the higher one's mechanism explains the"
        " other's symptoms (kernel-stated mechanisms rank high).",
    )
    explains: list[str] = Field(default_factory=list)
    evidence: list[EvidenceRule]
    summary: Summaries
    explanation: str
    missing: list[MissingHint] = Field(min_length=1)
    remedies: list[Remedy] = Field(min_length=1)

    @field_validator("thresholds")
    @classmethod
    def _lower_names(cls, value: dict[str, Threshold]) -> dict[str, Threshold]:
        for name in value:
            if name != name.lower():
                raise ValueError(f"threshold names are lower case: {name}")
        return value

    @model_validator(mode="after")
    def _likely_needs_evidence(self) -> Rule:
        compared = [item for item in self.evidence if item.compare is not None]
        if not compared:
            raise ValueError("at least one evidence item must compare with a threshold")
        for item in compared:
            assert item.compare is not None
            operand = item.compare[1]
            if isinstance(operand, str) and operand not in self.thresholds:
                raise ValueError(f"evidence {item.quantity} compares with unknown {operand!r}")
        for group in (self.verdict.confirmed, self.verdict.likely, self.verdict.judgeable):
            for comparison in _comparisons(group):
                if (
                    isinstance(comparison.operand, str)
                    and comparison.operator not in ("==", "!=")
                    and comparison.operand not in self.thresholds
                ):
                    raise ValueError(
                        f"{comparison.quantity} {comparison.operator} {comparison.operand!r}:"
                        " no such threshold"
                    )
        return self


def _comparisons(group: Group | None) -> list[Comparison]:
    if group is None:
        return []
    out: list[Comparison] = []
    for condition in group.all or group.any or []:
        if isinstance(condition, Comparison):
            out.append(condition)
        else:
            out.extend(_comparisons(condition))
    return out


def quantities_named(rule: Rule) -> set[str]:
    """Every quantity the rule's ladder, evidence, ranking and remedies name."""
    names = {
        c.quantity for g in (rule.verdict.confirmed, rule.verdict.likely) for c in _comparisons(g)
    }
    names |= {c.quantity for c in _comparisons(rule.verdict.judgeable)}
    names |= {item.quantity for item in rule.evidence}
    names |= set(rule.rank)
    for remedy in rule.remedies:
        names |= {c.quantity for c in _comparisons(remedy.when)}
        names |= {c.quantity for c in _comparisons(remedy.unless)}
    return names
