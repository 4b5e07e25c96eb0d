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
    # active set (shrinking): columns are computed on the n_act entries
    # act[:n_act] only; a cached column stays valid while the active set
    # shrinks, and is recomputed after it grows back (gen changes)
    cdef int *act                   # active column indices, increasing
    cdef int *act_rows              # rows[act[k]]
    cdef readonly Py_ssize_t n_act
    cdef int gen
    cdef int *slot_gen              # slot -> gen its column was computed in
    cdef bint gather                # dense data: rows of the active set are
    cdef void *xg                   # gathered (n_act x d, X's dtype) for gemv
    cdef double *dots               # m scratch values (float64 dots / column)
    cdef float *dots32              # m scratch values (float32 dots)

    cdef const double *get_col(self, Py_ssize_t j) noexcept nogil
    cdef double kernel_self_dot(self, Py_ssize_t r) noexcept nogil
    cdef void kernel_row(self, Py_ssize_t r, const int *targets,
                         Py_ssize_t n_targets, double *out) noexcept nogil
    cdef double kernel_diag(self, Py_ssize_t r) noexcept nogil
    cdef void set_active(self, const int *act, Py_ssize_t n_act) noexcept nogil
    cdef void unshrink(self) noexcept nogil
    cdef void _fill(self, Py_ssize_t j, double *col) noexcept nogil
    cdef void weighted_sums(self, const int *rows_a, Py_ssize_t n_a,
                            const int *rows_b, Py_ssize_t n_b,
                            const double *wts, double *tmp,
                            double *out) noexcept nogil
