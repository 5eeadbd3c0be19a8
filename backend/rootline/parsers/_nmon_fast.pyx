# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The nmon parser's innermost loop in C: a section's rows of plain decimal numbers read
straight from the block's bytes into columns (see ``nmon._Columnar._section``).

Built by Cython and the machine's C compiler when the package is installed
(``backend/setup.py``); where it could not be built, the parser reads the same rows with
``pyarrow.csv``, as it did before. Only the plainest value is read here: ``-?[0-9]+`` with an
optional ``.[0-9]+``, at most 15 digits, or an empty value (NaN): the value ``pyarrow.csv``
(and ``float()``) reads, bit for bit (see ``_decimal.pxd``). Anything else (a sign ``+``, an exponent, a space, ``nan``,
a quote, a row of another width) is not read: the caller hands the whole section's block to
``pyarrow.csv``, which reads it or fails as it always did.
"""

from libc.math cimport NAN
from libc.string cimport memchr

from rootline.parsers._decimal cimport plain_decimal


cdef inline Py_ssize_t _value(
    const unsigned char* text, Py_ssize_t at, Py_ssize_t stop, double* out
) noexcept nogil:
    """The value from ``at`` to the next comma or ``stop``: where it ends (its comma or
    ``stop``), or -1 when it is not a plain decimal number (see ``_decimal.pxd``), with an
    optional "-"."""
    cdef bint negative = False
    if at == stop or text[at] == 44:  # an empty value
        out[0] = NAN
        return at
    if text[at] == 45:  # "-"
        negative = True
        at += 1
    at = plain_decimal(text, at, stop, out)
    if at < 0 or (at < stop and text[at] != 44):
        return -1
    if negative:
        out[0] = -out[0]
    return at


cdef Py_ssize_t _rows(
    const unsigned char* text,
    Py_ssize_t size,
    const long long[::1] starts,
    const long long[::1] stops,
    double[:, ::1] out,
    unsigned char[::1] gaps,
) noexcept nogil:
    cdef Py_ssize_t rows = starts.shape[0]
    cdef Py_ssize_t width = out.shape[0]
    cdef Py_ssize_t row, column, at, stop
    cdef double value
    for row in range(rows):
        at = starts[row]
        stop = stops[row]
        if at < 0 or stop > size or at > stop:
            return row
        for column in range(width):
            if column:
                if at >= stop:  # too few values
                    return row
                at += 1  # past the comma
            at = _value(text, at, stop, &value)
            if at < 0:
                return row
            if value != value:
                gaps[column] = 1
            out[column, row] = value
        if at != stop:  # too many values
            return row
    return -1


def section_values(
    const unsigned char[::1] data,
    const long long[::1] starts,
    const long long[::1] stops,
    double[:, ::1] out,
    unsigned char[::1] gaps,
) -> int:
    """Row ``i`` is ``data[starts[i]:stops[i]]`` (no newline): ``out.shape[0]`` values
    separated by commas, read into ``out[:, i]``; ``gaps[column]`` set where a value was
    empty. Returns -1 when every row was read, else the first row that was not."""
    cdef Py_ssize_t found
    if out.shape[1] < starts.shape[0] or stops.shape[0] < starts.shape[0]:
        raise ValueError("out or stops too small")
    if gaps.shape[0] < out.shape[0]:
        raise ValueError("gaps too small")
    if data.shape[0] == 0:
        return 0 if starts.shape[0] else -1
    with nogil:
        found = _rows(&data[0], data.shape[0], starts, stops, out, gaps)
    return found


cdef Py_ssize_t _top_rows(
    const unsigned char* text,
    Py_ssize_t size,
    const long long[::1] starts,
    const long long[::1] stops,
    Py_ssize_t width,
    Py_ssize_t cpu_at,
    Py_ssize_t command_at,
    const long long[::1] resident_at,
    double[::1] cpu,
    double[::1] resident,
    int[::1] bounds,
) noexcept nogil:
    cdef Py_ssize_t rows = starts.shape[0]
    cdef Py_ssize_t residents = resident_at.shape[0]
    cdef Py_ssize_t row, field, at, stop, end, next_resident
    cdef double value, total
    for row in range(rows):
        at = starts[row]
        stop = stops[row]
        if at < 0 or stop > size or at > stop or stop > 2147483647:
            return row
        total = 0.0
        next_resident = 0
        for field in range(width):
            if field:
                if at >= stop:  # too few fields
                    return row
                at += 1  # past the comma
            if field == cpu_at or (next_resident < residents and field == resident_at[next_resident]):
                end = _value(text, at, stop, &value)
                if end < 0:
                    return row
                if field == cpu_at:
                    cpu[row] = value
                else:
                    total = value if next_resident == 0 else total + value
                    next_resident += 1
                at = end
                continue
            end = at
            while end < stop and text[end] != 44:
                end += 1
            if field == 1:
                bounds[4 * row] = <int>at
                bounds[4 * row + 1] = <int>end
            elif field == command_at:
                bounds[4 * row + 2] = <int>at
                bounds[4 * row + 3] = <int>end
            at = end
        if at != stop:  # too many fields
            return row
        resident[row] = total
    return -1


def top_values(
    const unsigned char[::1] data,
    const long long[::1] starts,
    const long long[::1] stops,
    Py_ssize_t width,
    Py_ssize_t cpu_at,
    Py_ssize_t command_at,
    const long long[::1] resident_at,
    double[::1] cpu,
    double[::1] resident,
    int[::1] bounds,
) -> int:
    """TOP rows ``data[starts[i]:stops[i]]`` (no newline) of ``width`` fields: field
    ``cpu_at`` (a plain number) into ``cpu[i]``, the sum of the fields ``resident_at`` (in
    that order, rising; plain numbers, NaN for an empty one) into ``resident[i]``, and where
    the pid (field 1) and the command (``command_at``) lie, as ``bounds[4i:4i+4]``: pid start,
    pid end, command start, command end. Returns -1 when every row was read, else the first
    row that was not."""
    cdef Py_ssize_t found
    cdef Py_ssize_t rows = starts.shape[0]
    cdef Py_ssize_t i
    if stops.shape[0] < rows or cpu.shape[0] < rows or resident.shape[0] < rows:
        raise ValueError("stops, cpu or resident too small")
    if bounds.shape[0] < 4 * rows:
        raise ValueError("bounds too small")
    if not 1 < cpu_at < width or not 1 < command_at < width or cpu_at == command_at:
        raise ValueError("cpu_at and command_at: two fields past the pid")
    for i in range(resident_at.shape[0]):
        if not 1 < resident_at[i] < width or resident_at[i] in (cpu_at, command_at):
            raise ValueError("resident_at: fields past the pid, not %CPU or the command")
        if i and resident_at[i] <= resident_at[i - 1]:
            raise ValueError("resident_at: rising")
    if data.shape[0] == 0:
        return 0 if rows else -1
    with nogil:
        found = _top_rows(
            &data[0], data.shape[0], starts, stops, width, cpu_at, command_at, resident_at,
            cpu, resident, bounds,
        )
    return found


# ---- a block's lines: where each lies, its section name, its tag (see nmon._Columnar._block)

import numpy as np

cdef enum:
    _SLOTS = 4096  # hash slots for section names (a file has a few tens)
    _MAX_NAMES = 1024


cdef unsigned long long _FNV_OFFSET = 14695981039346656037ULL  # FNV-1a, 64 bits
cdef unsigned long long _FNV_PRIME = 1099511628211ULL


cdef inline unsigned long long _word_at(const unsigned char* text) noexcept nogil:
    cdef unsigned long long word = 0
    cdef int k
    for k in range(8):
        word |= (<unsigned long long>text[k]) << (8 * k)
    return word


def index_lines(const unsigned char[::1] data, Py_ssize_t size, Py_ssize_t name_span):
    """The block's lines (``data[:size]``, whole lines; ``data`` padded with zeros past
    ``size`` by ``name_span + 16`` bytes at least), as ``_Columnar._block`` reads them:

    ``offsets`` (int32, count + 1: each line's start, then one past the last newline),
    ``names`` (each name's bytes, in order of first appearance; an empty line's name is
    ``b"\\n"``), ``order`` and ``bounds`` (the lines of name ``c`` are
    ``order[bounds[c]:bounds[c + 1]]``, in file order), ``tag_at`` (past the name's comma),
    ``tagged`` (``T<digit>`` there), ``tag_words`` (the 8 bytes after that ``T``, a
    little-endian word), and for lines named ``TOP``: ``top_at`` (past the pid's comma) and
    ``top_tagged``.

    None when a line has no name the columnar path reads: a line without a comma in its
    first ``name_span`` bytes (but an empty line), or an empty name."""
    cdef Py_ssize_t count = 0, i, at, start, end, comma, limit, length, code, slot, n, k
    cdef const unsigned char* text = &data[0]
    cdef unsigned long long hash
    if data.shape[0] < size + name_span + 16:
        raise ValueError("data not padded")
    cdef const unsigned char* found_at
    with nogil:  # newlines found by memchr (many bytes at a time)
        at = 0
        while at < size:
            found_at = <const unsigned char*>memchr(text + at, 10, size - at)
            if found_at == NULL:
                break
            count += 1
            at = found_at - text + 1
    offsets_a = np.empty(count + 1, dtype=np.int32)
    codes_a = np.empty(count, dtype=np.int32)
    tag_at_a = np.empty(count, dtype=np.int64)
    tagged_a = np.empty(count, dtype=np.bool_)
    words_a = np.empty(count, dtype=np.uint64)
    top_at_a = np.zeros(count, dtype=np.int64)
    top_tagged_a = np.zeros(count, dtype=np.bool_)
    cdef int[::1] offsets = offsets_a
    cdef int[::1] codes = codes_a
    cdef long long[::1] tag_at = tag_at_a
    cdef unsigned char[::1] tagged = tagged_a.view(np.uint8)
    cdef unsigned long long[::1] words = words_a
    cdef long long[::1] top_at = top_at_a
    cdef unsigned char[::1] top_tagged = top_tagged_a.view(np.uint8)
    # names: slot -> code + 1 (0: free); each code's name as (start, length) in the text
    cdef int slots[_SLOTS]
    cdef Py_ssize_t name_start[_MAX_NAMES]
    cdef Py_ssize_t name_length[_MAX_NAMES]
    cdef Py_ssize_t names = 0
    cdef Py_ssize_t top_code = -1
    cdef bint failed = False
    cdef Py_ssize_t line = 0
    for slot in range(_SLOTS):
        slots[slot] = 0
    with nogil:
        start = 0
        while line < count:
            end = <const unsigned char*>memchr(text + start, 10, size - start) - text  # its newline
            offsets[line] = <int>start
            limit = start + name_span if end - start > name_span else end
            comma = start
            while comma < limit and text[comma] != 44:
                comma += 1
            if comma == limit and end != start:
                failed = True  # no comma in the name's span: a line the line path reads
                break
            if comma == start and end != start:
                failed = True  # an empty name
                break
            length = comma - start if end != start else 1  # an empty line: name "\n"
            hash = _FNV_OFFSET
            for k in range(length):
                hash = (hash ^ text[start + k]) * _FNV_PRIME
            slot = <Py_ssize_t>(hash & (_SLOTS - 1))
            while True:
                code = slots[slot] - 1
                if code < 0:
                    if names == _MAX_NAMES:
                        failed = True
                        break
                    code = names
                    names += 1
                    slots[slot] = <int>(code + 1)
                    name_start[code] = start
                    name_length[code] = length
                    if length == 3 and text[start] == 84 and text[start + 1] == 79 and text[start + 2] == 80:
                        top_code = code  # "TOP"
                    break
                if name_length[code] == length:
                    k = 0
                    while k < length and text[name_start[code] + k] == text[start + k]:
                        k += 1
                    if k == length:
                        break
                slot = (slot + 1) & (_SLOTS - 1)
            if failed:
                break
            codes[line] = <int>code
            i = comma + 1
            tag_at[line] = i
            tagged[line] = text[i] == 84 and <unsigned char>(text[i + 1] - 48) < 10
            words[line] = _word_at(text + i + 1)
            if code == top_code:
                # the pid's comma within name_span bytes of tag_at, then T<digit>
                limit = i + name_span if i + name_span < end else end
                comma = i
                while comma < limit and text[comma] != 44:
                    comma += 1
                if comma < limit:
                    top_at[line] = comma + 1
                    top_tagged[line] = (
                        comma + 1 < end
                        and text[comma + 1] == 84
                        and <unsigned char>(text[comma + 2] - 48) < 10
                    )
                else:
                    top_at[line] = i
            line += 1
            start = end + 1
        offsets[count] = <int>start
    if failed:
        return None
    # The lines of each name in file order: a counting sort by code.
    bounds_a = np.zeros(names + 1, dtype=np.int64)
    order_a = np.empty(count, dtype=np.int64)
    cdef long long[::1] bounds = bounds_a
    cdef long long[::1] order = order_a
    with nogil:
        for i in range(count):
            bounds[codes[i] + 1] += 1
        for code in range(names):
            bounds[code + 1] += bounds[code]
        for i in range(count):
            n = bounds[codes[i]]
            order[n] = i
            bounds[codes[i]] = n + 1
        for code in range(names, 0, -1):
            bounds[code] = bounds[code - 1]
        bounds[0] = 0
    found = []
    for code in range(names):
        found.append(bytes(data[name_start[code] : name_start[code] + name_length[code]]))
    return (
        offsets_a, found, order_a, bounds_a, tag_at_a, tagged_a, words_a, top_at_a, top_tagged_a
    )
