"""A multipart upload read as it streams, within the request and per-file limits.

Starlette's ``request.form()`` spools every part to a temporary file and only then lets the
caller look at sizes; with no Content-Length (chunked encoding) nothing checks the request
limit at all, so a 2 GiB body was read and spooled whole before its 413. Here the body is
counted as it arrives and each file part as it is written: the first byte past
``max_request_bytes`` or past ``max_file_bytes`` in one part stops the read, so no more than
the limits is ever spooled.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.datastructures import FormData, Headers
from starlette.formparsers import MultiPartException, MultiPartParser


class RequestTooLarge(Exception):
    """The body passed ``max_request_bytes``; nothing more of it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is over the limit of {limit} bytes")
        self.limit = limit


class FileTooLarge(Exception):
    """One file part passed ``max_file_bytes``; nothing more of it was spooled."""

    def __init__(self, filename: str, limit: int) -> None:
        super().__init__(f"{filename}: over the limit of {limit} bytes per file")
        self.filename = filename
        self.limit = limit


class _LimitedParser(MultiPartParser):
    """Starlette's parser, refusing a file part at its first byte past the per-file limit
    (before that byte is queued for the spool file)."""

    def __init__(
        self, headers: Headers, stream: AsyncIterator[bytes], *, max_file_bytes: int, **options: int
    ) -> None:
        super().__init__(headers, stream, **options)  # type: ignore[arg-type]
        self.max_file_bytes = max_file_bytes
        self.part_bytes = 0

    def on_part_begin(self) -> None:
        super().on_part_begin()
        self.part_bytes = 0

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        upload = self._current_part.file
        if upload is not None:
            self.part_bytes += end - start
            if self.part_bytes > self.max_file_bytes:
                raise FileTooLarge(upload.filename or "upload", self.max_file_bytes)
        super().on_part_data(data, start, end)


async def _counted(chunks: AsyncIterator[bytes], limit: int) -> AsyncIterator[bytes]:
    total = 0
    async for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise RequestTooLarge(limit)
        yield chunk


async def read_form(
    headers: Headers,
    body: AsyncIterator[bytes],
    *,
    max_request_bytes: int,
    max_file_bytes: int,
    max_files: int,
    max_fields: int,
) -> FormData:
    """The form, its files spooled, every limit checked as the bytes arrive.

    Raises :class:`RequestTooLarge`, :class:`FileTooLarge`, or ``MultiPartException`` for a
    malformed body; the spool files of a refused form are closed (and so removed)."""
    parser = _LimitedParser(
        headers,
        _counted(body, max_request_bytes),
        max_file_bytes=max_file_bytes,
        max_files=max_files,
        max_fields=max_fields,
    )
    return await parser.parse()


__all__ = ["FileTooLarge", "MultiPartException", "RequestTooLarge", "read_form"]
