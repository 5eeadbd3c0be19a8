"""Events stored by column: one row per run of up to :data:`CHUNK_EVENTS` events of one kind
from one artifact, not one row per event (issue 16).

A GC log holds hundreds of thousands of pauses. As rows, each cost a Python dict, a JSON
text, a database row and two index entries: on SQLite about 1.2 CPU s and 80 MB for the
211,682 pauses of the 200 MB bench log. As chunks they are 52 rows of compressed columns
(times as int64, durations as float64 with NaN for none, attrs and labels as one JSON list
each): under 0.1 s and 2 MB, and the checklist reads a kind back in a fraction of the time.

Pure: no database here. The repository (:mod:`rootline.events.repository`) stores a
:class:`Chunk` as an ``event_chunks`` row and reads the columns back with :func:`times`,
:func:`durations` and :func:`json_list`.

An event's id is its chunk's id times :data:`ID_STRIDE` plus its place in the chunk: ids
order a chunk's events as they were given, and the events of one kind of one artifact in
the order the parser gave them (chunks of one artifact are inserted in that order).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from rootline.compression import compressor, decompress, pack_array, unpack_array
from rootline.db import json_bytes_maker, read_json_bytes
from rootline.parsers.base import EventColumns, EventData

CHUNK_EVENTS = 4096
# Event ids: chunk id * ID_STRIDE + index (2**16 > CHUNK_EVENTS; ids stay below 2**53, a
# number JavaScript holds exactly, until chunk ids pass 2**37).
ID_STRIDE = 1 << 16
ZSTD_LEVEL = 1

Times = npt.NDArray[np.int64]
Durations = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk's columns, encoded, and what a query filters or sums on without them."""

    kind: str
    count: int
    first_ms: int
    last_ms: int
    # Over the events with a duration: their sum (math.fsum) and the longest; None if none.
    total_duration_ms: float | None
    max_duration_ms: float | None
    times: bytes
    durations: bytes
    attrs: bytes
    # b"" when every event's labels are empty (most kinds have none).
    labels: bytes

    def row(self, incident_id: Any, artifact_id: Any, host: str | None) -> dict[str, Any]:
        """The chunk as an ``event_chunks`` row of these ids and host."""
        columns = {name: getattr(self, name) for name in self.__slots__}
        return {"incident_id": incident_id, "artifact_id": artifact_id, "host": host, **columns}


def encode(events: Iterable[EventData], offset_ms: int = 0) -> Iterator[Chunk]:
    """The events as chunks: grouped by kind (the kinds in the order of their first event,
    each kind's events in their order), up to :data:`CHUNK_EVENTS` a chunk, ``offset_ms``
    added to every time. Read from columns: a GC log's events come as columns already
    (:class:`EventColumns`, no :class:`EventData` each), any other list is put in columns."""
    if not isinstance(events, EventColumns):
        events = EventColumns.of(events)
    compress = compressor(ZSTD_LEVEL)
    dumps = json_bytes_maker()
    kinds = dict.fromkeys(kind for kind, _ in events.runs)
    for kind in kinds:
        found = events.columns[kind]
        size = len(found.times)
        for start in range(0, size, CHUNK_EVENTS):
            stop = start + CHUNK_EVENTS
            part_durations = found.durations[start:stop]
            count = len(part_durations)
            times = np.array(found.times[start:stop], dtype=np.int64)
            if offset_ms:
                times += offset_ms
            if None in part_durations:
                part_durations = [math.nan if d is None else d for d in part_durations]
            durations = np.array(part_durations, dtype=np.float64)
            given = durations[~np.isnan(durations)]
            labels = None if found.labels is None else found.labels[start:stop]
            yield Chunk(
                kind=kind,
                count=count,
                first_ms=int(times.min()),
                last_ms=int(times.max()),
                total_duration_ms=math.fsum(given.tolist()) if given.size else None,
                max_duration_ms=float(given.max()) if given.size else None,
                times=pack_array(times.astype("<i8", copy=False), ZSTD_LEVEL),
                durations=pack_array(durations.astype("<f8", copy=False), ZSTD_LEVEL),
                attrs=compress(dumps(found.attrs[start:stop])),
                labels=compress(dumps(labels)) if labels is not None and any(labels) else b"",
            )


def times(data: bytes) -> Times:
    return unpack_array(data, "<i8")


def durations(data: bytes) -> Durations:
    return unpack_array(data, "<f8")


def duration_list(data: bytes) -> list[float | None]:
    """The durations as the events had them (None: a point event)."""
    return [None if value != value else value for value in durations(data).tolist()]


def json_list(data: bytes, count: int) -> list[dict[str, Any]]:
    """The attrs (or labels) column: ``count`` dicts (empty ones for a labels column
    stored as b"")."""
    if not data:
        return [{} for _ in range(count)]
    return read_json_bytes(decompress(data))  # type: ignore[no-any-return]


def event_id(chunk_id: int, index: int) -> int:
    return chunk_id * ID_STRIDE + index


def chunk_of(event: int) -> tuple[int, int]:
    """(chunk id, index in it) of an event id."""
    return divmod(event, ID_STRIDE)


def ids(chunk_id: int, count: int) -> npt.NDArray[np.int64]:
    """The ids of a chunk's ``count`` events."""
    return np.arange(count, dtype=np.int64) + chunk_id * ID_STRIDE


def in_order(
    chunk_ids: Sequence[npt.NDArray[np.int64]], chunk_times: Sequence[Times]
) -> npt.NDArray[np.intp]:
    """Where each event of the chunks' (concatenated) ids and times goes in time order, ties
    by id: the order of ``ORDER BY time_ms, id`` on the table of one row per event this
    replaced."""
    if not chunk_ids:
        return np.zeros(0, dtype=np.intp)
    return np.lexsort((np.concatenate(chunk_ids), np.concatenate(chunk_times)))
