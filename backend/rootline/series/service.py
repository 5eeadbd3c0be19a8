"""Storing parsed series and reading them back, downsampled, for the timeline."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Row
from sqlalchemy.orm import Session

from rootline.parsers.base import SeriesData
from rootline.series import codec, repository
from rootline.series.models import Series
from rootline.series.schemas import SeriesPage, SeriesRead, Timeline, TimelineSeries

# Chunks are written in batches so a 200 MB capture never holds all its rows at once.
INSERT_BATCH_CHUNKS = 2000
# A query reads at most this many stored points per series before the final downsampling,
# times the number of points asked for.
READ_BUDGET_FACTOR = 16
MAX_TIMELINE_SERIES = 200


def store(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    series: Sequence[SeriesData],
    offset_ms: int = 0,
) -> tuple[int, int]:
    """Write the series of one artifact with their chunks; returns (series, points) written."""
    prepared: list[tuple[dict[str, Any], codec.Times, codec.Values]] = []
    for item in series:
        times = np.frombuffer(item.times_ms, dtype=np.int64) if len(item) else np.empty(0, np.int64)
        values = np.frombuffer(item.values, dtype=np.float64) if len(item) else np.empty(0)
        times, values = codec.sort_points(times, values)
        if not len(times):
            continue
        if offset_ms:
            times = times + offset_ms
        row = {
            "incident_id": incident_id,
            "artifact_id": artifact_id,
            "name": item.name,
            "labels": item.labels,
            "host": host,
            "unit": item.unit,
            "point_count": len(times),
            "first_ms": int(times[0]),
            "last_ms": int(times[-1]),
            "min_value": float(values.min()),
            "max_value": float(values.max()),
        }
        prepared.append((row, times, values))
    ids = repository.insert_series(session, [row for row, _, _ in prepared])
    pending: list[dict[str, Any]] = []
    points = 0
    for series_id, (_, times, values) in zip(ids, prepared, strict=True):
        points += len(times)
        for chunk in codec.encode_levels(times, values):
            pending.append(
                {
                    "series_id": series_id,
                    "level": chunk.level,
                    "seq": chunk.seq,
                    "first_ms": chunk.first_ms,
                    "last_ms": chunk.last_ms,
                    "point_count": chunk.point_count,
                    "data": chunk.data,
                }
            )
            if len(pending) >= INSERT_BATCH_CHUNKS:
                repository.insert_chunks(session, pending)
                pending = []
    repository.insert_chunks(session, pending)
    return len(ids), points


def to_read(series: Series | Row[Any]) -> SeriesRead:
    labels = dict(series.labels)
    if series.host:
        labels.setdefault("host", series.host)
    return SeriesRead(
        id=series.id,
        artifact_id=str(series.artifact_id),
        name=series.name,
        labels=labels,
        unit=series.unit,
        point_count=series.point_count,
        first_ms=series.first_ms,
        last_ms=series.last_ms,
        min=series.min_value,
        max=series.max_value,
    )


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    names: Sequence[str],
    host: str | None,
    limit: int,
    offset: int,
) -> SeriesPage:
    """The stored series of an incident, by name."""
    rows, total = repository.list_page(
        session, incident_id=incident_id, names=names, host=host, limit=limit, offset=offset
    )
    return SeriesPage(items=[to_read(r) for r in rows], total=total, limit=limit, offset=offset)


def timeline(
    session: Session,
    *,
    incident_id: uuid.UUID,
    ids: Sequence[int],
    names: Sequence[str],
    host: str | None,
    from_ms: int | None,
    to_ms: int | None,
    max_points: int,
) -> Timeline:
    """Points of the chosen series in [from_ms, to_ms], at most ``max_points`` each, spikes kept."""
    chosen = repository.find(
        session, incident_id=incident_id, ids=ids, names=names, host=host, limit=MAX_TIMELINE_SERIES
    )
    result = Timeline(from_ms=from_ms, to_ms=to_ms, max_points=max_points, series=[])
    if not chosen:
        return result
    # Per series and level: the overlapping chunks and how many points they hold.
    index: dict[int, dict[int, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for series_id, level, seq, count in repository.chunk_index(
        session, series_ids=[s.id for s in chosen], from_ms=from_ms, to_ms=to_ms
    ):
        index[series_id][level].append((seq, count))
    budget = max_points * READ_BUDGET_FACTOR
    fetched: list[tuple[SeriesRead, int, int, Sequence[Row[int, bytes]]]] = []
    for series in chosen:
        levels = index.get(series.id, {})
        raw_in_range = sum(count for _, count in levels.get(0, []))
        level = codec.choose_level(raw_in_range, budget, len(levels)) if levels else 0
        seqs = [seq for seq, _ in levels.get(level, [])]
        fetched.append(
            (to_read(series), level, raw_in_range, _fetch(session, series.id, level, seqs))
        )
    # Every byte needed is read (in one snapshot): end the reading transaction, so that its
    # connection goes back to the pool before the CPU-bound decoding and downsampling, most
    # of a read's time on a busy machine. Held, ten timeline readers of a process left two
    # connections for everyone else: a share-token flood's lookups and a legitimate share
    # read queued for them (1-3 s in the load-and-kill bench).
    session.commit()
    for read, level, raw_in_range, rows in fetched:
        times, values = _decode(rows)
        if len(times):
            mask = np.ones(len(times), dtype=bool)
            if from_ms is not None:
                mask &= times >= from_ms
            if to_ms is not None:
                mask &= times <= to_ms
            times, values = codec.downsample(times[mask], values[mask], max_points)
        result.series.append(
            TimelineSeries(
                id=read.id,
                name=read.name,
                labels=read.labels,
                unit=read.unit,
                level=level,
                points_in_range=raw_in_range,
                t=times.tolist(),
                v=values.tolist(),
            )
        )
    return result


def _fetch(
    session: Session, series_id: int, level: int, seqs: list[int]
) -> Sequence[Row[int, bytes]]:
    """(point_count, data) of the chunks ``seqs`` of one series and level, still encoded."""
    if not seqs:
        return []
    # Chunks overlapping a range are consecutive, so one BETWEEN reads them all.
    return repository.chunk_data(
        session, series_id=series_id, level=level, first_seq=min(seqs), last_seq=max(seqs)
    )


def _decode(rows: Sequence[Row[int, bytes]]) -> tuple[codec.Times, codec.Values]:
    if not rows:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    parts = [codec.decode(data, count) for count, data in rows]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
