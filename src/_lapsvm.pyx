# SPDX-License-Identifier: BSD-3-Clause
"""Laplacian SVM / RLS in the primal: PCG with exact line search.

Melacci & Belkin, "Laplacian Support Vector Machines Trained in the Primal"
(JMLR 2011), eqs. 7-13. With f = K alpha + b 1 over all n points, y_i = +-1 on
the labeled points, the objective is

    F(alpha, b) = 1/2 [ sum_{i in E} (f_i - y_i)^2 + gamma_A alpha' K alpha
                        + gamma_I f' L f ],

E = {labeled i : y_i f_i < 1} for the squared hinge (LapSVM), E = all labeled
points for the squared loss (LapRLS). Gradient: grad_alpha = K g, with
g = gamma_A alpha + I_E (f - y) + gamma_I L f, and grad_b = 1' (I_E (f - y)
+ gamma_I L f). The preconditioner P = blockdiag(K, 1) turns the gradient into
(g, grad_b), so preconditioned CG needs one product K g per iteration and
never a solve with K. Directions follow Polak-Ribiere with automatic restart
(beta clipped at 0); the step is the exact minimiser of F along the direction,
found by walking the sorted hinge break points (F is piecewise quadratic).

The bias sits inside f' L f (for the unnormalised Laplacian L 1 = 0, so this
is the paper's objective; for the normalised one it keeps the bias well
defined).
"""

import numpy as np

from libc.math cimport INFINITY, fabs, sqrt
from libc.stdlib cimport calloc, free, malloc
from cython.parallel cimport parallel, prange
from cython cimport floating
from semisvm._core._blas cimport _dot, _axpy, _copy, _gemv_rm, _gemm_rm
from semisvm._core._linesearch cimport Event, sorted_root
from semisvm._core._cgls cimport check_period, interrupted, reraise
from semisvm._core._dataset cimport RowData

# early-stopping rules (the Python layer maps names to these codes)
cdef enum:
    RULE_NONE = 0          # only the gradient tolerance, no early stop
    RULE_STABILITY = 1     # unlabeled decisions stable (fraction < eta)
    RULE_VALIDATION = 2    # validation error stopped decreasing
    RULE_MIXED = 3         # both of the above
    RULE_GRADIENT = 4      # ||grad|| / ||grad_0|| < tol
    RULE_PGRADIENT = 5     # ||P^-1 grad|| / ||P^-1 grad_0|| < tol
    RULE_PNORM = 6         # sqrt(grad' P^-1 grad) / (same at start) < tol
    RULE_OBJECTIVE = 7     # (F_prev - F) / F_0 < tol

# status codes returned to the Python layer
cdef enum:
    STATUS_TOL = 0         # the classical rule's tolerance was met
    STATUS_STABILITY = 1
    STATUS_VALIDATION = 2
    STATUS_MIXED = 3
    STATUS_NO_DESCENT = 4  # exact line search found no decrease: optimal
    STATUS_MAX_ITER = 5


cdef double _line_search(Py_ssize_t n_lab, const int *lab, const floating *y,
                         const floating *f, const floating *df, double left,
                         double right, bint hinge, Event *brk) noexcept nogil:
    """argmin_{s >= 0} of F along f + s df.

    ``left + s right`` is the slope of the quadratic (regulariser) part; each
    labeled point adds do_i (o_i + s do_i - y_i) while it is in E. A point
    leaves E where y_i (o_i + s do_i) = 1, i.e. s_i = (y_i - o_i) / do_i.
    ``brk`` holds >= n_lab slots.
    """
    cdef Py_ssize_t j, i, n_brk = 0
    cdef double L = left, R = right, o, do, yi
    for j in range(n_lab):
        i = lab[j]
        o = f[i]
        do = df[i]
        yi = y[i]
        if not hinge or yi * o < 1:
            L += do * (o - yi)
            R += do * do
            if hinge and yi * do > 0:      # leaves E at s_i > 0
                brk[n_brk].delta = (yi - o) / do
                brk[n_brk].dL = -do * (o - yi)
                brk[n_brk].dR = -do * do
                brk[n_brk].key = i
                n_brk += 1
        elif yi * do < 0:                  # enters E at s_i >= 0
            brk[n_brk].delta = (yi - o) / do
            brk[n_brk].dL = do * (o - yi)
            brk[n_brk].dR = do * do
            brk[n_brk].key = i
            n_brk += 1
    # phi'(0) >= 0: no descent along this direction
    if L >= 0 or R <= 0:
        return 0.0
    return sorted_root(brk, n_brk, L, R)


cdef inline void _spmv(Py_ssize_t n, const int *indptr, const int *indices,
                       const floating *data, const floating *x,
                       floating *out) noexcept nogil:
    # out = L @ x (CSR)
    cdef Py_ssize_t i, p
    cdef double acc
    for i in range(n):
        acc = 0
        for p in range(indptr[i], indptr[i + 1]):
            acc += data[p] * x[indices[p]]
        out[i] = acc


cdef inline void _lmv(RowData L, const floating *x,
                      floating *out) noexcept nogil:
    # out = L @ x: BLAS gemv when L is held dense (a nearly full L^p), else CSR
    cdef Py_ssize_t n = L.n_rows
    if L.indptr == NULL:
        _gemv_rm(<int> n, <int> n, 1, <const floating *> L.data, x, 0, out)
    else:
        _spmv(n, L.indptr, L.indices, <const floating *> L.data, x, out)


cdef inline void _lmv_pow(RowData L, int power, const floating *x,
                          floating *out, floating *tmp) noexcept nogil:
    # out = L^power @ x by ``power`` products with L (L^p is never formed:
    # its fill grows with p, the products' cost only linearly); the
    # destinations alternate between out and tmp so that the last is out
    cdef int r
    cdef const floating *src = x
    cdef floating *dst
    for r in range(power):
        dst = out if (power - 1 - r) % 2 == 0 else tmp
        _lmv(L, src, dst)
        src = dst


