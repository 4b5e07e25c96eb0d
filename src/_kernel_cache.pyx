# SPDX-License-Identifier: BSD-3-Clause
"""LRU cache of kernel columns computed on demand from the data (never n x n).

Column j of the cache is ``K[rows, rows[j]]``, i.e. the kernel between row
``rows[j]`` of X and the m rows listed in ``rows`` (for USMO: the unlabeled
rows). Kernels, with x, y rows of X (dense or CSR, float32 or float64):

    linear        k(x, y) = x . y
    rbf           k(x, y) = exp(-gamma ||x - y||^2)
    poly          k(x, y) = (gamma x . y + coef0) ** degree
    precomputed   k(x_r, x_c) = X[r, c]   (X is the square training Gram matrix)

Values are computed and stored in float64 whatever X's dtype. The buffer holds
``n_slots = clip(cache_size_bytes // (8 m), 2, m)`` columns; the least
recently used column is evicted first, so the two columns of an SMO pair
(fetched one after the other) never evict each other. The cache is a budget in
the LIBSVM sense (``cache_size`` in MB, as scikit-learn's SVC).

Shrinking (LIBSVM style): a solver may restrict the columns to an active set
of entries with ``set_active`` (only ever shrinking it) and restore the whole
set with ``unshrink``. Columns are then computed on the active entries only
(the others are left stale); a column cached while the active set shrinks
stays valid, and every column is recomputed after ``unshrink``.

On dense data (not precomputed) the rows of the active set are gathered into
one contiguous block, so a column is one BLAS matrix-vector product (float32
``sgemv`` for float32 data, float64 ``dgemv`` otherwise) followed by the
kernel map; sparse and precomputed data use the row loops below.
"""

import numpy as np

from cython cimport floating
from libc.math cimport exp
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy
from semisvm._core._blas cimport _gemv_rm
from semisvm._core._dataset cimport RowData, row_view

KERNEL_CODES = {"linear": KERNEL_LINEAR, "rbf": KERNEL_RBF, "poly": KERNEL_POLY,
                "precomputed": KERNEL_PRECOMPUTED}


cdef inline double _ipow(double base, int degree) noexcept nogil:
    cdef double r = 1.0
    cdef int _k
    for _k in range(degree):
        r *= base
    return r


cdef inline double _from_dot(KernelCache c, double dot, Py_ssize_t r,
                             Py_ssize_t t) noexcept nogil:
    """Kernel value from the inner product of rows r and t."""
    cdef double d2
    if c.kernel == KERNEL_LINEAR:
        return dot
    if c.kernel == KERNEL_RBF:
        # ||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y, clipped at 0 (rounding)
        d2 = c.sqnorm[r] + c.sqnorm[t] - 2.0 * dot
        return exp(-c.gamma * (d2 if d2 > 0 else 0.0))
    return _ipow(c.gamma * dot + c.coef0, c.degree)


