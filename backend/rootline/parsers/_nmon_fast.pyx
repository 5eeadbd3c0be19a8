# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The nmon parser's innermost loop in C: a section's rows of plain decimal numbers read
straight from the block's bytes into columns (see ``nmon._Columnar._section``).

Built by Cython and the machine's C compiler when the package is installed
(``backend/setup.py``); where it could not be built, the parser reads the same rows with
``pyarrow.csv``, as it did before. Only the plainest value is read here: ``-?[0-9]+`` with an
optional ``.[0-9]+``, at most 15 digits, or an empty value (NaN). Such a number is a whole
number of at most 15 digits divided by a power of ten of at most 15: both are exact doubles,
and one IEEE division rounds correctly, so the value is the one ``pyarrow.csv`` (and
``float()``) reads, bit for bit. Anything else (a sign ``+``, an exponent, a space, ``nan``,
a quote, a row of another width) is not read: the caller hands the whole section's block to
``pyarrow.csv``, which reads it or fails as it always did.
"""

from libc.math cimport NAN

cdef double[16] _POWERS = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
]


cdef inline Py_ssize_t _value(
    const unsigned char* text, Py_ssize_t at, Py_ssize_t stop, double* out
) noexcept nogil:
    """The value from ``at`` to the next comma or ``stop``: where it ends (its comma or
    ``stop``), or -1 when it is not a plain decimal number."""
    cdef bint negative = False
    cdef unsigned long long whole = 0
    cdef int digits = 0
    cdef int decimals = 0
    cdef unsigned char c
    if at == stop or text[at] == 44:  # an empty value
        out[0] = NAN
        return at
    if text[at] == 45:  # "-"
        negative = True
        at += 1
    while at < stop:
        c = text[at] - 48
        if c >= 10:
            break
        whole = whole * 10 + c
        digits += 1
        at += 1
    if digits == 0:
        return -1
    if at < stop and text[at] == 46:  # "."
        at += 1
        while at < stop:
            c = text[at] - 48
            if c >= 10:
                break
            whole = whole * 10 + c
            digits += 1
            decimals += 1
            at += 1
        if decimals == 0:
            return -1
    if digits > 15 or (at < stop and text[at] != 44):
        return -1
    out[0] = -(<double>whole / _POWERS[decimals]) if negative else <double>whole / _POWERS[decimals]
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