cdef double _grad(Py_ssize_t n, Py_ssize_t n_lab, const int *lab,
                  const floating *y, const floating *alpha, const floating *f,
                  const floating *Lf, double gamma_A, double gamma_I, bint hinge,
                  floating *g, double *gb, double *loss) noexcept nogil:
    """g = gamma_A alpha + I_E (f - y) + gamma_I L f; returns |E|.

    ``gb`` gets 1' (I_E (f - y) + gamma_I L f), ``loss`` sum_E (f - y)^2.
    """
    cdef Py_ssize_t i, j
    cdef double s = 0, ls = 0, r, n_err = 0
    for i in range(n):
        g[i] = gamma_A * alpha[i] + gamma_I * Lf[i]
        s += gamma_I * Lf[i]
    for j in range(n_lab):
        i = lab[j]
        if not hinge or y[i] * f[i] < 1:
            r = f[i] - y[i]
            g[i] += r
            s += r
            ls += r * r
            n_err += 1
    gb[0] = s
    loss[0] = ls
    return n_err


cdef inline double _sum(Py_ssize_t n, const floating *x) noexcept nogil:
    cdef Py_ssize_t i
    cdef double s = 0
    for i in range(n):
        s += x[i]
    return s


ctypedef struct Prob:
    # scalar state of one binary problem (one column of the one-vs-rest set)
    double b, gb, gb_old, db, F, F0, crit0, err_prev
    int status, n_iter, n_chk
    bint active


cdef double _crit(int rule, Py_ssize_t n, const floating *g, const floating *Kg,
                  double gb) noexcept nogil:
    """Value of a classical rule: ||grad||, ||P^-1 grad|| or sqrt(grad'P^-1 grad)."""
    if rule == RULE_GRADIENT:
        return sqrt(_dot(<int> n, Kg, 1, Kg, 1) + gb * gb)
    if rule == RULE_PGRADIENT:
        return sqrt(_dot(<int> n, g, 1, g, 1) + gb * gb)
    return sqrt(max(_dot(<int> n, g, 1, Kg, 1), 0.0) + gb * gb)


cdef void _kg_active(Py_ssize_t n, Py_ssize_t c, const floating *K, Prob *st,
                     const floating *G, floating *KG, floating *buf,
                     floating *kbuf) noexcept nogil:
    """KG[j] = K @ G[j] for the active problems, one gemm (K read once)."""
    cdef Py_ssize_t j, m = 0
    for j in range(c):
        if st[j].active:
            _copy(<int> n, G + j * n, 1, buf + m * n, 1)
            m += 1
    if m == 0:
        return
    if m == 1:
        _gemv_rm(<int> n, <int> n, 1, K, buf, 0, kbuf)
    else:
        # (m, n) @ (n, n), K symmetric: row j is (K g_j)'
        _gemm_rm(<int> m, <int> n, <int> n, 1, buf, K, 0, kbuf)
    m = 0
    for j in range(c):
        if st[j].active:
            _copy(<int> n, kbuf + m * n, 1, KG + j * n, 1)
            m += 1


