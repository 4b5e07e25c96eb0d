# SPDX-License-Identifier: BSD-3-Clause
"""USMO with the linear kernel and an explicit w (LIBLINEAR-style).

Same reduced dual as ``_smo`` (see its docstring), with k(x, x') = x . x'.
Instead of kernel columns, w = c1 sum_P x_p - sum_U s_u x_u is kept
explicitly (float64, length d), so F_u = w . x_u costs one row's stored
entries and a pair step updates w with two rows; no n x n object and no
kernel column is ever formed, and sparse rows are never densified.

Pairs come from passes, not from a global scan per step. Each pass computes F
exactly for all unlabeled rows (O(nnz)), stops on the complete
tau-optimality test ``max b - min a <= tol``, and otherwise sorts the
candidates to move up by a (ascending) and to move down by b (descending)
and walks the two lists in step: the k-th up candidate is paired with the
k-th down candidate while their (stale) values still violate; F_i and F_j are
recomputed exactly from the current w before each exact pair step
(``_smo._pair_t``), and each variable moves at most once per pass. The first
pair of a pass is the maximal violating pair, so each pass makes progress.
"""

import numpy as np

from cython cimport floating
from libc.math cimport INFINITY
from semisvm._core._cgls cimport interrupted, reraise
from semisvm._core._dataset cimport RowData, row_axpy, row_dot, row_view
from semisvm._core._smo cimport _pair_update

cdef enum:
    STATUS_OPTIMAL = 0
    STATUS_MAX_ITER = 1
    STATUS_STALLED = 2
    STATUS_INTERRUPTED = 3  # a signal handler raised (Ctrl-C); exception set


cdef inline double _wdot(RowData X, const floating *dummy, Py_ssize_t r,
                         const double *w) noexcept nogil:
    """x_r . w (``dummy`` only selects the fused specialisation).

    float64 data: ``RowData.row_dot`` (BLAS on dense rows). float32 data
    keeps w in float64 (the row kernels work in the data's precision), so
    the product is accumulated here in float64.
    """
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz
    cdef double s = 0.0
    if floating is double:
        return row_dot(X, r, w)
    nnz = row_view(X, r, &v, &ix)
    if X.indptr == NULL:
        for k in range(nnz):
            s += v[k] * w[k]
    else:
        for k in range(nnz):
            s += v[k] * w[ix[k]]
    return s


cdef inline void _waxpy(RowData X, const floating *dummy, Py_ssize_t r,
                        double a, double *w) noexcept nogil:
    """w += a x_r (float64 data: ``RowData.row_axpy``; see ``_wdot``)."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz
    if floating is double:
        row_axpy(X, r, a, w)
        return
    nnz = row_view(X, r, &v, &ix)
    if X.indptr == NULL:
        for k in range(nnz):
            w[k] += a * v[k]
    else:
        for k in range(nnz):
            w[ix[k]] += a * v[k]


cdef inline double _xdot(RowData X, const floating *dummy, Py_ssize_t r,
                         Py_ssize_t q, double *work) noexcept nogil:
    """x_r . x_q; ``work`` is a zeroed length-d buffer, left zeroed."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz = row_view(X, r, &v, &ix)
    cdef double s
    for k in range(nnz):
        work[ix[k]] = v[k]
    s = _wdot(X, dummy, q, work)
    for k in range(nnz):
        work[ix[k]] = 0.0
    return s


cdef void _heapsort(double *key, int *idx, Py_ssize_t n) noexcept nogil:
    """Sort (key, idx) pairs ascending, lexicographically: equal keys end up
    in ascending idx, so the pairing is deterministic (lowest index first)."""
    cdef Py_ssize_t start, end, root, child
    cdef double tk
    cdef int ti
    if n < 2:
        return
    start = n // 2 - 1
    end = n
    while True:
        if start >= 0:
            root = start
            start -= 1
        else:
            end -= 1
            if end <= 0:
                return
            tk = key[0]
            key[0] = key[end]
            key[end] = tk
            ti = idx[0]
            idx[0] = idx[end]
            idx[end] = ti
            root = 0
        # sift key[root] down within the heap [0, end) (a max-heap on
        # (key, idx))
        while True:
            child = 2 * root + 1
            if child >= end:
                break
            if child + 1 < end and (key[child + 1] > key[child] or (
                    key[child + 1] == key[child] and idx[child + 1] > idx[child])):
                child += 1
            if key[child] > key[root] or (key[child] == key[root]
                                          and idx[child] > idx[root]):
                tk = key[root]
                key[root] = key[child]
                key[child] = tk
                ti = idx[root]
                idx[root] = idx[child]
                idx[child] = ti
                root = child
            else:
                break


