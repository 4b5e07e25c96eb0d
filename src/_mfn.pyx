# SPDX-License-Identifier: BSD-3-Clause
"""L2-SVM-MFN: the modified finite Newton method (Sindhwani & Keerthi 2006, §2).

Minimises, over w in R^{d+1} (the last entry is the bias weight, whose feature
is the constant ``bias_scale``; it is regularised, as in the paper),

    F(w) = lam/2 ||w||^2
           + 1/2 sum_i [cpos_i max(0, 1 - o_i)^2 + cneg_i max(0, 1 + o_i)^2],
    o_i = x_i . w[:d] + bias_scale * w[d].

The supervised L2-SVM is cpos_i = c_i [y_i = +1], cneg_i = c_i [y_i = -1];
TSVM's temporary labels and DA's label probabilities use the same form, so one
solver serves all three. Each iteration fixes which loss terms are active at w,
solves the resulting regularised least-squares problem by seeded CGLS and
takes the exact line search step; it terminates finitely when the active
terms no longer change (Keerthi & DeCoste 2005).

Cold start (from w = 0): until the first point whose active set is
self-consistent, each CGLS solve stops early, once its residual has fallen by
the factor ``forcing`` (default 0.1) from its seeded start: an inexact
Newton step, as in LIBLINEAR's truncated Newton (-s 2). The reference
implementation stops after 10 iterations at tolerance 0.01 instead, which on
large noisy data needs many more outer iterations (on a 200,000 x 50,000
text-like problem this rule plus the CG preconditioner took 46 outer / 895 CG
iterations down to 7 / 147). From then on every solve runs to ``tol``;
finite termination needs one such solve whose active set is unchanged.
"""

import numpy as np

from cython cimport floating
from semisvm._core._blas cimport _dot, _copy
from semisvm._core._dataset cimport RowData, row_dot, row_view
from semisvm._core._cgls cimport cgls, rows_matvec
from semisvm._core._linesearch cimport Event, line_search
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs


# status codes returned to the Python layer
cdef enum:
    STATUS_OPTIMAL = 0       # active set unchanged at the CGLS solution
    STATUS_RELATIVE = 1      # relative objective decrease below rel_tol
    STATUS_MAX_ITER = 2      # max_iter outer iterations used


cdef inline double _objective(Py_ssize_t D, Py_ssize_t n, double lam,
                              const floating *w, const floating *o,
                              const floating *cpos,
                              const floating *cneg) noexcept nogil:
    cdef Py_ssize_t i
    cdef double s = 0, m
    for i in range(n):
        m = 1.0 - o[i]
        if m > 0 and cpos[i] > 0:
            s += cpos[i] * m * m
        m = 1.0 + o[i]
        if m > 0 and cneg[i] > 0:
            s += cneg[i] * m * m
    return 0.5 * lam * _dot(<int> D, w, 1, w, 1) + 0.5 * s


cdef inline int _state(floating oi, floating cp, floating cn) noexcept nogil:
    """Bit 0: the cpos term is active (o < 1); bit 1: the cneg term (o > -1)."""
    return (cp > 0 and oi < 1) | ((cn > 0 and oi > -1) << 1)


cdef int _newton_direct(RowData X, floating bias_scale, const int *active,
                        Py_ssize_t n_act, const floating *a, const floating *t,
                        double lam, double *H, double *b,
                        floating *wbar) noexcept nogil:
    """Newton point by Cholesky: wbar = (lam I + X_J' A X_J)^-1 X_J' A t.

    For small n_features the (d+1)^2 matrix costs one pass over the active
    rows (sum of nnz_i^2 per row) and a Cholesky factorisation, far less than
    the CG iterations it replaces, and the step is exact. ``H`` ((d+1)^2) and
    ``b`` (d+1) are float64 work arrays; H is filled in its row-major upper
    triangle, which LAPACK reads as the column-major lower one. Returns 0 on
    success, else LAPACK's info (the caller then falls back to CGLS).
    """
    cdef int D = <int> (X.n_cols + 1), info = 0, one = 1
    cdef Py_ssize_t k, i, u, v, nnz, lo, hi, dcol = X.n_cols
    cdef const floating *vals
    cdef const int *ix
    cdef double ai, ati, xv
    cdef char lower = b'L'
    for u in range(<Py_ssize_t> D * D):
        H[u] = 0
    for u in range(D):
        b[u] = 0
    for k in range(n_act):
        i = active[k]
        ai = a[i]
        ati = ai * t[i]
        nnz = row_view(X, i, &vals, &ix)
        for u in range(nnz):
            xv = ai * vals[u]
            b[ix[u]] += ati * vals[u]
            # bias column (index d, value bias_scale)
            H[ix[u] * D + dcol] += xv * bias_scale
            H[ix[u] * D + ix[u]] += xv * vals[u]
            for v in range(u + 1, nnz):
                lo = ix[u]
                hi = ix[v]
                if lo > hi:
                    lo, hi = hi, lo
                # a repeated column index in one row adds 2 x_u x_v to H_uu
                H[lo * D + hi] += xv * vals[v] * (2 if lo == hi else 1)
        H[dcol * D + dcol] += ai * bias_scale * bias_scale
        b[dcol] += ati * bias_scale
    for u in range(D):
        H[u * D + u] += lam
    dpotrf(&lower, &D, H, &D, &info)
    if info != 0:
        return info
    dpotrs(&lower, &D, &one, H, &D, b, &D, &info)
    if info != 0:
        return info
    for u in range(D):
        wbar[u] = <floating> b[u]
    return 0