cdef void _kernel_row(KernelCache c, RowData X, floating *work, Py_ssize_t r,
                      const int *targets, Py_ssize_t n_targets,
                      double *out) noexcept nogil:
    """out[t] = k(x_r, x_{targets[t]}) for t < n_targets (X is c.X)."""
    cdef const floating *vr
    cdef const floating *vt
    cdef const int *ir
    cdef const int *it
    cdef const floating *xr
    cdef Py_ssize_t k, t, row, nnz_r, nnz_t, d = X.n_cols
    cdef double s, diff
    nnz_r = row_view(X, r, &vr, &ir)
    if X.indptr == NULL:
        xr = vr
    else:
        # scatter the sparse row r into the zeroed dense work vector
        for k in range(nnz_r):
            work[ir[k]] = vr[k]
        xr = work
    if c.kernel == KERNEL_PRECOMPUTED:
        # out = X[r, targets] (the Gram matrix is symmetric)
        for t in range(n_targets):
            out[t] = xr[targets[t]]
    elif X.indptr == NULL and c.kernel == KERNEL_RBF:
        # dense RBF: the distance itself, accumulated in float64
        for t in range(n_targets):
            row = targets[t]
            vt = (<const floating *> X.data) + row * d
            s = 0.0
            for k in range(d):
                diff = <double> xr[k] - <double> vt[k]
                s += diff * diff
            out[t] = exp(-c.gamma * s)
    elif X.indptr == NULL:
        # dense linear/poly: plain dot products, accumulated in float64
        for t in range(n_targets):
            row = targets[t]
            vt = (<const floating *> X.data) + row * d
            s = 0.0
            for k in range(d):
                s += <double> vt[k] * <double> xr[k]
            out[t] = _from_dot(c, s, r, row)
    else:
        # sparse: x_t . x_r over x_t's stored entries (x_r is scattered)
        for t in range(n_targets):
            row = targets[t]
            nnz_t = row_view(X, row, &vt, &it)
            s = 0.0
            for k in range(nnz_t):
                s += <double> vt[k] * <double> xr[it[k]]
            out[t] = _from_dot(c, s, r, row)
    if X.indptr != NULL:
        for k in range(nnz_r):
            work[ir[k]] = 0
    return


cdef void _gather(KernelCache c, RowData X, const floating *dummy) noexcept nogil:
    """Copy the active rows of dense X into c.xg (n_act x d, X's dtype)."""
    cdef Py_ssize_t k, d = X.n_cols
    cdef floating *dst = <floating *> c.xg
    cdef const floating *src = <const floating *> X.data
    for k in range(c.n_act):
        memcpy(dst + k * d, src + <Py_ssize_t> c.act_rows[k] * d,
               d * sizeof(floating))


cdef bint _wsums_blas(KernelCache c, RowData X, const floating *dummy,
                      const int *rows_a, Py_ssize_t n_a, const int *rows_b,
                      Py_ssize_t n_b, const double *wts, double *tmp,
                      double *out) noexcept nogil:
    """Dense rows: gather rows_b once, one gemv per row of rows_a."""
    cdef Py_ssize_t a, b, d = X.n_cols, r
    cdef floating *xb = <floating *> malloc(n_b * d * sizeof(floating))
    cdef floating *dots = <floating *> malloc(n_b * sizeof(floating))
    cdef const floating *src = <const floating *> X.data
    cdef double acc
    if xb == NULL or dots == NULL:
        free(xb)
        free(dots)
        return False
    for b in range(n_b):
        memcpy(xb + b * d, src + <Py_ssize_t> rows_b[b] * d, d * sizeof(floating))
    for a in range(n_a):
        r = rows_a[a]
        _gemv_rm(<int> n_b, <int> d, <floating> 1.0, xb, src + r * d,
                 <floating> 0.0, dots)
        acc = 0.0
        for b in range(n_b):
            acc += wts[b] * _from_dot(c, <double> dots[b], r, rows_b[b])
        out[a] = acc
    free(xb)
    free(dots)
    return True


cdef void _regather(KernelCache c) noexcept nogil:
    cdef const float *d32 = NULL
    cdef const double *d64 = NULL
    if not c.gather:
        return
    if c.X.is_float32:
        _gather(c, c.X, d32)
    else:
        _gather(c, c.X, d64)


cdef void _gemv_col(KernelCache c, RowData X, const floating *dummy,
                    Py_ssize_t r, double *col) noexcept nogil:
    """col[act[k]] = k(x_r, x_{act_rows[k]}) through one BLAS gemv."""
    cdef Py_ssize_t k, d = X.n_cols, na = c.n_act
    cdef const floating *xr = (<const floating *> X.data) + r * d
    cdef double dot
    if floating is float:
        _gemv_rm(<int> na, <int> d, <float> 1.0, <const float *> c.xg, xr,
                 <float> 0.0, c.dots32)
    else:
        _gemv_rm(<int> na, <int> d, 1.0, <const double *> c.xg, xr, 0.0, c.dots)
    for k in range(na):
        if floating is float:
            dot = <double> c.dots32[k]
        else:
            dot = c.dots[k]
        col[c.act[k]] = _from_dot(c, dot, r, c.act_rows[k])