cdef int _usmo_linear(RowData X, const floating *dummy, const int *urows,
                      const int *prows, Py_ssize_t n, Py_ssize_t n_p, double c1,
                      double c2, double *s, double tol, long long max_iter,
                      double *w, double *F, double *G, double *sq,
                      double *work, double *akey, int *aidx, double *bkey,
                      int *bidx, long long *stamp, double *hist,
                      Py_ssize_t n_hist_max, long long *n_iter,
                      long long *n_pass, double *bias, double *violation,
                      Py_ssize_t *n_hist) noexcept nogil:
    cdef Py_ssize_t u, i, j, na, nb, pa, pb, nh = 0, n_free
    cdef long long it = 0, pss = 0
    cdef int status = STATUS_MAX_ITER
    cdef double half = 0.5 * c2, amin, bmax, g, v, si, sj, eta
    cdef double new_si, new_sj, dsi, dsj, ai, bj, acc
    cdef bint moved

    # w = c1 sum_P x_p - sum_U s_u x_u; sq_u = ||x_u||^2
    for u in range(n_p):
        _waxpy(X, dummy, prows[u], c1, w)
    for u in range(n):
        if s[u] != 0:
            _waxpy(X, dummy, urows[u], -s[u], w)
        sq[u] = _xdot(X, dummy, urows[u], urows[u], work)
        stamp[u] = -1

    while True:
        if interrupted():  # Ctrl-C, once per pass over the rows
            status = STATUS_INTERRUPTED
            break
        # exact F and the complete tau-optimality test
        amin = INFINITY
        bmax = -INFINITY
        for u in range(n):
            F[u] = _wdot(X, dummy, urows[u], w)
            g = -F[u]
            if s[u] < c2:
                v = g - 1.0 if s[u] < half else g + 1.0
                if v < amin:
                    amin = v
            if s[u] > 0:
                v = g - 1.0 if s[u] <= half else g + 1.0
                if v > bmax:
                    bmax = v
        violation[0] = bmax - amin
        if nh < n_hist_max:
            hist[nh] = bmax - amin
            nh += 1
        if bmax - amin <= tol:
            status = STATUS_OPTIMAL
            break
        if it >= max_iter:
            status = STATUS_MAX_ITER
            break
        # candidates: a_u below bmax - tol (up), b_u above amin + tol (down)
        na = 0
        nb = 0
        for u in range(n):
            g = -F[u]
            if s[u] < c2:
                v = g - 1.0 if s[u] < half else g + 1.0
                if v < bmax - tol:
                    akey[na] = v
                    aidx[na] = <int> u
                    na += 1
            if s[u] > 0:
                v = g - 1.0 if s[u] <= half else g + 1.0
                if v > amin + tol:
                    bkey[nb] = -v
                    bidx[nb] = <int> u
                    nb += 1
        _heapsort(akey, aidx, na)
        _heapsort(bkey, bidx, nb)
        pa = 0
        pb = 0
        moved = False
        while pa < na and pb < nb and it < max_iter:
            i = aidx[pa]
            j = bidx[pb]
            if stamp[i] == pss:
                pa += 1
                continue
            if stamp[j] == pss or i == j:
                pb += 1
                continue
            if akey[pa] + bkey[pb] >= -tol:
                break               # stale values no longer violate
            si = s[i]
            sj = s[j]
            # exact values at the current w
            ai = -_wdot(X, dummy, urows[i], w)
            bj = -_wdot(X, dummy, urows[j], w)
            g = ai - bj             # F_j - F_i = (-b_j) - (-a_i) before the slopes
            ai += -1.0 if si < half else 1.0
            bj += -1.0 if sj <= half else 1.0
            stamp[i] = pss
            stamp[j] = pss
            pa += 1
            pb += 1
            if ai - bj >= 0:
                continue
            eta = sq[i] + sq[j] - 2.0 * _xdot(X, dummy, urows[i], urows[j], work)
            _pair_update(si, sj, g, eta, c2, &new_si, &new_sj)
            dsi = new_si - si
            dsj = new_sj - sj
            it += 1
            if dsi == 0 and dsj == 0:
                continue
            moved = True
            s[i] = new_si
            s[j] = new_sj
            # w = c1 sum_P x_p - sum_U s_u x_u
            _waxpy(X, dummy, urows[i], -dsi, w)
            _waxpy(X, dummy, urows[j], -dsj, w)
        pss += 1
        if not moved and it < max_iter:
            status = STATUS_STALLED
            break

    if status == STATUS_MAX_ITER:
        for u in range(n):
            F[u] = _wdot(X, dummy, urows[u], w)
    n_iter[0] = it
    n_pass[0] = pss
    n_hist[0] = nh
    # the bias (eq. 16) and G_p = w . x_p
    acc = 0.0
    n_free = 0
    amin = INFINITY
    bmax = -INFINITY
    for u in range(n):
        g = -F[u]
        if 0 < s[u] < c2 and s[u] != half:
            acc += g - 1.0 if s[u] < half else g + 1.0
            n_free += 1
        if s[u] < c2:
            v = g - 1.0 if s[u] < half else g + 1.0
            amin = v if v < amin else amin
        if s[u] > 0:
            v = g - 1.0 if s[u] <= half else g + 1.0
            bmax = v if v > bmax else bmax
    violation[0] = bmax - amin
    bias[0] = acc / n_free if n_free > 0 else 0.5 * (amin + bmax)
    for u in range(n_p):
        G[u] = _wdot(X, dummy, prows[u], w)
    return status


