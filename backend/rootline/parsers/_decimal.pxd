# cython: language_level=3
"""A plain decimal number read in C, shared by the parsers' compiled loops: ``[0-9]+`` with
an optional ``.[0-9]+``, at most 15 digits in all. Such a number is a whole number below
10**15 divided by a power of ten of at most 15: both exact doubles, so the one IEEE division
rounds correctly and the value is the one ``float()``, numpy and pyarrow read, bit for bit."""

cdef inline Py_ssize_t plain_decimal(
    const unsigned char* text, Py_ssize_t at, Py_ssize_t stop, double* out
) noexcept nogil:
    """The unsigned number from ``at``: where its digits end (at most ``stop``), its value in
    ``out``; -1 when no digit starts it, a dot is not followed by a digit, or it has more than
    15 digits."""
    cdef unsigned long long whole = 0
    cdef double power = 1.0  # 10 ** decimals: each product exact (below 2**53)
    cdef int digits = 0
    cdef int decimals = 0
    cdef unsigned char c
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
            power *= 10.0
            at += 1
        if decimals == 0:
            return -1
    if digits > 15:
        return -1
    out[0] = <double>whole / power
    return at
