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

from libc.math cimport sqrt
from libc.stdlib cimport qsort
from cython cimport floating
from semisvm._core._blas cimport _dot, _axpy, _copy, _gemv_rm

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


ctypedef struct Break:
    double s          # step at which a labeled point enters or leaves E
    double dL         # change of the slope's constant part
    double dR         # change of the slope's linear part
    Py_ssize_t key    # point index, for a deterministic order of ties


cdef int _cmp_break(const void *a, const void *b) noexcept nogil:
    cdef const Break *ea = <const Break *> a
    cdef const Break *eb = <const Break *> b
    if ea.s < eb.s:
        return -1
    if ea.s > eb.s:
        return 1
    return (ea.key > eb.key) - (ea.key < eb.key)


cdef double _line_search(Py_ssize_t n_lab, const int *lab, const floating *y,
                         const floating *f, const floating *df, double left,
                         double right, bint hinge, Break *brk) noexcept nogil:
    """argmin_{s >= 0} of F along f + s df.

    ``left + s right`` is the slope of the quadratic (regulariser) part; each
    labeled point adds do_i (o_i + s do_i - y_i) while it is in E. A point
    leaves E where y_i (o_i + s do_i) = 1, i.e. s_i = (y_i - o_i) / do_i.
    ``brk`` holds >= n_lab slots.
    """
    cdef Py_ssize_t j, i, n_brk = 0
    cdef double L = left, R = right, o, do, yi, root
    for j in range(n_lab):
        i = lab[j]
        o = f[i]
        do = df[i]
        yi = y[i]
        if not hinge or yi * o < 1:
            L += do * (o - yi)
            R += do * do
            if hinge and yi * do > 0:      # leaves E at s_i > 0
                brk[n_brk].s = (yi - o) / do
                brk[n_brk].dL = -do * (o - yi)
                brk[n_brk].dR = -do * do
                brk[n_brk].key = i
                n_brk += 1
        elif yi * do < 0:                  # enters E at s_i >= 0
            brk[n_brk].s = (yi - o) / do
            brk[n_brk].dL = do * (o - yi)
            brk[n_brk].dR = do * do
            brk[n_brk].key = i
            n_brk += 1
    # phi'(0) >= 0: no descent along this direction
    if L >= 0 or R <= 0:
        return 0.0
    qsort(brk, n_brk, sizeof(Break), _cmp_break)
    # invariant: on [brk[j-1].s, brk[j].s] the slope is L + s R
    root = -L / R
    for j in range(n_brk):
        if brk[j].s >= root:
            break
        L += brk[j].dL
        R += brk[j].dR
        if R <= 0:
            return brk[j].s
        root = -L / R
    return root


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