def usmo_linear(RowData X, const int[::1] urows, const int[::1] prows,
                double c1, double c2, double[::1] s, double tol,
                long long max_iter):
    """Linear-kernel USMO with explicit w; ``s`` (feasible) is updated in place.

    Returns ``(w, F, G, n_iter, n_pass, status, bias, violation, history)``:
    w over the features, F = w . x_u over U, G = w . x_p over P, status 0
    optimal, 1 max_iter (pair steps), 2 stalled; history holds the violation
    at the start of each pass.
    """
    cdef Py_ssize_t n = urows.shape[0], n_p = prows.shape[0], u, n_hist = 0
    cdef Py_ssize_t d = X.n_cols
    cdef long long n_iter = 0, n_pass = 0
    cdef double bias = 0.0, violation = 0.0
    cdef int status
    if n < 1 or s.shape[0] != n:
        raise ValueError("urows and s must be non-empty and of the same length")
    if max_iter < 0:
        raise ValueError("max_iter must be >= 0")
    for u in range(n):
        if not 0 <= urows[u] < X.n_rows:
            raise IndexError(urows[u])
    for u in range(n_p):
        if not 0 <= prows[u] < X.n_rows:
            raise IndexError(prows[u])
    cdef double[::1] w = np.zeros(max(d, 1), dtype=np.float64)
    cdef double[::1] work = np.zeros(max(d, 1), dtype=np.float64)
    cdef double[::1] F = np.zeros(n, dtype=np.float64)
    cdef double[::1] G = np.zeros(max(n_p, 1), dtype=np.float64)
    cdef double[::1] sq = np.zeros(n, dtype=np.float64)
    cdef double[::1] akey = np.zeros(n, dtype=np.float64)
    cdef double[::1] bkey = np.zeros(n, dtype=np.float64)
    cdef int[::1] aidx = np.zeros(n, dtype=np.int32)
    cdef int[::1] bidx = np.zeros(n, dtype=np.int32)
    cdef long long[::1] stamp = np.zeros(n, dtype=np.int64)
    cdef double[::1] hist = np.zeros(4096, dtype=np.float64)
    cdef const int *pp = &prows[0] if n_p > 0 else NULL
    cdef const float *d32 = NULL
    cdef const double *d64 = NULL
    with nogil:
        if X.is_float32:
            status = _usmo_linear(X, d32, &urows[0], pp, n, n_p, c1, c2, &s[0],
                                  tol, max_iter, &w[0], &F[0], &G[0], &sq[0],
                                  &work[0], &akey[0], &aidx[0], &bkey[0],
                                  &bidx[0], &stamp[0], &hist[0], 4096,
                                  &n_iter, &n_pass, &bias, &violation, &n_hist)
        else:
            status = _usmo_linear(X, d64, &urows[0], pp, n, n_p, c1, c2, &s[0],
                                  tol, max_iter, &w[0], &F[0], &G[0], &sq[0],
                                  &work[0], &akey[0], &aidx[0], &bkey[0],
                                  &bidx[0], &stamp[0], &hist[0], 4096,
                                  &n_iter, &n_pass, &bias, &violation, &n_hist)
    if status == STATUS_INTERRUPTED:
        reraise()
    return (np.asarray(w)[:d], np.asarray(F), np.asarray(G)[:n_p], int(n_iter),
            int(n_pass), int(status), float(bias), float(violation),
            np.asarray(hist)[:n_hist].copy())