cdef int _mfn(RowData X, floating bias_scale, const floating *cpos,
              const floating *cneg, floating lam, floating *w, floating *o,
              floating tol, int max_iter, int cg_max_iter, bint cold_start,
              double forcing, double rel_tol, floating *wbar, floating *obar,
              floating *a,
              floating *t, int *active, floating *z, floating *q,
              floating *r, floating *p, floating *s, floating *minv,
              floating *tbuf, int n_threads, Event *events, double *hist_obj,
              int *hist_cg, int *hist_active, int *n_iter,
              double *objective, double *H, double *b) noexcept nogil:
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, i, n_act
    cdef int it, cg_iter, cg_status, same, st, status = STATUS_MAX_ITER
    cdef double F, F_new, delta
    cdef floating dl
    cdef bint loose = cold_start
    cdef floating eta = <floating> (forcing if cold_start else 0.0)
    # o = X w over all rows
    for i in range(n):
        active[i] = <int> i
    rows_matvec(X, bias_scale, active, n, w, o, n_threads)
    F = _objective(D, n, lam, w, o, cpos, cneg)
    hist_obj[0] = F
    n_iter[0] = 0

    for it in range(1, max_iter + 1):
        n_iter[0] = it
        # active terms at o give the least-squares weights a_i and targets t_i:
        # cp (o-1)^2 + cn (o+1)^2 = (cp+cn) (o - (cp-cn)/(cp+cn))^2 + const
        n_act = 0
        for i in range(n):
            st = _state(o[i], cpos[i], cneg[i])
            a[i] = (cpos[i] if st & 1 else 0) + (cneg[i] if st & 2 else 0)
            if a[i] > 0:
                t[i] = ((cpos[i] if st & 1 else 0) - (cneg[i] if st & 2 else 0)) / a[i]
                active[n_act] = <int> i
                n_act += 1
            else:
                t[i] = 0
        hist_active[it - 1] = <int> n_act

        # Newton point: exact by Cholesky when H != NULL (small n_features),
        # else seeded CGLS on the active rows (which keeps obar = X wbar there)
        _copy(<int> D, w, 1, wbar, 1)
        _copy(<int> n, o, 1, obar, 1)
        if H != NULL and _newton_direct(X, bias_scale, active, n_act, a, t,
                                        lam, H, b, wbar) == 0:
            cg_status = 1
            hist_cg[it - 1] = 0
            rows_matvec(X, bias_scale, active, n_act, wbar, q, n_threads)
            for i in range(n_act):
                obar[active[i]] = q[i]
        else:
            # (a failed factorisation leaves wbar = w: CGLS starts from there)
            cg_status = cgls(X, bias_scale, active, n_act, a, t, lam, wbar,
                             obar, tol, eta, cg_max_iter, z, q, r, p, s, minv,
                             tbuf, n_threads, &cg_iter)
            hist_cg[it - 1] = cg_iter
        # outputs of wbar on the inactive rows
        for i in range(n):
            if a[i] == 0:
                obar[i] = row_dot(X, i, wbar) + bias_scale * wbar[D - 1]

        # finite termination: the active terms are unchanged at wbar
        same = 1
        for i in range(n):
            if _state(obar[i], cpos[i], cneg[i]) != _state(o[i], cpos[i], cneg[i]):
                same = 0
                break
        if same:
            _copy(<int> D, wbar, 1, w, 1)
            _copy(<int> n, obar, 1, o, 1)
            F = _objective(D, n, lam, w, o, cpos, cneg)
            hist_obj[it] = F
            if cg_status == 1:
                status = STATUS_OPTIMAL
                break
            # self-consistent point of an inexact solve: solve to tol next
            loose = False
            eta = 0
            continue

        delta = line_search(D, lam, w, wbar, n, o, obar, cpos, cneg, events)
        dl = <floating> delta
        # w += delta (wbar - w);  o += delta (obar - o)
        for i in range(D):
            w[i] += dl * (wbar[i] - w[i])
        for i in range(n):
            o[i] += dl * (obar[i] - o[i])
        F_new = _objective(D, n, lam, w, o, cpos, cneg)
        hist_obj[it] = F_new
        if F - F_new <= rel_tol * abs(F_new):
            F = F_new
            if not loose:
                status = STATUS_RELATIVE
                break
            loose = False
            eta = 0
            continue
        F = F_new
    objective[0] = F
    return status