cdef class KernelCache:
    """Kernel columns over ``rows`` of X with an LRU budget of ``cache_size`` MB.

    Parameters
    ----------
    X : RowData
        Validated data (or the square Gram matrix for ``kernel="precomputed"``).
    rows : int32 ndarray of shape (m,)
        Rows of X that index the cached columns (each in [0, X.n_rows)).
    kernel : int
        One of ``KERNEL_CODES``.
    gamma, coef0 : float
        Kernel parameters (see the module docstring).
    degree : int
        Polynomial degree (>= 0).
    cache_size : float
        Budget in MB (2**20 bytes); at least two columns are always kept.
    """

    def __init__(self, RowData X, const int[::1] rows, int kernel, double gamma,
                 double coef0, int degree, double cache_size):
        cdef Py_ssize_t m = rows.shape[0], i, n_slots
        cdef double[::1] sq
        cdef double[::1] buf
        cdef int[::1] slot_of, owner, prev, nxt
        cdef double[::1] w64
        cdef float[::1] w32
        cdef int[::1] act, act_rows, slot_gen
        cdef double[::1] dots
        cdef float[::1] dots32, xg32
        cdef double[::1] xg64
        if kernel not in (KERNEL_LINEAR, KERNEL_RBF, KERNEL_POLY,
                          KERNEL_PRECOMPUTED):
            raise ValueError(f"unknown kernel code {kernel}")
        if m < 1:
            raise ValueError("rows must not be empty")
        for i in range(m):
            if not 0 <= rows[i] < X.n_rows:
                raise ValueError("rows must index rows of X")
        if kernel == KERNEL_PRECOMPUTED and X.n_rows != X.n_cols:
            raise ValueError("a precomputed kernel must be a square matrix")
        if degree < 0:
            raise ValueError(f"degree must be >= 0, got {degree}")
        self.X = X
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.m = m
        self.rows = &rows[0]
        n_slots = <Py_ssize_t> (cache_size * 1048576.0 / (8.0 * m))
        n_slots = min(max(n_slots, 2), m)
        self.n_slots = n_slots
        buf = np.zeros(n_slots * m, dtype=np.float64)
        slot_of = np.full(m, -1, dtype=np.int32)
        owner = np.full(n_slots, -1, dtype=np.int32)
        prev = np.full(n_slots, -1, dtype=np.int32)
        nxt = np.full(n_slots, -1, dtype=np.int32)
        sq = np.zeros(X.n_rows, dtype=np.float64)
        w64 = np.zeros(max(X.n_cols, 1), dtype=np.float64)
        w32 = np.zeros(max(X.n_cols, 1), dtype=np.float32)
        self.buf = &buf[0]
        self.slot_of = &slot_of[0]
        self.owner = &owner[0]
        self.prev = &prev[0]
        self.next = &nxt[0]
        self.sqnorm = &sq[0]
        self.work64 = &w64[0]
        self.work32 = &w32[0]
        self.head = -1
        self.tail = -1
        self.n_used = 0
        self.hits = 0
        self.misses = 0
        act = np.arange(m, dtype=np.int32)
        act_rows = np.array(rows, dtype=np.int32)
        slot_gen = np.zeros(n_slots, dtype=np.int32)
        dots = np.zeros(m, dtype=np.float64)
        dots32 = np.zeros(m, dtype=np.float32)
        self.act = &act[0]
        self.act_rows = &act_rows[0]
        self.n_act = m
        self.gen = 0
        self.slot_gen = &slot_gen[0]
        self.dots = &dots[0]
        self.dots32 = &dots32[0]
        self.gather = (not X.is_sparse and kernel != KERNEL_PRECOMPUTED
                       and X.n_cols > 0)
        xg = None
        self.xg = NULL
        if self.gather and X.is_float32:
            xg = xg32 = np.zeros(m * X.n_cols, dtype=np.float32)
            self.xg = <void *> &xg32[0]
        elif self.gather:
            xg = xg64 = np.zeros(m * X.n_cols, dtype=np.float64)
            self.xg = <void *> &xg64[0]
        # keep every buffer alive as long as the pointers above
        self._refs = (rows, buf, slot_of, owner, prev, nxt, sq, w64, w32, act,
                      act_rows, slot_gen, dots, dots32, xg)
        if self.gather:
            with nogil:
                _regather(self)
        if kernel == KERNEL_RBF:
            with nogil:
                for i in range(X.n_rows):
                    self.sqnorm[i] = self.kernel_self_dot(i)

    cdef double kernel_self_dot(self, Py_ssize_t r) noexcept nogil:
        """||x_r||^2 in float64."""
        cdef const float *v32
        cdef const double *v64
        cdef const int *ix
        cdef Py_ssize_t k, nnz
        cdef double s = 0.0
        if self.X.is_float32:
            nnz = row_view(self.X, r, &v32, &ix)
            for k in range(nnz):
                s += <double> v32[k] * <double> v32[k]
        else:
            nnz = row_view(self.X, r, &v64, &ix)
            for k in range(nnz):
                s += v64[k] * v64[k]
        return s

    cdef void kernel_row(self, Py_ssize_t r, const int *targets,
                         Py_ssize_t n_targets, double *out) noexcept nogil:
        """out[t] = k(x_r, x_{targets[t]}), computed (not cached)."""
        if self.X.is_float32:
            _kernel_row(self, self.X, self.work32, r, targets, n_targets, out)
        else:
            _kernel_row(self, self.X, self.work64, r, targets, n_targets, out)

    cdef double kernel_diag(self, Py_ssize_t r) noexcept nogil:
        """k(x_r, x_r)."""
        cdef double out
        cdef int rr = <int> r
        self.kernel_row(r, &rr, 1, &out)
        return out

    cdef void set_active(self, const int *act, Py_ssize_t n_act) noexcept nogil:
        """Restrict later columns to the entries act[:n_act] (increasing).

        The new active set must be a subset of the current one (cached
        columns stay valid on it); to grow it, call ``unshrink`` first.
        """
        cdef Py_ssize_t k
        for k in range(n_act):
            self.act[k] = act[k]
            self.act_rows[k] = self.rows[act[k]]
        self.n_act = n_act
        _regather(self)

    cdef void unshrink(self) noexcept nogil:
        """Make every entry active again; cached columns become stale."""
        cdef Py_ssize_t k
        if self.n_act == self.m:
            return
        for k in range(self.m):
            self.act[k] = <int> k
            self.act_rows[k] = self.rows[k]
        self.n_act = self.m
        self.gen += 1
        _regather(self)

    cdef void weighted_sums(self, const int *rows_a, Py_ssize_t n_a,
                            const int *rows_b, Py_ssize_t n_b,
                            const double *wts, double *tmp,
                            double *out) noexcept nogil:
        """out[a] = sum_b wts[b] k(x_{rows_a[a]}, x_{rows_b[b]}) (not cached).

        Dense data (not precomputed): BLAS gemv against the gathered rows_b;
        otherwise the row loops, with ``tmp`` (length n_b) as scratch.
        """
        cdef const float *d32 = NULL
        cdef const double *d64 = NULL
        cdef Py_ssize_t a, b
        cdef double acc
        if n_b <= 0:
            for a in range(n_a):
                out[a] = 0.0
            return
        if self.gather:
            if self.X.is_float32:
                if _wsums_blas(self, self.X, d32, rows_a, n_a, rows_b, n_b,
                               wts, tmp, out):
                    return
            elif _wsums_blas(self, self.X, d64, rows_a, n_a, rows_b, n_b,
                             wts, tmp, out):
                return
        for a in range(n_a):
            self.kernel_row(rows_a[a], rows_b, n_b, tmp)
            acc = 0.0
            for b in range(n_b):
                acc += wts[b] * tmp[b]
            out[a] = acc

    cdef void _fill(self, Py_ssize_t j, double *col) noexcept nogil:
        """Compute column j on the active entries."""
        cdef const float *d32 = NULL
        cdef const double *d64 = NULL
        cdef Py_ssize_t k
        if self.gather:
            if self.X.is_float32:
                _gemv_col(self, self.X, d32, self.rows[j], col)
            else:
                _gemv_col(self, self.X, d64, self.rows[j], col)
        elif self.n_act == self.m:
            self.kernel_row(self.rows[j], self.rows, self.m, col)
        else:
            self.kernel_row(self.rows[j], self.act_rows, self.n_act, self.dots)
            for k in range(self.n_act):
                col[self.act[k]] = self.dots[k]

    cdef const double *get_col(self, Py_ssize_t j) noexcept nogil:
        """Column j: k(x_{rows[v]}, x_{rows[j]}) for the active v (LRU, budgeted)."""
        cdef int slot = self.slot_of[j], p, q
        if slot >= 0:
            if self.slot_gen[slot] == self.gen:
                self.hits += 1
            else:
                # computed before the active set grew: recompute in place
                self.misses += 1
                self.slot_gen[slot] = self.gen
                self._fill(j, self.buf + <Py_ssize_t> slot * self.m)
            if slot != self.head:
                # unlink the slot and move it to the front
                p = self.prev[slot]
                q = self.next[slot]
                self.next[p] = q
                if q >= 0:
                    self.prev[q] = p
                else:
                    self.tail = p
                self.prev[slot] = -1
                self.next[slot] = self.head
                self.prev[self.head] = slot
                self.head = slot
            return self.buf + <Py_ssize_t> slot * self.m
        self.misses += 1
        if self.n_used < self.n_slots:
            slot = self.n_used
            self.n_used += 1
        else:
            # evict the least recently used column (the tail)
            slot = self.tail
            self.slot_of[self.owner[slot]] = -1
            self.tail = self.prev[slot]
            self.next[self.tail] = -1
        self.owner[slot] = <int> j
        self.slot_of[j] = slot
        self.prev[slot] = -1
        self.next[slot] = self.head
        if self.head >= 0:
            self.prev[self.head] = slot
        self.head = slot
        if self.tail < 0:
            self.tail = slot
        self.slot_gen[slot] = self.gen
        self._fill(j, self.buf + <Py_ssize_t> slot * self.m)
        return self.buf + <Py_ssize_t> slot * self.m

    def _get_col_py(self, Py_ssize_t j):
        """Test hook: a copy of column j (through the LRU cache)."""
        cdef const double *col
        if not 0 <= j < self.m:
            raise IndexError(j)
        col = self.get_col(j)
        return np.asarray(<const double[:self.m]> col).copy()

    def _set_active_py(self, const int[::1] act):
        """Test hook: ``set_active`` (act increasing, a subset of the current set)."""
        cdef Py_ssize_t k
        for k in range(act.shape[0]):
            if not 0 <= act[k] < self.m or (k > 0 and act[k] <= act[k - 1]):
                raise ValueError("act must be increasing indices in [0, m)")
        if act.shape[0]:
            self.set_active(&act[0], act.shape[0])

    def _unshrink_py(self):
        """Test hook: ``unshrink``."""
        self.unshrink()

    def _kernel_row_py(self, Py_ssize_t r, const int[::1] targets):
        """Test hook: k(x_r, x_t) for t in targets (no caching)."""
        cdef Py_ssize_t t
        cdef double[::1] out = np.zeros(targets.shape[0], dtype=np.float64)
        if not 0 <= r < self.X.n_rows:
            raise IndexError(r)
        for t in range(targets.shape[0]):
            if not 0 <= targets[t] < self.X.n_rows:
                raise IndexError(targets[t])
        if targets.shape[0]:
            self.kernel_row(r, &targets[0], targets.shape[0], &out[0])
        return np.asarray(out)