cdef int _pcg(Py_ssize_t n, Py_ssize_t c, const floating *K, RowData L,
              int power,
              Py_ssize_t n_lab, const int *lab, const floating *Y,
              Py_ssize_t n_unl,
              const int *unl, Py_ssize_t n_val, const floating *Kval,
              const floating *Yval, double gamma_A, double gamma_I, bint hinge,
              bint fit_b, floating *A, Prob *st, int max_iter, int rule,
              double tol, int check_every, double eta, floating *F_, floating *LF,
              floating *G, floating *G_old, floating *KG, floating *KG_old,
              floating *D, floating *KD, floating *DF, floating *LDF,
              floating *buf, floating *kbuf, floating *ltmp, floating *fval,
              signed char *SGN,
              Event *brk, double *hist_obj, double *hist_val,
              int n_hist_val, bint joint, int *CLS) noexcept nogil:
    """PCG on the c binary problems (columns of Y) in lockstep.

    Each problem has its own line search, Polak-Ribiere coefficient and
    stopping test; the iterations share the product K G, done as one gemm
    over the problems still running (K is read once per iteration).
    Row j of every (c, n) work array belongs to problem j.
    Returns 1 when a signal handler raised (Ctrl-C; the exception is left
    set for :func:`pcg` to propagate), else 0.

    ``joint``: the c problems are the one-vs-rest parts of one multi-class
    problem; the early-stopping rules then test the multi-class decision
    (argmax over the problems) instead of each problem's sign: the fraction
    of U whose predicted class changed, the multi-class error on V, and stop
    all the running problems at once (a one-vs-rest sign is almost always
    -1, so its flips stay under eta long before the classes settle).
    ``CLS`` (n_unl) holds the previous check's classes, ``fval`` is (c, n_val).
    """
    cdef Py_ssize_t i, j, o
    cdef int it, n_changed, n_active = c
    # Ctrl-C: signals checked every few million flops (an iteration: K d)
    cdef int sig_period = check_period(c * n * n)
    cdef double loss, s, left, right, beta, num, den, crit, frac, err_v
    cdef double inv_nv = 1.0 / n_val if n_val > 0 else 0
    cdef bint stable, val_stop, checked, j_stable = False, j_val = False
    cdef bint early = rule == RULE_STABILITY or rule == RULE_VALIDATION \
        or rule == RULE_MIXED
    cdef int j_chk = 0, best
    cdef double j_prev = 2.0, j_err = 0, v, bv
    cdef signed char sg
    cdef floating *alpha
    cdef floating *f
    cdef floating *Lf
    cdef floating *g
    cdef floating *Kg
    cdef floating *d
    cdef floating *Kd
    cdef floating *df
    cdef floating *Ldf
    cdef const floating *y

    for j in range(c):
        o = j * n
        alpha, f, Lf, g, y = A + o, F_ + o, LF + o, G + o, Y + o
        st[j].active = True
        st[j].status = STATUS_MAX_ITER
        st[j].n_iter = 0
        st[j].n_chk = 0
        st[j].err_prev = 2.0
        if not fit_b:
            st[j].b = 0
        # f = K alpha + b;  Lf = L f
        _gemv_rm(<int> n, <int> n, 1, K, alpha, 0, f)
        for i in range(n):
            f[i] += st[j].b
        _lmv_pow(L, power, f, Lf, ltmp)
        _grad(n, n_lab, lab, y, alpha, f, Lf, gamma_A, gamma_I, hinge, g,
              &st[j].gb, &loss)
        if not fit_b:
            st[j].gb = 0
        # F = 1/2 [loss + gamma_A alpha'(f - b) + gamma_I f'Lf]
        st[j].F = 0.5 * (loss + gamma_I * _dot(<int> n, f, 1, Lf, 1)
                         + gamma_A * (_dot(<int> n, alpha, 1, f, 1)
                                      - st[j].b * _sum(n, alpha)))
        st[j].F0 = st[j].F
        hist_obj[j * (max_iter + 1)] = st[j].F
    _kg_active(n, c, K, st, G, KG, buf, kbuf)
    for j in range(c):
        o = j * n
        g, Kg, d, Kd = G + o, KG + o, D + o, KD + o
        # d = -(g, gb): the preconditioned steepest descent direction
        for i in range(n):
            d[i] = -g[i]
            Kd[i] = -Kg[i]
        st[j].db = -st[j].gb
        st[j].crit0 = _crit(rule, n, g, Kg, st[j].gb)

    for it in range(max_iter):
        if it > 0 and it % sig_period == 0 and interrupted():
            return 1
        for j in range(c):
            if not st[j].active:
                continue
            o = j * n
            alpha, f, Lf, g, y = A + o, F_ + o, LF + o, G + o, Y + o
            Kg, d, Kd, df, Ldf = KG + o, D + o, KD + o, DF + o, LDF + o
            # df = K d + db 1;  Ldf = L df
            for i in range(n):
                df[i] = Kd[i] + st[j].db
            _lmv_pow(L, power, df, Ldf, ltmp)
            # slope of the quadratic part along d: left + s right
            left = gamma_A * _dot(<int> n, Kd, 1, alpha, 1) \
                + gamma_I * _dot(<int> n, df, 1, Lf, 1)
            right = gamma_A * _dot(<int> n, Kd, 1, d, 1) \
                + gamma_I * _dot(<int> n, df, 1, Ldf, 1)
            s = _line_search(n_lab, lab, y, f, df, left, right, hinge, brk)
            if s <= 0:
                st[j].status = STATUS_NO_DESCENT
                st[j].active = False
                n_active -= 1
                continue
            # alpha += s d;  b += s db;  f += s df;  Lf += s Ldf
            _axpy(<int> n, <floating> s, d, 1, alpha, 1)
            st[j].b += s * st[j].db
            _axpy(<int> n, <floating> s, df, 1, f, 1)
            _axpy(<int> n, <floating> s, Ldf, 1, Lf, 1)
            # keep the old gradient for Polak-Ribiere, then the new one
            _copy(<int> n, g, 1, G_old + o, 1)
            _copy(<int> n, Kg, 1, KG_old + o, 1)
            st[j].gb_old = st[j].gb
            _grad(n, n_lab, lab, y, alpha, f, Lf, gamma_A, gamma_I, hinge, g,
                  &st[j].gb, &loss)
            if not fit_b:
                st[j].gb = 0
            st[j].F = 0.5 * (loss + gamma_I * _dot(<int> n, f, 1, Lf, 1)
                             + gamma_A * (_dot(<int> n, alpha, 1, f, 1)
                                          - st[j].b * _sum(n, alpha)))
            st[j].n_iter = it + 1
            hist_obj[j * (max_iter + 1) + it + 1] = st[j].F
        if n_active == 0:
            break
        # KG = K G for the running problems: the O(n^2) work of the iteration
        _kg_active(n, c, K, st, G, KG, buf, kbuf)

        if joint and early and (it + 1) % check_every == 0:
            # the multi-class decision, shared by all the problems
            j_stable = False
            j_val = False
            if rule != RULE_VALIDATION:
                n_changed = 0
                for i in range(n_unl):
                    best = 0
                    bv = F_[unl[i]]
                    for j in range(1, c):
                        v = F_[j * n + unl[i]]
                        if v > bv:
                            bv = v
                            best = j
                    if best != CLS[i]:
                        n_changed += 1
                    CLS[i] = best
                frac = n_changed / <double> n_unl if n_unl > 0 else 0.0
                j_stable = frac < eta and j_chk > 0
            if rule != RULE_STABILITY:
                for j in range(c):
                    _gemv_rm(<int> n_val, <int> n, 1, Kval, A + j * n, 0,
                             fval + j * n_val)
                j_err = 0
                for i in range(n_val):
                    best = 0
                    bv = fval[i] + st[0].b
                    for j in range(1, c):
                        v = fval[j * n_val + i] + st[j].b
                        if v > bv:
                            bv = v
                            best = j
                    if Yval[best * n_val + i] <= 0:
                        j_err += inv_nv
                j_val = j_err > j_prev - inv_nv + 1e-12
                j_prev = j_err
            j_chk += 1

        for j in range(c):
            if not st[j].active:
                continue
            o = j * n
            alpha, f, g, Kg, d, Kd = A + o, F_ + o, G + o, KG + o, D + o, KD + o
            checked = False
            # classical rules, every iteration, relative to the start
            if rule == RULE_OBJECTIVE:
                if st[j].F0 > 0 and (hist_obj[j * (max_iter + 1) + it]
                                     - st[j].F) / st[j].F0 < tol:
                    st[j].status = STATUS_TOL
            elif rule == RULE_GRADIENT or rule == RULE_PGRADIENT \
                    or rule == RULE_PNORM or rule == RULE_NONE:
                crit = _crit(rule, n, g, Kg, st[j].gb)
                if crit <= tol * st[j].crit0:
                    st[j].status = STATUS_TOL
            # early-stopping rules, every check_every iterations
            elif (it + 1) % check_every == 0 and joint:
                # the argmax decision's tests, shared by all problems
                checked = True
                stable = j_stable
                val_stop = j_val
                if rule != RULE_STABILITY and st[j].n_chk < n_hist_val:
                    hist_val[j * n_hist_val + st[j].n_chk] = j_err
            elif (it + 1) % check_every == 0:
                checked = True
                stable = False
                val_stop = False
                if rule != RULE_VALIDATION:
                    n_changed = 0
                    for i in range(n_unl):
                        sg = 1 if f[unl[i]] > 0 else -1
                        if sg != SGN[j * n_unl + i]:
                            n_changed += 1
                        SGN[j * n_unl + i] = sg
                    frac = n_changed / <double> n_unl if n_unl > 0 else 0.0
                    # the first check only takes the reference snapshot: the
                    # signs of the starting point (f = 0) mean nothing
                    stable = frac < eta and st[j].n_chk > 0
                if rule != RULE_STABILITY:
                    # error of fval = Kval alpha + b on the validation points
                    _gemv_rm(<int> n_val, <int> n, 1, Kval, alpha, 0, fval)
                    err_v = 0
                    for i in range(n_val):
                        if (fval[i] + st[j].b) * Yval[j * n_val + i] <= 0:
                            err_v += inv_nv
                    if st[j].n_chk < n_hist_val:
                        hist_val[j * n_hist_val + st[j].n_chk] = err_v
                    val_stop = err_v > st[j].err_prev - inv_nv + 1e-12
                    st[j].err_prev = err_v
            if checked:
                st[j].n_chk += 1
                if rule == RULE_STABILITY and stable:
                    st[j].status = STATUS_STABILITY
                elif rule == RULE_VALIDATION and val_stop:
                    st[j].status = STATUS_VALIDATION
                elif rule == RULE_MIXED and stable and val_stop:
                    st[j].status = STATUS_MIXED
            if st[j].status != STATUS_MAX_ITER:
                st[j].active = False
                n_active -= 1
                continue
            # Polak-Ribiere in the P-metric with restart (beta >= 0):
            # beta = [g'(Kg - Kg_old) + gb (gb - gb_old)] / (g_old'Kg_old + gb_old^2)
            num = _dot(<int> n, g, 1, Kg, 1) - _dot(<int> n, g, 1, KG_old + o, 1) \
                + st[j].gb * (st[j].gb - st[j].gb_old)
            den = _dot(<int> n, G_old + o, 1, KG_old + o, 1) \
                + st[j].gb_old * st[j].gb_old
            beta = num / den if den > 0 else 0.0
            if beta < 0:
                beta = 0.0
            # d = -g + beta d;  Kd = -Kg + beta Kd;  db = -gb + beta db
            for i in range(n):
                d[i] = -g[i] + beta * d[i]
                Kd[i] = -Kg[i] + beta * Kd[i]
            st[j].db = -st[j].gb + beta * st[j].db
        if n_active == 0:
            break
    return 0