def mfn(RowData X, double bias_scale, const floating[::1] cpos,
        const floating[::1] cneg, double lam, floating[::1] w,
        double tol=1e-6, int max_iter=50, int cg_max_iter=10000,
        bint cold_start=True, double rel_tol=1e-9, double forcing=0.1,
        int n_threads=1, bint direct=False):
    """Run L2-SVM-MFN in place on ``w`` (length n_features + 1).

    Inputs must be validated by the caller (``semisvm.solvers.l2svm_mfn``):
    matching dtypes and lengths, finite non-negative costs, ``lam > 0``.

    Returns
    -------
    o : ndarray (n_rows,)
        Outputs X w (bias included) at the returned w.
    n_iter, n_cg_iter, status, objective, hist_obj, hist_cg, hist_active
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1
    cdef bint is32 = False
    if floating is float:
        is32 = True
    if is32 != X.is_float32:
        raise TypeError("cpos, cneg and w must have X's dtype")
    if cpos.shape[0] != n or cneg.shape[0] != n or w.shape[0] != D:
        raise ValueError("cpos/cneg need n_rows entries and w n_cols + 1")
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam!r}")
    if max_iter < 1 or cg_max_iter < 1 or n_threads < 1:
        raise ValueError("max_iter, cg_max_iter and n_threads must be >= 1")
    dt = np.float32 if is32 else np.float64
    nn = max(n, 1)
    cdef floating[::1] o = np.zeros(nn, dtype=dt)
    cdef floating[::1] obar = np.zeros(nn, dtype=dt)
    cdef floating[::1] a = np.zeros(nn, dtype=dt)
    cdef floating[::1] t = np.zeros(nn, dtype=dt)
    cdef floating[::1] z = np.zeros(nn, dtype=dt)
    cdef floating[::1] q = np.zeros(nn, dtype=dt)
    cdef int[::1] active = np.zeros(nn, dtype=np.int32)
    cdef floating[::1] wbar = np.zeros(D, dtype=dt)
    cdef floating[::1] r = np.zeros(D, dtype=dt)
    cdef floating[::1] p = np.zeros(D, dtype=dt)
    cdef floating[::1] s = np.zeros(D, dtype=dt)
    cdef floating[::1] minv = np.zeros(D, dtype=dt)
    cdef floating[::1] tbuf = np.zeros(D * n_threads, dtype=dt)
    # Newton systems by Cholesky: (d+1)^2 float64 work matrix
    Hbuf = np.zeros(D * D if direct else 1)
    bbuf = np.zeros(D if direct else 1)
    cdef double[::1] H_v = Hbuf, b_v = bbuf
    cdef double *H_ptr = &H_v[0] if direct else NULL
    ev = np.empty(2 * nn * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] ev_raw = ev
    hobj = np.full(max_iter + 1, np.nan)
    hcg = np.zeros(max_iter, dtype=np.int32)
    hact = np.zeros(max_iter, dtype=np.int32)
    cdef double[::1] hobj_v = hobj
    cdef int[::1] hcg_v = hcg, hact_v = hact
    cdef int n_iter = 0, status
    cdef double objective = 0
    with nogil:
        status = _mfn(X, <floating> bias_scale, &cpos[0], &cneg[0],
                      <floating> lam, &w[0], &o[0],
                      <floating> tol, max_iter, cg_max_iter, cold_start,
                      forcing, rel_tol,
                      &wbar[0], &obar[0], &a[0], &t[0], &active[0], &z[0],
                      &q[0], &r[0], &p[0], &s[0], &minv[0], &tbuf[0], n_threads,
                      <Event *> &ev_raw[0], &hobj_v[0],
                      &hcg_v[0], &hact_v[0], &n_iter, &objective, H_ptr,
                      &b_v[0])
    return (np.asarray(o)[:n], n_iter, int(hcg[:n_iter].sum()), status,
            objective, hobj[:n_iter + 1].copy(), hcg[:n_iter].copy(),
            hact[:n_iter].copy())
