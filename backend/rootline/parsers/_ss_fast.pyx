# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The ``ss`` parser's number reading in C (see ``ss._batch_numbers``): every run of digits
and dots in a batch of info lines, as float64, in one pass. Built with the package
(``backend/setup.py``); where it was not, or a run is not a plain decimal number (see
``_decimal.pxd``: ``1.2.3``, a lone dot, ``.5``, more than 15 digits), the batch is read by
pyarrow or numpy as before, which give the same numbers bit for bit where both read."""

import numpy as np

from rootline.parsers._decimal cimport plain_decimal


def numbers(const unsigned char[::1] text):
    """The numbers of ``text`` (ASCII bytes): each maximal run of digits and dots, in order;
    None when a run is not a plain decimal number."""
    cdef Py_ssize_t size = text.shape[0]
    out_array = np.empty(size // 2 + 1, dtype=np.float64)
    cdef double[::1] out = out_array
    cdef Py_ssize_t at = 0, end, count = 0
    cdef unsigned char c
    cdef bint refused = False
    if size == 0:
        return out_array[:0]
    with nogil:
        while at < size:
            c = text[at]
            if <unsigned char>(c - 48) >= 10 and c != 46:
                at += 1
                continue
            end = plain_decimal(&text[0], at, size, &out[count])
            if end < 0 or (end < size and (text[end] == 46 or <unsigned char>(text[end] - 48) < 10)):
                refused = True
                break
            count += 1
            at = end
    if refused:
        return None
    return out_array[:count]