def pcg(const floating[:, ::1] K, RowData L not None,
        const floating[:, ::1] Y, const int[::1] lab, const int[::1] unl,
        const floating[:, ::1] K_val, const floating[:, ::1] Y_val,
        double gamma_A, double gamma_I, bint hinge, bint fit_intercept,
        floating[:, ::1] alpha, const double[::1] b0, int max_iter, int rule,
        double tol, int check_every, double eta, int power=1,
        bint joint=False):
    """Preconditioned CG for LapSVM (``hinge``) / LapRLS in the primal.

    Minimises, for each of the c rows of ``Y`` (one-vs-rest problems sharing
    K and L), with f = K alpha + b (b = 0 unless ``fit_intercept``),
    ``1/2 [sum_{i in E} (f_i - y_i)^2 + gamma_A alpha'K alpha + gamma_I f'Lf]``
    (Melacci & Belkin eq. 7), starting from ``alpha`` (c, n; updated in
    place) and ``b0`` (c,).

    Parameters
    ----------
    K : (n, n) kernel matrix; L : the graph Laplacian (n x n) as a
    :class:`~semisvm._core._dataset.RowData` of K's dtype, CSR (sparse
    products) or dense (BLAS gemv, for a nearly full L^p); power : the
    objective's graph term is f' L^power f, applied as ``power`` products
    with L; Y : (c, n) targets
    (+-1 at ``lab``,
    ignored elsewhere); lab, unl : indices of the labeled / unlabeled points;
    K_val, Y_val : validation kernel rows (n_val, n) and +-1 labels
    (c, n_val), n_val may be 0; rule,
    tol, check_every, eta : stopping rule code, its tolerance, the check
    period and the stability threshold; joint : the rows of Y are the
    one-vs-rest problems of one multi-class problem: the early-stopping rules
    test the multi-class (argmax) decisions on U / V and stop all at once.

    Returns
    -------
    (b, F, n_iter, status, objective, hist_obj, hist_val): per problem
    intercepts (c,), outputs (c, n), iterations (c,), status codes (c,),
    objectives (c,), objective traces (c, max_iter + 1) and validation
    errors (c, n_checks); traces are valid up to n_iter / n_checks.
    """
    cdef Py_ssize_t n = K.shape[0], c = Y.shape[0]
    cdef Py_ssize_t n_lab = lab.shape[0], n_unl = unl.shape[0]
    cdef Py_ssize_t n_val = K_val.shape[0], i
    if K.shape[1] != n or Y.shape[1] != n or alpha.shape[1] != n \
            or alpha.shape[0] != c or b0.shape[0] != c:
        raise ValueError("K must be square and match Y, alpha and b0")
    if L.n_rows != n or L.n_cols != n:
        raise ValueError(f"L must have shape ({n}, {n}), got ({L.n_rows}, {L.n_cols})")
    cdef bint is32 = False
    if floating is float:
        is32 = True
    if L.is_float32 != is32:
        raise TypeError("L must have K's dtype")
    if L.indptr != NULL:
        if L.indptr[0] != 0:
            raise ValueError("L has an inconsistent indptr")
        for i in range(n):
            if L.indptr[i + 1] < L.indptr[i]:
                raise ValueError("L has a decreasing indptr")
        for i in range(L.indptr[n]):
            if L.indices[i] < 0 or L.indices[i] >= n:
                raise ValueError("L has column indices out of range")
    for i in range(n_lab):
        if lab[i] < 0 or lab[i] >= n:
            raise ValueError("lab has indices out of range")
    for i in range(n_unl):
        if unl[i] < 0 or unl[i] >= n:
            raise ValueError("unl has indices out of range")
    if n_val and (K_val.shape[1] != n or Y_val.shape[0] != c
                  or Y_val.shape[1] != n_val):
        raise ValueError("K_val must have shape (n_val, n) and Y_val (c, n_val)")
    if power < 1:
        raise ValueError(f"power must be >= 1, got {power}")
    if n == 0 or c == 0 or max_iter < 1 or check_every < 1:
        raise ValueError("empty problem, max_iter < 1 or check_every < 1")
    if rule < RULE_NONE or rule > RULE_OBJECTIVE:
        raise ValueError(f"unknown rule code {rule}")
    if (rule == RULE_VALIDATION or rule == RULE_MIXED) and n_val == 0:
        raise ValueError("the validation rule needs validation points")
    if floating is float:
        dt = np.float32
    else:
        dt = np.float64
    work = np.zeros((10, c, n), dtype=dt)
    bufs = np.zeros((2, c, n), dtype=dt)
    ltmp_arr = np.zeros(n, dtype=dt)
    fval_arr = np.zeros(max(c * n_val, 1), dtype=dt)
    cls_arr = np.full(max(n_unl, 1), -1, dtype=np.intc)
    sgn_arr = np.zeros(max(c * n_unl, 1), dtype=np.int8)
    brk_arr = np.empty(max(n_lab, 1) * sizeof(Event), dtype=np.uint8)
    st_arr = np.zeros(c * sizeof(Prob), dtype=np.uint8)
    cdef int n_hv = max_iter // check_every + 1
    hist = np.zeros((c, max_iter + 1), dtype=np.float64)
    hist_val = np.zeros((c, n_hv), dtype=np.float64)
    cdef floating[:, :, ::1] w = work
    cdef floating[:, :, ::1] bb = bufs
    cdef floating[::1] fval = fval_arr
    cdef floating[::1] ltmp = ltmp_arr
    cdef signed char[::1] sgn = sgn_arr
    cdef int[::1] cls = cls_arr
    cdef unsigned char[::1] brk = brk_arr
    cdef unsigned char[::1] stb = st_arr
    cdef Prob *st = <Prob *> &stb[0]
    cdef double[:, ::1] h = hist
    cdef double[:, ::1] hv = hist_val
    for i in range(c):
        st[i].b = b0[i] if fit_intercept else 0.0
    cdef const floating *kval_ptr = &K_val[0, 0] if n_val else NULL
    cdef const floating *yval_ptr = &Y_val[0, 0] if n_val else NULL
    cdef const int *lab_ptr = &lab[0] if n_lab else NULL
    cdef const int *unl_ptr = &unl[0] if n_unl else NULL
    cdef int stopped
    with nogil:
        stopped = _pcg(
            n, c, &K[0, 0], L, power, n_lab, lab_ptr,
            &Y[0, 0], n_unl, unl_ptr, n_val, kval_ptr, yval_ptr, gamma_A,
            gamma_I, hinge, fit_intercept, &alpha[0, 0], st, max_iter, rule,
            tol, check_every, eta, &w[0, 0, 0], &w[1, 0, 0], &w[2, 0, 0],
            &w[3, 0, 0], &w[4, 0, 0], &w[5, 0, 0], &w[6, 0, 0], &w[7, 0, 0],
            &w[8, 0, 0], &w[9, 0, 0], &bb[0, 0, 0], &bb[1, 0, 0], &ltmp[0],
            &fval[0], &sgn[0], <Event *> &brk[0], &h[0, 0], &hv[0, 0], n_hv,
            joint, &cls[0])
    if stopped:
        reraise()
    b_out = np.array([st[i].b for i in range(c)])
    n_iter = np.array([st[i].n_iter for i in range(c)], dtype=np.intp)
    status = np.array([st[i].status for i in range(c)], dtype=np.intp)
    obj = np.array([st[i].F for i in range(c)])
    n_chk = np.array([min(st[i].n_chk, n_hv) for i in range(c)], dtype=np.intp)
    return (b_out, work[0].copy(), n_iter, status, obj, hist, hist_val, n_chk)


