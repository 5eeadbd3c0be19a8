# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Byte planes of the point codec in C (see ``codec``): every word's first byte, then every
second byte ... and back. numpy does the same with a strided copy a byte at a time, which
was most of the cost of writing a series. Built with the package (``backend/setup.py``);
where it was not, ``codec`` uses numpy's copy, the same bytes."""


def scatter(const unsigned long long[::1] words, unsigned char[::1] planes) -> None:
    """``planes[k * n + i]`` = byte ``k`` (little-endian) of ``words[i]``, n = len(words)."""
    cdef Py_ssize_t n = words.shape[0]
    cdef Py_ssize_t i, k
    if planes.shape[0] < 8 * n:
        raise ValueError("planes too small")
    with nogil:
        for k in range(8):  # one plane at a time: reads and writes in order
            for i in range(n):
                planes[k * n + i] = <unsigned char>(words[i] >> (8 * k))


def gather(
    const unsigned char[::1] planes, Py_ssize_t stride, Py_ssize_t first, unsigned long long[::1] out
) -> None:
    """``out[i]`` = the word whose byte ``k`` (little-endian) is
    ``planes[k * stride + first + i]``: the inverse of :func:`scatter` for words
    ``first ..`` of ``stride``."""
    cdef Py_ssize_t n = out.shape[0]
    cdef Py_ssize_t i, k
    if first < 0 or first + n > stride or planes.shape[0] < 8 * stride:
        raise ValueError("planes too small")
    with nogil:
        for i in range(n):
            out[i] = planes[first + i]
        for k in range(1, 8):  # one plane at a time: reads and writes in order
            for i in range(n):
                out[i] |= (<unsigned long long>planes[k * stride + first + i]) << (8 * k)
