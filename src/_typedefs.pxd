# SPDX-License-Identifier: BSD-3-Clause
"""Fixed-width scalar types shared by the Cython kernels."""

ctypedef float float32_t
ctypedef double float64_t
ctypedef int int32_t
ctypedef unsigned int uint32_t
ctypedef Py_ssize_t intp_t


# The fixed partition of an O(n) pass over the rows into chunks, by n alone
# (never the thread count): its chunks run on any number of threads and
# their sums are added in chunk order, so the same bits for any n_jobs. A
# pass of one chunk (n <= ROW_CHUNK) is the former row-order loop, bit for
# bit.
cdef enum:
    ROW_CHUNK = 65536
    MAX_CHUNKS = 1024


cdef inline Py_ssize_t row_chunks(Py_ssize_t n, Py_ssize_t *size) noexcept nogil:
    """Chunks of a pass over n rows; ``size`` receives the rows per chunk
    (the last holds the rest)."""
    cdef Py_ssize_t cs = ROW_CHUNK
    if n > <Py_ssize_t> ROW_CHUNK * MAX_CHUNKS:
        cs = (n + MAX_CHUNKS - 1) // MAX_CHUNKS
    size[0] = cs
    if n <= cs:
        return 1
    return (n + cs - 1) // cs
