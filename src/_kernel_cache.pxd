# SPDX-License-Identifier: BSD-3-Clause
"""Kernel columns computed from the data, kept in an LRU cache with a budget."""

from semisvm._core._dataset cimport RowData

# kernel codes (shared with the Python layer through KERNEL_CODES)
cdef enum:
    KERNEL_LINEAR = 0
    KERNEL_RBF = 1
    KERNEL_POLY = 2
    KERNEL_PRECOMPUTED = 3


cdef class KernelCache:
    cdef RowData X
    cdef int kernel
    cdef double gamma
    cdef double coef0
    cdef int degree
    cdef const int *rows            # the m rows of X that index the columns
    cdef readonly Py_ssize_t m      # column length (and number of columns)
    cdef readonly Py_ssize_t n_slots
    cdef double *buf                # n_slots x m column values
    cdef int *slot_of               # column -> slot, -1 when not cached
    cdef int *owner                 # slot -> column
    cdef int *prev                  # LRU list over slots: head = most recent
    cdef int *next
    cdef int head
    cdef int tail
    cdef int n_used
    cdef readonly long long hits
    cdef readonly long long misses
    cdef double *sqnorm             # ||x_r||^2 of every row of X (RBF)
    cdef double *work64             # scatter buffer for one sparse row
    cdef float *work32
    cdef object _refs

    cdef const double *get_col(self, Py_ssize_t j) noexcept nogil
    cdef double kernel_self_dot(self, Py_ssize_t r) noexcept nogil
    cdef void kernel_row(self, Py_ssize_t r, const int *targets,
                         Py_ssize_t n_targets, double *out) noexcept nogil
    cdef double kernel_diag(self, Py_ssize_t r) noexcept nogil