cdef int _pcg(Py_ssize_t n, const floating *K, const int *Lp, const int *Li,
              const floating *Lx, Py_ssize_t n_lab, const int *lab,
              const floating *y, Py_ssize_t n_unl, const int *unl,
              Py_ssize_t n_val, const floating *Kval, const floating *yval,
              double gamma_A, double gamma_I, bint hinge, bint fit_b,
              floating *alpha, double *b, int max_iter, int rule, double tol,
              int check_every, double eta, floating *f, floating *Lf,
              floating *g, floating *g_old, floating *Kg, floating *Kg_old,
              floating *d, floating *Kd, floating *df, floating *Ldf,
              floating *fval, signed char *sgn, Break *brk,
              double *hist_obj, int *n_iter, double *objective,
              double *hist_val, int *n_checks) noexcept nogil:
    cdef Py_ssize_t i
    cdef int it, status = STATUS_MAX_ITER, n_chk = 0, n_changed
    cdef double gb, gb_old, db, loss, F, F0, F_prev_chk, s, left, right
    cdef double beta, num, den, crit, crit0 = 0, frac, err_v, err_prev = 2.0
    cdef double inv_nv = 1.0 / n_val if n_val > 0 else 0
    cdef bint stable, val_stop
    cdef signed char sg
    cdef floating *tmp

    # f = K alpha + b;  Lf = L f
    _gemv_rm(<int> n, <int> n, 1, K, alpha, 0, f)
    for i in range(n):
        f[i] += b[0]
    _spmv(n, Lp, Li, Lx, f, Lf)
    _grad(n, n_lab, lab, y, alpha, f, Lf, gamma_A, gamma_I, hinge, g, &gb, &loss)
    if not fit_b:
        gb = 0
    # objective: 1/2 [loss + gamma_A alpha'(f - b) + gamma_I f'Lf]
    F = 0.5 * (loss + gamma_I * _dot(<int> n, f, 1, Lf, 1))
    for i in range(n):
        F += 0.5 * gamma_A * alpha[i] * (f[i] - b[0])
    F0 = F
    F_prev_chk = F
    hist_obj[0] = F
    _gemv_rm(<int> n, <int> n, 1, K, g, 0, Kg)
    # d = -(g, gb), the preconditioned steepest descent direction
    for i in range(n):
        d[i] = -g[i]
        Kd[i] = -Kg[i]
    db = -gb
    if rule == RULE_GRADIENT:
        crit0 = sqrt(_dot(<int> n, Kg, 1, Kg, 1) + gb * gb)
    elif rule == RULE_PGRADIENT:
        crit0 = sqrt(_dot(<int> n, g, 1, g, 1) + gb * gb)
    elif rule == RULE_PNORM or rule == RULE_NONE:
        crit0 = sqrt(max(_dot(<int> n, g, 1, Kg, 1), 0.0) + gb * gb)
    for it in range(max_iter):
        # df = K d + db 1;  Ldf = L df
        for i in range(n):
            df[i] = Kd[i] + db
        _spmv(n, Lp, Li, Lx, df, Ldf)
        # slope of the quadratic part: gamma_A d'K(alpha + s d) + gamma_I df'L(f + s df)
        left = gamma_A * _dot(<int> n, Kd, 1, alpha, 1) \
            + gamma_I * _dot(<int> n, df, 1, Lf, 1)
        right = gamma_A * _dot(<int> n, Kd, 1, d, 1) \
            + gamma_I * _dot(<int> n, df, 1, Ldf, 1)
        s = _line_search(n_lab, lab, y, f, df, left, right, hinge, brk)
        if s <= 0:
            status = STATUS_NO_DESCENT
            break
        # alpha += s d;  b += s db;  f += s df;  Lf += s Ldf
        _axpy(<int> n, <floating> s, d, 1, alpha, 1)
        b[0] += s * db
        _axpy(<int> n, <floating> s, df, 1, f, 1)
        _axpy(<int> n, <floating> s, Ldf, 1, Lf, 1)
        # new gradient; the old one is kept for Polak-Ribiere
        tmp = g_old
        g_old = g
        g = tmp
        tmp = Kg_old
        Kg_old = Kg
        Kg = tmp
        gb_old = gb
        _grad(n, n_lab, lab, y, alpha, f, Lf, gamma_A, gamma_I, hinge, g, &gb,
              &loss)
        if not fit_b:
            gb = 0
        F = 0.5 * (loss + gamma_I * _dot(<int> n, f, 1, Lf, 1)
                   + gamma_A * (_dot(<int> n, alpha, 1, f, 1)
                                - b[0] * _sum(n, alpha)))
        hist_obj[it + 1] = F
        n_iter[0] = it + 1
        # Kg = K g: the one O(n^2) product of the iteration
        _gemv_rm(<int> n, <int> n, 1, K, g, 0, Kg)

        # classical rules, every iteration
        if rule == RULE_GRADIENT:
            crit = sqrt(_dot(<int> n, Kg, 1, Kg, 1) + gb * gb)
        elif rule == RULE_PGRADIENT:
            crit = sqrt(_dot(<int> n, g, 1, g, 1) + gb * gb)
        elif rule == RULE_PNORM or rule == RULE_NONE:
            crit = sqrt(max(_dot(<int> n, g, 1, Kg, 1), 0.0) + gb * gb)
        if rule == RULE_OBJECTIVE:
            if F0 > 0 and (hist_obj[it] - F) / F0 < tol:
                status = STATUS_TOL
                break
        elif rule == RULE_GRADIENT or rule == RULE_PGRADIENT \
                or rule == RULE_PNORM or rule == RULE_NONE:
            if crit <= tol * crit0:
                status = STATUS_TOL
                break

        # early-stopping rules, every check_every iterations
        if (rule == RULE_STABILITY or rule == RULE_VALIDATION
                or rule == RULE_MIXED) and (it + 1) % check_every == 0:
            stable = False
            val_stop = False
            if rule != RULE_VALIDATION:
                n_changed = 0
                for i in range(n_unl):
                    sg = 1 if f[unl[i]] > 0 else -1
                    if sg != sgn[i]:
                        n_changed += 1
                    sgn[i] = sg
                frac = n_changed / <double> n_unl if n_unl > 0 else 0.0
                # the first check only takes the reference snapshot: the
                # signs of the starting point (f = 0 -> all -1) mean nothing
                stable = frac < eta and n_chk > 0
            if rule != RULE_STABILITY:
                # fval = Kval alpha + b; error on the validation points
                _gemv_rm(<int> n_val, <int> n, 1, Kval, alpha, 0, fval)
                err_v = 0
                for i in range(n_val):
                    if (fval[i] + b[0]) * yval[i] <= 0:
                        err_v += inv_nv
                hist_val[n_chk] = err_v
                val_stop = err_v > err_prev - inv_nv + 1e-12
                err_prev = err_v
            n_chk += 1
            if rule == RULE_STABILITY and stable:
                status = STATUS_STABILITY
                break
            if rule == RULE_VALIDATION and val_stop:
                status = STATUS_VALIDATION
                break
            if rule == RULE_MIXED and stable and val_stop:
                status = STATUS_MIXED
                break

        # Polak-Ribiere in the P-metric with restart (beta >= 0):
        # beta = g'(Kg - Kg_old) + gb (gb - gb_old) / (g_old'Kg_old + gb_old^2)
        num = _dot(<int> n, g, 1, Kg, 1) - _dot(<int> n, g, 1, Kg_old, 1) \
            + gb * (gb - gb_old)
        den = _dot(<int> n, g_old, 1, Kg_old, 1) + gb_old * gb_old
        beta = num / den if den > 0 else 0.0
        if beta < 0:
            beta = 0.0
        # d = -g + beta d;  Kd = -Kg + beta Kd;  db = -gb + beta db
        for i in range(n):
            d[i] = -g[i] + beta * d[i]
            Kd[i] = -Kg[i] + beta * Kd[i]
        db = -gb + beta * db
    objective[0] = F
    n_checks[0] = n_chk
    return status


