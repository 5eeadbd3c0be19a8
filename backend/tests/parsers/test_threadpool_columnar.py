"""The columnar path of the thread-pool CSV reader (pyarrow and numpy, a column at a time)
gives exactly what the row path gives, and leaves every file it cannot read so to it."""

from __future__ import annotations

import random

import pytest

from rootline.parsers import threadpool_metrics as tp
from rootline.parsers.base import ParseContext, ParseResult
from tests.conftest import FIXTURES_DIR


def _dump(result: ParseResult) -> tuple[object, ...]:
    return (
        [(d.line, d.message) for d in result.diagnostics],
        [
            (s.name, s.labels, s.unit, s.times_ms.tobytes(), s.values.tobytes())
            for s in result.series
        ],
    )


def _by_rows(text: str, monkeypatch: pytest.MonkeyPatch) -> ParseResult:
    with monkeypatch.context() as patch:
        patch.setattr(tp, "_columnar", lambda text: None)
        return tp.parse(text, ParseContext())


HEADERS = [
    "timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,completed,rejected",
    "time,executor,activeCount,queueSize,remainingCapacity,completedTaskCount",
    "ts,active,queue,rejected",
    "epoch,name,active,threads,rejections,extra",
]
# Numbers Python's float() and pyarrow both read (the same double), and empty cells.
NUMBERS = ["", "-0", "+5", "1e3", ".5", "5.", "nan", "1E-2", "2.675", "0.1", "9007199254740993"]
POOLS = ["order", "pay", " order", "order ", "", "Ω-svc"]


def _capture(rng: random.Random) -> str:
    header = rng.choice(HEADERS).split(",")
    delimiter = rng.choice([",", ";", "\t"])
    canon = tp.canonical_columns(header)
    scale = rng.choice([1, 1000, 1_000_000, "s"])  # epoch ms, us, ns, s
    at = 1_795_246_043_955 + rng.randint(-(10**6), 10**6)
    rows = []
    for _ in range(rng.randint(1, 80)):
        at += rng.choice([200, 200, 0, -100, 1000])
        cells = []
        for column in canon:
            if column == "time":
                cells.append(str(at // 1000) if scale == "s" else str(at * int(scale)))
            elif column == "pool":
                cells.append(rng.choice(POOLS))
            elif column is None:
                cells.append("x")
            elif rng.random() < 0.8:
                cells.append(str(rng.randint(0, 500)))
            else:
                cells.append(
                    rng.choice([*NUMBERS, f"{rng.uniform(-1e9, 1e9):.{rng.randint(1, 17)}g}"])
                )
        rows.append(delimiter.join(cells))
        if rng.random() < 0.02:
            rows.append("")
    return delimiter.join(header) + "\n" + "\n".join(rows) + rng.choice(["\n", "", "\n\n"])


@pytest.mark.parametrize("seed", range(40))
def test_columnar_reads_as_rows_do(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    for _ in range(10):
        text = _capture(rng)
        assert tp._columnar(text) is not None, text[:300]
        assert _dump(tp.parse(text, ParseContext())) == _dump(_by_rows(text, monkeypatch))


ROW_PATH_ONLY = {
    "quoted cell": lambda text: text.replace(",order-service,", ',"order-service",', 1),
    "CRLF": lambda text: text.replace("\n", "\r\n"),
    "whitespace-only line": lambda text: text.replace("\n", "\n \n", 2),
    "short row": lambda text: text + "1795246055554,order-service,8\n",
    "word for a number": lambda text: (
        text + "1795246055554,order-service,8,4,8,8,many,50,118,557\n"
    ),
    "infinite number": lambda text: text + "1795246055554,order-service,8,4,8,8,inf,50,118,557\n",
    "ISO time": lambda text: text + "2026-11-21T07:27:23.955Z,order-service,8,4,8,8,5,50,118,557\n",
    "empty time": lambda text: text + ",order-service,8,4,8,8,5,50,118,557\n",
    "time past int64": lambda text: text + "9" * 19 + ",order-service,8,4,8,8,5,50,118,557\n",
    "20-digit time": lambda text: text + "1" * 20 + ",order-service,8,4,8,8,5,50,118,557\n",
    "vertical tab": lambda text: text.replace(",8,", ",8\x0b,", 1),
    "blank line first": lambda text: "\n" + text,
}


@pytest.mark.parametrize("change", ROW_PATH_ONLY.values(), ids=ROW_PATH_ONLY.keys())
def test_what_columns_cannot_read_exactly_is_read_by_rows(
    change: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = change((FIXTURES_DIR / "threadpool_metrics" / "pool-saturation-jdk17.csv").read_text())  # type: ignore[operator]
    assert tp._columnar(text) is None
    assert _dump(tp.parse(text, ParseContext())) == _dump(_by_rows(text, monkeypatch))


@pytest.mark.parametrize("cell", [" 5", "5 ", " 5 ", "\t7"])
def test_spaces_around_a_number_read_as_float_reads_them(
    cell: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "timestamp_ms,pool,active,queue\n1795246043955,a,1,2\n1795246044955,a,CELL,3\n"
    text = text.replace("CELL", cell)
    assert _dump(tp.parse(text, ParseContext())) == _dump(_by_rows(text, monkeypatch))


def test_two_columns_of_one_metric_are_read_by_rows() -> None:
    text = "timestamp,pool,active,queued,queue,completed\n1795246043955,a,1,2,3,4\n"
    assert tp._columnar(text) is None