def line_search(const floating[::1] y, const int[::1] lab,
                const floating[::1] f, const floating[::1] df, double left,
                double right, bint hinge):
    """Exact minimiser over s >= 0 of F along f + s df (Melacci & Belkin eq. 13).

    ``left + s right`` is the slope of the regulariser part along the
    direction; the labeled points ``lab`` add their (squared hinge if
    ``hinge``, else squared) loss slopes. Used by the Newton solver.
    """
    cdef Py_ssize_t n = y.shape[0], n_lab = lab.shape[0], i
    if f.shape[0] != n or df.shape[0] != n:
        raise ValueError("y, f and df must have the same length")
    for i in range(n_lab):
        if lab[i] < 0 or lab[i] >= n:
            raise ValueError("lab has indices out of range")
    if n_lab == 0:
        return max(0.0, -left / right) if right > 0 else 0.0
    brk_arr = np.empty(n_lab * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] brk = brk_arr
    cdef double s
    with nogil:
        s = _line_search(n_lab, &lab[0], &y[0], &f[0], &df[0], left, right,
                         hinge, <Event *> &brk[0])
    return s


# ---------------------------------------------------------------------------
# Block CG for the graph systems of the two-stage low-rank fit
# (semisvm._lowrank.graph_transduction): (E + gamma_I L^p + ridge I) X = B,
# column by column in lockstep, Jacobi-preconditioned.