def pcg(const floating[:, ::1] K, const int[::1] L_indptr,
        const int[::1] L_indices, const floating[::1] L_data,
        const floating[::1] y, const int[::1] lab, const int[::1] unl,
        const floating[:, ::1] K_val, const floating[::1] y_val,
        double gamma_A, double gamma_I, bint hinge, bint fit_intercept,
        floating[::1] alpha, double b, int max_iter, int rule, double tol,
        int check_every, double eta):
    """Preconditioned CG for LapSVM (``hinge``) / LapRLS in the primal.

    Minimises, with f = K alpha + b (b = 0 unless ``fit_intercept``),
    ``1/2 [sum_{i in E} (f_i - y_i)^2 + gamma_A alpha'K alpha + gamma_I f'Lf]``
    (Melacci & Belkin eq. 7), starting from ``alpha`` (updated in place), b.

    Parameters
    ----------
    K : (n, n) kernel matrix; L_* : CSR Laplacian (n x n, int32 indices);
    y : (n,) targets (+-1 at ``lab``, ignored elsewhere); lab, unl : indices
    of the labeled / unlabeled points; K_val, y_val : validation kernel rows
    (n_val, n) and +-1 labels (n_val may be 0); rule, tol, check_every, eta:
    stopping rule code, its tolerance, the check period and the stability
    threshold.

    Returns
    -------
    (b, f, n_iter, status, objective, hist_obj, hist_val)
    """
    cdef Py_ssize_t n = K.shape[0], n_lab = lab.shape[0], n_unl = unl.shape[0]
    cdef Py_ssize_t n_val = K_val.shape[0], i
    if K.shape[1] != n or y.shape[0] != n or alpha.shape[0] != n:
        raise ValueError("K must be square and match y and alpha")
    if L_indptr.shape[0] != n + 1 or L_indices.shape[0] != L_data.shape[0]:
        raise ValueError("L must be a CSR matrix of shape (n, n)")
    if L_indptr[0] != 0 or L_indptr[n] != L_data.shape[0]:
        raise ValueError("L has an inconsistent indptr")
    for i in range(L_indices.shape[0]):
        if L_indices[i] < 0 or L_indices[i] >= n:
            raise ValueError("L has column indices out of range")
    for i in range(n_lab):
        if lab[i] < 0 or lab[i] >= n:
            raise ValueError("lab has indices out of range")
    for i in range(n_unl):
        if unl[i] < 0 or unl[i] >= n:
            raise ValueError("unl has indices out of range")
    if n_val and (K_val.shape[1] != n or y_val.shape[0] != n_val):
        raise ValueError("K_val must have shape (n_val, n) and match y_val")
    if n == 0 or max_iter < 1 or check_every < 1:
        raise ValueError("empty problem, max_iter < 1 or check_every < 1")
    if rule < RULE_NONE or rule > RULE_OBJECTIVE:
        raise ValueError(f"unknown rule code {rule}")
    if (rule == RULE_VALIDATION or rule == RULE_MIXED) and n_val == 0:
        raise ValueError("the validation rule needs validation points")
    if floating is float:
        dt = np.float32
    else:
        dt = np.float64
    work = np.zeros((12, n), dtype=dt)
    fval_arr = np.zeros(max(n_val, 1), dtype=dt)
    sgn_arr = np.zeros(max(n_unl, 1), dtype=np.int8)
    brk_arr = np.empty(max(n_lab, 1) * sizeof(Break), dtype=np.uint8)
    hist = np.zeros(max_iter + 1, dtype=np.float64)
    hist_val = np.zeros(max_iter // check_every + 1, dtype=np.float64)
    cdef floating[:, ::1] w = work
    cdef floating[::1] fval = fval_arr
    cdef signed char[::1] sgn = sgn_arr
    cdef unsigned char[::1] brk = brk_arr
    cdef double[::1] h = hist, hv = hist_val
    cdef double bb = b if fit_intercept else 0.0, obj = 0
    cdef int n_iter = 0, n_chk = 0, status
    cdef const floating *kval_ptr = &K_val[0, 0] if n_val else NULL
    cdef const floating *yval_ptr = &y_val[0] if n_val else NULL
    cdef const int *lab_ptr = &lab[0] if n_lab else NULL
    cdef const int *unl_ptr = &unl[0] if n_unl else NULL
    cdef const int *li_ptr = &L_indices[0] if L_indices.shape[0] else NULL
    cdef const floating *lx_ptr = &L_data[0] if L_data.shape[0] else NULL
    with nogil:
        status = _pcg(n, &K[0, 0], &L_indptr[0], li_ptr, lx_ptr, n_lab, lab_ptr,
                      &y[0], n_unl, unl_ptr, n_val, kval_ptr, yval_ptr,
                      gamma_A, gamma_I, hinge, fit_intercept, &alpha[0], &bb,
                      max_iter, rule, tol, check_every, eta,
                      &w[0, 0], &w[1, 0], &w[2, 0], &w[3, 0], &w[4, 0],
                      &w[5, 0], &w[6, 0], &w[7, 0], &w[8, 0], &w[9, 0],
                      &w[10, 0], &sgn[0], <Break *> &brk[0], &h[0], &n_iter,
                      &obj, &hv[0], &n_chk)
    return (bb, work[0].copy(), n_iter, status, obj, hist[:n_iter + 1].copy(),
            hist_val[:n_chk].copy())


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
    brk_arr = np.empty(n_lab * sizeof(Break), dtype=np.uint8)
    cdef unsigned char[::1] brk = brk_arr
    cdef double s
    with nogil:
        s = _line_search(n_lab, &lab[0], &y[0], &f[0], &df[0], left, right,
                         hinge, <Break *> &brk[0])
    return s
