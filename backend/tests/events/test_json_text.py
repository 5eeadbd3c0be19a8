"""The JSON events' attrs and labels are stored as (orjson's where it means what ``json.dumps``
writes, ``json.dumps``'s otherwise) reads back as the value ``json.dumps`` would give."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.db import json_bytes_maker, read_json_bytes

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # past 64 bits too
    | st.floats()  # NaN and the infinities too
    | st.text()  # control characters, non-ASCII and lone surrogates too
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        | st.dictionaries(st.integers(), inner, max_size=3)
    ),  # keys json.dumps writes as text
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES)
def test_text_reads_back_as_json_dumps_would(value: Any) -> None:
    expected = json.loads(json.dumps(value))
    data = json_bytes_maker()(value)
    assert _same(read_json_bytes(data), expected)
    # Whichever wrote it, the text after the tag is JSON.
    assert _same(json.loads(data[1:]), expected)


def test_nan_and_big_integers_are_kept() -> None:
    value = {"nan": math.nan, "inf": -math.inf, "big": 2**80, "none": None, "k": "null"}
    back = read_json_bytes(json_bytes_maker()(value))
    assert math.isnan(back["nan"]) and back["inf"] == -math.inf
    assert back["big"] == 2**80 and back["none"] is None and back["k"] == "null"


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "value", [dt.datetime(2026, 1, 1, tzinfo=dt.UTC), _Point(1), {"when": dt.date(2026, 1, 1)}]
)
def test_what_json_dumps_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        json_bytes_maker()(value)


def test_subclasses_are_written_as_json_dumps_writes_them() -> None:
    class Level(enum.IntEnum):
        HIGH = 3

    data = json_bytes_maker()({"level": Level.HIGH, "s": _Text("x")})
    assert read_json_bytes(data) == {"level": 3, "s": "x"}


class _Text(str):
    pass