# rows per block of the reductions: each block's partial sums run in row
# order, the blocks are then added in block order, so the sums (and the
# iterates) have the same bits for any thread count
cdef enum:
    _RB = 2048


cdef void _spmm(Py_ssize_t n, Py_ssize_t c, const int *indptr,
                const int *indices, const double *data, const double *src,
                double *dst, int nt) noexcept nogil:
    """dst = L src for an (n, c) row-major src (rows split over threads)."""
    cdef Py_ssize_t i, j, q, col
    cdef double v
    for i in prange(n, schedule="static", num_threads=nt):
        for j in range(c):
            dst[i * c + j] = 0
        for q in range(indptr[i], indptr[i + 1]):
            v = data[q]
            col = indices[q] * c
            for j in range(c):
                dst[i * c + j] += v * src[col + j]


cdef void _lap_apply(Py_ssize_t n, Py_ssize_t c, const int *indptr,
                     const int *indices, const double *data, int power,
                     const double *src, double *dst, double *tmp,
                     int nt) noexcept nogil:
    """dst = L^power src (tmp: an (n, c) work array for power >= 2)."""
    cdef int _r
    cdef double *a
    cdef double *b
    if power == 1:
        _spmm(n, c, indptr, indices, data, src, dst, nt)
        return
    # alternate between dst and tmp so that the last product lands in dst
    if power % 2 == 0:
        a, b = tmp, dst
    else:
        a, b = dst, tmp
    _spmm(n, c, indptr, indices, data, src, a, nt)
    for _r in range(1, power):
        _spmm(n, c, indptr, indices, data, a, b, nt)
        a, b = b, a


def graph_block_cg(const int[::1] indptr, const int[::1] indices,
                   const double[::1] data, const double[:, ::1] E,
                   const double[::1] diag, const double[:, ::1] B,
                   double[:, ::1] X, double gamma_I, double ridge, int power,
                   double tol, int max_iter, int n_threads=1):
    """Solve (E o . + gamma_I L^p + ridge I) X = B in place, from X.

    ``E`` (n, c): the 0/1 weights of the loss rows per column; L (CSR,
    float64): the base Laplacian, applied ``power`` times; Jacobi
    preconditioner ``1 / (E + diag)`` (``diag``: gamma_I diag(L^p) + ridge).
    Every column runs the same number of iterations; the loop stops when
    each column's residual norm is at most ``tol`` times that of its B
    column (a zero B column counts as 1). Returns the iterations. The same
    bits for any ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0], c = X.shape[1]
    cdef Py_ssize_t nb = (n + _RB - 1) // _RB
    cdef Py_ssize_t i, j, k, lo, hi
    cdef int it = 0, done, nt = max(1, n_threads)
    cdef const int *ind_p = NULL
    cdef const double *dat_p = NULL
    if E.shape[0] != n or E.shape[1] != c or B.shape[0] != n or B.shape[1] != c:
        raise ValueError("E, B and X must have the same shape")
    if diag.shape[0] != n or indptr.shape[0] != n + 1:
        raise ValueError("diag and L must have n rows")
    if power < 1:
        raise ValueError(f"power must be at least 1, got {power}")
    if indices.shape[0] != data.shape[0] or indices.shape[0] < indptr[n]:
        raise ValueError("L's indices and data must hold indptr[-1] entries")
    if n == 0 or c == 0:
        return 0
    if indices.shape[0] > 0:        # an L without edges: no entry to point at
        ind_p = &indices[0]
        dat_p = &data[0]
    R_ = np.empty((n, c))
    P_ = np.empty((n, c))
    AP_ = np.empty((n, c))
    T_ = np.empty((n, c)) if power > 1 else np.empty((1, c))
    part_ = np.zeros((nb, 3 * c))
    bn_ = np.zeros(c)
    rz_ = np.zeros(c)
    a_ = np.zeros(c)
    beta_ = np.zeros(c)
    cdef double[:, ::1] R = R_, P = P_, AP = AP_, T = T_, part = part_
    cdef double[::1] bn = bn_, rz = rz_, a = a_, beta = beta_
    cdef double m, s0, s1, s2
    with nogil:
        # R = B - A X; P = M R; rz = R'M R; bn = ||B||
        _lap_apply(n, c, &indptr[0], ind_p, dat_p, power, &X[0, 0],
                   &AP[0, 0], &T[0, 0], nt)
        for k in prange(nb, schedule="static", num_threads=nt):
            lo = k * _RB
            hi = min(n, lo + _RB)
            for j in range(c):
                s0 = 0
                s1 = 0
                for i in range(lo, hi):
                    R[i, j] = B[i, j] - ((E[i, j] * X[i, j] + gamma_I * AP[i, j])
                                         + ridge * X[i, j])
                    m = 1.0 / (E[i, j] + diag[i])
                    P[i, j] = R[i, j] * m
                    s0 = s0 + R[i, j] * P[i, j]
                    s1 = s1 + B[i, j] * B[i, j]
                part[k, j] = s0
                part[k, c + j] = s1
        for j in range(c):
            s0 = 0
            s1 = 0
            for k in range(nb):
                s0 = s0 + part[k, j]
                s1 = s1 + part[k, c + j]
            rz[j] = s0
            bn[j] = sqrt(s1) if s1 > 0 else 1.0
        # the residual norms of the start
        for k in prange(nb, schedule="static", num_threads=nt):
            lo = k * _RB
            hi = min(n, lo + _RB)
            for j in range(c):
                s2 = 0
                for i in range(lo, hi):
                    s2 = s2 + R[i, j] * R[i, j]
                part[k, 2 * c + j] = s2
        while True:
            done = 1
            for j in range(c):
                s2 = 0
                for k in range(nb):
                    s2 = s2 + part[k, 2 * c + j]
                if sqrt(s2) > tol * bn[j]:
                    done = 0
            if done or it >= max_iter:
                break
            it += 1
            # AP = A P, pap = P'A P
            _lap_apply(n, c, &indptr[0], ind_p, dat_p, power,
                       &P[0, 0], &AP[0, 0], &T[0, 0], nt)
            for k in prange(nb, schedule="static", num_threads=nt):
                lo = k * _RB
                hi = min(n, lo + _RB)
                for j in range(c):
                    s0 = 0
                    for i in range(lo, hi):
                        AP[i, j] = (E[i, j] * P[i, j] + gamma_I * AP[i, j]) \
                            + ridge * P[i, j]
                        s0 = s0 + P[i, j] * AP[i, j]
                    part[k, j] = s0
            for j in range(c):
                s0 = 0
                for k in range(nb):
                    s0 = s0 + part[k, j]
                a[j] = rz[j] / s0 if s0 > 0 else 0.0
            # X += a P, R -= a AP; rz_new = R'M R, ||R||^2
            for k in prange(nb, schedule="static", num_threads=nt):
                lo = k * _RB
                hi = min(n, lo + _RB)
                for j in range(c):
                    s1 = 0
                    s2 = 0
                    for i in range(lo, hi):
                        X[i, j] = X[i, j] + a[j] * P[i, j]
                        R[i, j] = R[i, j] - a[j] * AP[i, j]
                        m = 1.0 / (E[i, j] + diag[i])
                        s1 = s1 + R[i, j] * (R[i, j] * m)
                        s2 = s2 + R[i, j] * R[i, j]
                    part[k, c + j] = s1
                    part[k, 2 * c + j] = s2
            for j in range(c):
                s1 = 0
                for k in range(nb):
                    s1 = s1 + part[k, c + j]
                beta[j] = s1 / rz[j] if rz[j] > 0 else 0.0
                rz[j] = s1
            # P = M R + beta P
            for i in prange(n, schedule="static", num_threads=nt):
                for j in range(c):
                    m = 1.0 / (E[i, j] + diag[i])
                    P[i, j] = R[i, j] * m + beta[j] * P[i, j]
    return it


def csr_pair_sqdist(const long long[::1] indptr, const int[::1] indices,
                    const floating[::1] data, const int[:, ::1] J,
                    int n_threads=1):
    """Squared Euclidean distances ``||x_i - x_J[i, t]||^2`` (float64, (n, q))
    between each row i of a CSR matrix (sorted column indices, no
    duplicates) and its candidate rows ``J[i]``, by a merge of the two
    rows' entries: O(nnz(x_i) + nnz(x_j)) per pair, the pairs split over
    ``n_threads`` threads (each computed alone: the same bits for any
    count). A negative candidate index gives +inf."""
    cdef Py_ssize_t n = J.shape[0], q = J.shape[1]
    cdef Py_ssize_t i, t, a, b, ea, eb
    cdef long long j
    cdef double s, v
    cdef int nt = max(1, n_threads)
    if indptr.shape[0] < n + 1:
        raise ValueError("indptr must have at least J.shape[0] + 1 entries")
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    out = np.empty((n, q), dtype=np.float64)
    cdef double[:, ::1] D = out
    if n == 0 or q == 0:
        return out
    with nogil:
        for i in prange(n, schedule="dynamic", num_threads=nt):
            for t in range(q):
                j = J[i, t]
                if j < 0 or j >= n_rows:
                    D[i, t] = INFINITY
                    continue
                s = 0
                a = indptr[i]
                ea = indptr[i + 1]
                b = indptr[j]
                eb = indptr[j + 1]
                while a < ea and b < eb:
                    if indices[a] == indices[b]:
                        v = <double>data[a] - <double>data[b]
                        a = a + 1
                        b = b + 1
                    elif indices[a] < indices[b]:
                        v = data[a]
                        a = a + 1
                    else:
                        v = data[b]
                        b = b + 1
                    s = s + v * v
                while a < ea:
                    v = data[a]
                    s = s + v * v
                    a = a + 1
                while b < eb:
                    v = data[b]
                    s = s + v * v
                    b = b + 1
                D[i, t] = s
    return out


# -- candidate neighbours of sparse rows (semisvm.graph) ----------------------
cdef inline bint _before(double s1, long long i1, double s2,
                         long long i2) noexcept nogil:
    """(s1, i1) ranks before (s2, i2): the larger score, then the lower index."""
    return s1 > s2 or (s1 == s2 and i1 < i2)


cdef inline void _swap(double *hs, long long *hi, Py_ssize_t a,
                       Py_ssize_t b) noexcept nogil:
    cdef double ts = hs[a]
    cdef long long ti = hi[a]
    hs[a] = hs[b]
    hi[a] = hi[b]
    hs[b] = ts
    hi[b] = ti


cdef void _heap_push(double *hs, long long *hi, Py_ssize_t *size,
                     Py_ssize_t cap, double s, long long i) noexcept nogil:
    """Keep the ``cap`` best (score, index) pairs seen: a heap whose root is
    the worst kept pair."""
    cdef Py_ssize_t c, p
    if size[0] < cap:
        c = size[0]
        size[0] += 1
        hs[c] = s
        hi[c] = i
        while c > 0:
            p = (c - 1) // 2
            if not _before(hs[p], hi[p], hs[c], hi[c]):
                break
            _swap(hs, hi, p, c)
            c = p
        return
    if _before(s, i, hs[0], hi[0]):
        hs[0] = s
        hi[0] = i
        _heap_fix(hs, hi, cap)


def csr_top_entries(const long long[::1] indptr, const int[::1] indices,
                    const floating[::1] data, Py_ssize_t t, int n_threads=1):
    """A mask over the entries of a CSR matrix: each row's ``t`` entries of
    largest absolute value (ties: the lower column). The same mask for any
    ``n_threads``."""
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef Py_ssize_t i, q, size, tt = max(1, t)
    cdef int nt = max(1, n_threads)
    cdef double *hs
    cdef long long *hi
    keep = np.zeros(data.shape[0], dtype=np.uint8)
    cdef unsigned char[::1] K = keep
    if n <= 0 or data.shape[0] == 0:
        return keep.view(bool)
    with nogil, parallel(num_threads=nt):
        hs = <double *> malloc(tt * sizeof(double))
        hi = <long long *> malloc(tt * sizeof(long long))
        for i in prange(n, schedule="dynamic", chunksize=64):
            size = 0
            for q in range(indptr[i], indptr[i + 1]):
                _heap_push(hs, hi, &size, tt, fabs(<double>data[q]), q)
            for q in range(size):
                K[hi[q]] = 1
        free(hs)
        free(hi)
    return keep.view(bool)


def sparse_candidates(const long long[::1] xptr, const int[::1] xind,
                      const floating[::1] xval, const long long[::1] pptr,
                      const int[::1] pind, const floating[::1] pval,
                      Py_ssize_t m, int n_threads=1):
    """For each row i of X (CSR, n rows over d columns), the ``m`` rows r != i
    with the largest partial inner product ``sum_j x_ij p_jr`` over the
    posting lists P (CSR, d rows, ``P[j]``: rows holding column j) of i's
    columns (ties: the lower row), best first; -1 pads a row with fewer.
    Per thread a dense accumulator over the n rows; the same lists for any
    ``n_threads``."""
    cdef Py_ssize_t n = xptr.shape[0] - 1
    cdef Py_ssize_t i, q, u, T, size, a, b
    cdef long long r
    cdef double v
    cdef int nt = max(1, n_threads)
    cdef double *acc
    cdef unsigned char *seen
    cdef long long *touched
    cdef double *hs
    cdef long long *hi
    cdef Py_ssize_t mm = max(1, m)
    cdef Py_ssize_t cap_touched = 0
    out = np.full((max(n, 0), mm), -1, dtype=np.int32)
    cdef int[:, ::1] O = out
    if n <= 0 or m <= 0:
        return out[:, :m]
    for i in range(n):
        u = 0
        for q in range(xptr[i], xptr[i + 1]):
            u += pptr[xind[q] + 1] - pptr[xind[q]]
        if u > cap_touched:
            cap_touched = u
    cap_touched = min(cap_touched, n) + 1
    with nogil, parallel(num_threads=nt):
        acc = <double *> calloc(n, sizeof(double))
        seen = <unsigned char *> calloc(n, sizeof(unsigned char))
        touched = <long long *> malloc(cap_touched * sizeof(long long))
        hs = <double *> malloc(mm * sizeof(double))
        hi = <long long *> malloc(mm * sizeof(long long))
        for i in prange(n, schedule="dynamic", chunksize=64):
            T = 0
            for q in range(xptr[i], xptr[i + 1]):
                v = xval[q]
                for u in range(pptr[xind[q]], pptr[xind[q] + 1]):
                    r = pind[u]
                    if r == i:
                        continue
                    if seen[r] == 0:
                        seen[r] = 1
                        touched[T] = r
                        T = T + 1
                    acc[r] += v * pval[u]
            size = 0
            for u in range(T):
                r = touched[u]
                _heap_push(hs, hi, &size, mm, fabs(acc[r]), r)
                acc[r] = 0
                seen[r] = 0
            # best first: repeatedly take the root's worst to the end
            for a in range(size - 1, -1, -1):
                O[i, a] = <int> hi[0]
                hs[0] = hs[a]
                hi[0] = hi[a]
                b = a
                _heap_fix(hs, hi, b)
        free(acc)
        free(seen)
        free(touched)
        free(hs)
        free(hi)
    return out


cdef void _heap_fix(double *hs, long long *hi, Py_ssize_t size) noexcept nogil:
    """Sift the root of a heap of ``size`` pairs down (worst at the root)."""
    cdef Py_ssize_t c = 0, l, r, w
    while True:
        l = 2 * c + 1
        r = l + 1
        w = c
        if l < size and _before(hs[w], hi[w], hs[l], hi[l]):
            w = l
        if r < size and _before(hs[w], hi[w], hs[r], hi[r]):
            w = r
        if w == c:
            break
        _swap(hs, hi, w, c)
        c = w
