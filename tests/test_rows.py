"""The in-memory fast paths give the generic paths' iterates, bit for bit.

``mfn_loop`` runs the whole L2-SVM-MFN loop in one compiled call for
:class:`semisvm._rows.LocalRows` (``_mfn.mfn_run``); the dense normal matrix
and the CGLS setup pass run blocked, vectorised loops; the DA p-step shares
one exp/log1p between its sigmoid and softplus terms. None of that may move
an iterate.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from semisvm._core import _mfn as K
from semisvm._core._dataset import RowData
from semisvm._core._ssl import _np_sum, da_pstep, objective_sums, set_label_costs
from semisvm._rows import LocalRows, mfn_loop


class _PythonRows(LocalRows):
    """LocalRows without the compiled loop: mfn_loop's Python iteration."""

    compiled = False


def _problem(seed, n, d, dtype, sparse):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if sparse:
        X[rng.random((n, d)) < 0.6] = 0.0
        X = sp.csr_matrix(X)
    X = X.astype(dtype)
    y = np.where(rng.standard_normal(n) + X[:, 0].toarray().ravel()
                 if sparse else rng.standard_normal(n) + X[:, 0] > 0, 1, -1)
    c = rng.uniform(0.5, 2.0, n)
    # two-sided costs, as TSVM/DA set them: some rows carry both sides
    cpos = np.where(y > 0, c, 0.0).astype(dtype)
    cneg = np.where(y < 0, c, 0.0).astype(dtype)
    both = rng.random(n) < 0.3
    cpos[both] = 0.3
    cneg[both] = 0.2
    return X, cpos, cneg


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("direct", [False, True])
@pytest.mark.parametrize("cold_start", [False, True])
def test_compiled_mfn_loop_equals_the_python_loop(dtype, sparse, direct,
                                                  cold_start):
    X, cpos0, cneg0 = _problem(3, 120, 9, dtype, sparse)
    kw = dict(tol=1e-6, max_iter=50, cg_max_iter=1000, cold_start=cold_start,
              rel_tol=1e-9, direct=direct)
    runs = []
    for cls in (LocalRows, _PythonRows):
        cpos, cneg = cpos0.copy(), cneg0.copy()
        B = cls(RowData(X), 1.0, cpos, cneg)
        w = np.full(X.shape[1] + 1, 0.01, dtype=dtype)
        out = mfn_loop(B, w, 0.05, **kw)
        # a second, warm-started call reuses the backend's buffers
        cpos[:7] *= 1.5
        out2 = mfn_loop(B, w, 0.05, **kw)
        cpos[:7] /= 1.5
        runs.append((w, B.outputs().copy(), out, out2))
    (w1, o1, a1, b1), (w2, o2, a2, b2) = runs
    assert np.array_equal(w1, w2)
    assert np.array_equal(o1, o2)
    for x, y in ((a1, a2), (b1, b2)):
        assert x[0] == y[0] and x[1] == y[1] and x[2] == y[2]
        assert x[0] >= 1
        for h in (5, 6):
            assert np.array_equal(x[h], y[h])
        # objectives: ||w||^2 by the BLAS of SciPy vs NumPy (same sums here)
        np.testing.assert_allclose(x[4], y[4], rtol=1e-14)
        np.testing.assert_allclose(x[3], y[3], rtol=1e-14)


@pytest.mark.parametrize("sparse", [False, True])
def test_python_loop_rebuilds_the_kept_matrix_as_the_compiled_one(sparse):
    # a rebuild factor of 1.05: the kept normal matrix is built anew at some
    # Cholesky steps and brought up to date at others, in both loops alike
    from semisvm._core._mfn import _set_kept_rebuild
    X, cpos0, cneg0 = _problem(4, 300, 9, np.float64, sparse)
    kw = dict(tol=1e-9, max_iter=50, cg_max_iter=1000, cold_start=False,
              rel_tol=1e-12, direct=True)
    runs = []
    for factor, cls in ((1.05, LocalRows), (1.05, _PythonRows),
                        (100.0, LocalRows)):
        old = _set_kept_rebuild(factor)
        try:
            B = cls(RowData(X), 1.0, cpos0.copy(), cneg0.copy())
            w = np.full(X.shape[1] + 1, 2.0)
            out = mfn_loop(B, w, 0.001, **kw)
        finally:
            _set_kept_rebuild(old)
        assert out[0] >= 3
        runs.append((w.tobytes(), B._h_keep[1][-3:].copy()))
    assert runs[0][0] == runs[1][0]
    assert np.array_equal(runs[0][1], runs[1][1])
    # the rule did act: the sums since the last build differ
    assert not np.array_equal(runs[0][1], runs[2][1])


def test_mfn_loop_verbose_takes_the_python_loop(caplog):
    X, cpos, cneg = _problem(4, 60, 5, np.float64, False)
    B = LocalRows(RowData(X), 1.0, cpos, cneg)
    w = np.zeros(6)
    with caplog.at_level("INFO", logger="semisvm"):
        mfn_loop(B, w, 0.1, tol=1e-6, max_iter=50, cg_max_iter=100,
                 cold_start=True, rel_tol=1e-9, verbose=True)
    assert "MFN iter 1" in caplog.text


@pytest.mark.parametrize("n, d", [(1, 3), (5, 1), (37, 7), (131, 50)])
def test_dense_normal_matrix_is_the_generic_sum(dtype, n, d):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, d)).astype(dtype)
    a = rng.random(n).astype(dtype)
    a[::3] = 0
    t = rng.standard_normal(n).astype(dtype)
    active = np.zeros(n, dtype=np.int32)
    act = np.flatnonzero(a > 0)
    active[: act.size] = act
    R = RowData(X)
    H, b = K.normal_matrix(R, 0.7, active, act.size, a, t)
    for kw in ({"generic": True}, {"simd": False}):
        H2, b2 = K.normal_matrix(R, 0.7, active, act.size, a, t, **kw)
        assert np.array_equal(H, H2) and np.array_equal(b, b2)
    # the CSR loop (every entry stored) adds the same terms in the same order
    H3, b3 = K.normal_matrix(RowData(sp.csr_matrix(X)), 0.7, active, act.size,
                             a, t)
    assert np.array_equal(H, H3) and np.array_equal(b, b3)
    np.testing.assert_allclose(
        np.triu(H), np.triu(np.c_[X, np.full(n, 0.7)][act].T.astype(np.float64)
                            @ (a[act, None] * np.c_[X, np.full(n, 0.7)][act])),
        rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-5)


def test_csr_normal_matrix_takes_rows_in_any_order():
    # rows whose column indices increase take the short loop, the others
    # (unsorted, a repeated index) the general one: both X_J' A X_J
    rng = np.random.default_rng(3)
    n, d = 30, 9
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.5)
    C = sp.csr_matrix(X)
    data, ind, ptr = C.data.copy(), C.indices.copy(), C.indptr.copy()
    for i in range(0, n, 3):             # every third row stored backwards
        data[ptr[i]:ptr[i + 1]] = data[ptr[i]:ptr[i + 1]][::-1]
        ind[ptr[i]:ptr[i + 1]] = ind[ptr[i]:ptr[i + 1]][::-1]
    # row 1 gets a repeated index: x_1j split into two stored halves
    j0 = ptr[1]
    assert ptr[2] > j0
    data = np.insert(data, j0, data[j0] / 2)
    data[j0 + 1] /= 2
    ind = np.insert(ind, j0, ind[j0])
    ptr[2:] += 1
    U = sp.csr_matrix((data, ind, ptr), shape=(n, d))
    assert not U.has_sorted_indices
    a = rng.random(n)
    t = rng.standard_normal(n)
    active = np.arange(n, dtype=np.int32)
    H, b = K.normal_matrix(RowData(U), 0.7, active, n, a, t)
    E = np.c_[X, np.full(n, 0.7)]
    np.testing.assert_allclose(np.triu(H), np.triu(E.T @ (a[:, None] * E)),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b, E.T @ (a * t), rtol=1e-12, atol=1e-12)
    # the sorted rows alone: the bits of the dense blocked loop
    Hs, bs = K.normal_matrix(RowData(C), 0.7, active, n, a, t)
    Hd, bd = K.normal_matrix(RowData(X), 0.7, active, n, a, t)
    assert np.array_equal(Hs, Hd) and np.array_equal(bs, bd)


@pytest.mark.parametrize("n", [1, 6, 41])
def test_dense_cg_setup_pass_is_the_generic_sum(dtype, n):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 11)).astype(dtype)
    a = rng.random(n).astype(dtype)
    t = rng.standard_normal(n).astype(dtype)
    o = rng.standard_normal(n).astype(dtype)
    active = np.arange(n, dtype=np.int32)[::-1].copy()
    dense = K.cg_start(RowData(X), 0.5, active, n, a, t, o)
    csr = K.cg_start(RowData(sp.csr_matrix(X)), 0.5, active, n, a, t, o)
    # rhs X_J' A t and the diagonal come from the blocked dense loop
    assert np.array_equal(dense[0], csr[0])
    assert np.array_equal(dense[2], csr[2])


def _softplus(x):
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _sigmoid_neg(z):
    if z > 0:
        e = math.exp(-z)
        return e / (1.0 + e)
    return 1.0 / (1.0 + math.exp(z))


def test_pstep_kl_and_entropy_are_the_reference_formulas():
    rng = np.random.default_rng(0)
    n, u = 40, 30
    o = rng.standard_normal(n) * 2
    o[:3] = [0.0, 1.0, -1.0]
    idx_u = np.arange(5, 5 + u, dtype=np.int32)
    z = rng.standard_normal(u) * 3
    z[:2] = [0.0, -0.0]
    zq = z.copy()
    p = np.empty(u)
    cpos, cneg = np.zeros(n), np.zeros(n)
    T, lam_u, r, cu = 0.7, 1.0, 0.4, 1.0 / u
    nu, kl, ent, _, _, _ = da_pstep(o, idx_u, lam_u, T, r, z, p, cu, cpos, cneg)
    s_kl = s_h = 0.0
    for j in range(u):
        oj = o[idx_u[j]]
        g = lam_u * ((1 - oj) ** 2 * (oj < 1) - (1 + oj) ** 2 * (-oj < 1))
        zj = (g - nu) / T
        assert zj == z[j]
        pj = _sigmoid_neg(zj)
        assert pj == p[j]
        s_kl += (pj * (_softplus(zq[j]) - _softplus(zj))
                 + (1.0 - pj) * (_softplus(-zq[j]) - _softplus(-zj)))
        s_h += pj * _softplus(zj) + (1.0 - pj) * _softplus(-zj)
    assert kl == s_kl / u
    assert ent == s_h / u


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 1000, 8193])
def test_np_sum_replica_is_numpy_sum(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n) * np.exp(3 * rng.standard_normal(n))
    assert _np_sum(a) == np.sum(a)


def test_objective_sums_are_the_numpy_sums(dtype):
    rng = np.random.default_rng(5)
    n, D = 300, 13
    o = (rng.standard_normal(n) * 1.5).astype(dtype)
    o[:4] = [1.0, -1.0, 0.0, np.nan]
    w = rng.standard_normal(D).astype(dtype)
    idx_l = np.arange(0, n, 3)
    idx_u = np.setdiff1d(np.arange(n), idx_l).astype(np.int32)
    y_l = np.where(rng.random(idx_l.size) < 0.5, 1.0, -1.0)
    c_l = rng.uniform(0.1, 2, idx_l.size) / idx_l.size
    yu = np.where(rng.random(idx_u.size) < 0.4, 1, -1).astype(np.int8)
    w64 = w.astype(np.float64)
    m = np.maximum(0.0, 1.0 - y_l * o[idx_l].astype(np.float64))
    ref_w, ref_l = np.sum(w64 * w64), np.sum(c_l * m * m)
    mu = np.maximum(0.0, 1.0 - np.abs(o[idx_u].astype(np.float64)))
    ml = np.maximum(0.0, 1.0 - yu * o[idx_u].astype(np.float64))
    for mode, ref_u in ((0, 0.0), (1, np.sum(mu * mu)), (2, np.sum(ml * ml))):
        got = objective_sums(w, o, idx_l, y_l, c_l, idx_u, yu, mode)
        # NaN in o[3] (labeled) passes through as NumPy's maximum lets it
        assert got[0] == ref_w
        assert np.isnan(got[1]) and np.isnan(ref_l)
        assert got[2] == ref_u or (np.isnan(got[2]) and np.isnan(ref_u))
    o[3] = 0.5
    m = np.maximum(0.0, 1.0 - y_l * o[idx_l].astype(np.float64))
    assert objective_sums(w, o, idx_l, y_l, c_l, idx_u, yu, 0)[1] == np.sum(c_l * m * m)


def test_set_label_costs_is_the_numpy_assignment(dtype):
    rng = np.random.default_rng(2)
    n = 50
    idx_u = np.arange(3, n, 2).astype(np.int32)
    yu = np.where(rng.random(idx_u.size) < 0.5, 1, -1).astype(np.int8)
    cpos, cneg = rng.random(n).astype(dtype), rng.random(n).astype(dtype)
    ref_p, ref_n = cpos.copy(), cneg.copy()
    cu = 1 / 3
    ref_p[idx_u] = np.where(yu > 0, cu, 0)
    ref_n[idx_u] = np.where(yu < 0, cu, 0)
    set_label_costs(idx_u, yu, cu, cpos, cneg)
    assert np.array_equal(cpos, ref_p) and np.array_equal(cneg, ref_n)


# --- the driver-side line search (row blocks, Dask) without Dask ------------

def _ray_events(w, wbar, lam, o, obar, cpos, cneg, hi=np.inf):
    """The regulariser's and the rows' slope at 0 and every break point, as a
    block driver gathers them (``_mfn.ls_bins`` / ``ls_events``)."""
    L0, R0, *_ = K.ls_bins(o, obar, cpos, cneg, np.array([1.0]))
    d = wbar - w
    L0 += lam * float(w @ d)
    R0 += lam * float(d @ d)
    ev = K.ls_events(o, obar, cpos, cneg, 0.0, hi, 0)
    return L0, R0, ev


@pytest.mark.parametrize("case", ["past_last", "between", "random"])
def test_scan_events_is_the_compiled_line_search(case):
    from semisvm._core._linesearch import _line_search_py
    from semisvm._rows import scan_events
    # the bracket [0, hi) the driver gathers (the root lies below hi)
    if case == "past_last":    # root 1.2 past the last break point (1/4) below 2
        args = (np.zeros(1), np.ones(1), 1.0, np.array([0.0, -2.0]),
                np.array([4.0, -1.5]), np.ones(2), np.zeros(2))
        hi = 2.0
    elif case == "between":    # root between the break points 1/4 and 1/2
        args = (np.zeros(1), np.ones(1), 1.0, np.array([0.0, 0.0, -1.0]),
                np.array([4.0, 2.0, -0.9]), np.ones(3), np.zeros(3))
        hi = 1.0
    else:
        hi = np.inf
        rng = np.random.default_rng(2)
        n = 80
        c, p = rng.random(n), rng.random(n)
        args = (rng.standard_normal(5), rng.standard_normal(5), 0.03,
                2 * rng.standard_normal(n), 2 * rng.standard_normal(n), c * p,
                c * (1 - p))
    L0, R0, ev = _ray_events(*args, hi=hi)
    assert L0 < 0 < R0
    got = scan_events(L0, R0, *ev)
    assert got == pytest.approx(_line_search_py(*args), rel=1e-12)
    if case == "past_last":
        assert got == pytest.approx(1.2, rel=1e-14)


@pytest.mark.parametrize("k", [1, 4])
def test_cgls_twin_stops_as_the_compiled_cgls(k):
    # the driver-side CGLS (used over Dask row blocks) tested without Dask:
    # the iteration cap, the tolerance and the forcing term stop it at the
    # compiled loop's iteration, with the same iterate to rounding
    from semisvm._core._cgls import _cgls_py
    from semisvm._rows import cgls_twin
    rng = np.random.RandomState(5)
    n, d, lam = 120, 30, 0.05
    X = rng.randn(n, d) * rng.rand(d) * 3
    a, t = rng.rand(n) + 0.5, np.sign(rng.randn(n))
    Xa = np.c_[X, np.ones(n)]
    H = Xa.T @ (a[:, None] * Xa)

    def prod(p):
        u = H @ p
        return u, float(p @ u)

    rhs, diag = Xa.T @ (a * t), np.einsum("ij,ij,i->j", Xa, Xa, a)
    for tol, eta, cap in ((1e-14, 0.0, k), (None, 0.0, 100), (1e-14, None, 100)):
        # tol / eta: the compiled loop's stop after exactly k iterations
        if tol is None or eta is None:
            b = np.zeros(d + 1)
            _, n_ref = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                                lam, b, np.zeros(n), 1e-14, k)
            bb = np.zeros(d + 1)
            r_k = np.linalg.norm(rhs - H @ b - lam * b)
            if k > 1:
                _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t, lam,
                         bb, np.zeros(n), 1e-14, k - 1)
            r_km1 = np.linalg.norm(rhs - H @ bb - lam * bb)
            mid = np.sqrt(r_k * r_km1) / np.linalg.norm(rhs)
            tol, eta = (mid, 0.0) if tol is None else (1e-14, mid)
        beta_c = np.zeros(d + 1)
        st_c, it_c = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              lam, beta_c, np.zeros(n), tol, cap, eta=eta)
        beta_t = np.zeros(d + 1)
        st_t, it_t = cgls_twin(prod, rhs, rhs.copy(), diag, beta_t, lam, tol, eta, cap)
        assert (st_t, it_t) == (st_c, it_c)
        assert it_c == k
        np.testing.assert_allclose(beta_t, beta_c, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("cold_start", [False, True])
def test_python_loop_relative_stop_is_the_compiled_one(cold_start):
    # a relative tolerance that binds (CG capped at 3 iterations, no finite
    # termination): the Python loop must stop at the compiled loop's iteration
    rng = np.random.RandomState(3)
    X = rng.randn(200, 20)
    y = np.sign(X @ rng.randn(20) + 0.3 * rng.randn(200))
    cpos, cneg = np.where(y > 0, 1.0, 0.0), np.where(y < 0, 1.0, 0.0)
    kw = dict(tol=1e-12, max_iter=60, cg_max_iter=3, cold_start=cold_start)
    B = LocalRows(RowData(X), 1.0, cpos.copy(), cneg.copy())
    hobj = mfn_loop(B, np.zeros(21), 1e-3, rel_tol=0.0, **kw)[4]
    ratios = -np.diff(hobj) / np.abs(hobj[1:])
    # a step k >= 1 whose decrease is a new low: rel between it and the others
    k = next(j for j in range(1, len(ratios)) if ratios[j] < 0.5 * ratios[:j].min())
    assert ratios[k] > 0
    rel = float(np.sqrt(ratios[k] * ratios[:k].min()))
    outs = []
    for cls in (LocalRows, _PythonRows):
        B = cls(RowData(X), 1.0, cpos.copy(), cneg.copy())
        w = np.zeros(21)
        outs.append(mfn_loop(B, w, 1e-3, rel_tol=rel, **kw))
    (n1, _, st1, *_), (n2, _, st2, *_) = outs
    assert st1 == st2 == 1 and n1 == n2
    if not cold_start:
        assert n1 == k + 1
    else:       # the loose phase goes on after its first small decrease
        assert n1 > k + 1


@pytest.mark.parametrize("rows_cls", [LocalRows, _PythonRows])
def test_outputs_a_caller_keeps_stay_as_they_were(rows_cls):
    # each MFN call returns outputs of its own; its work array obar is the
    # last call's (no caller holds it), so a kept o never changes
    X, cpos, cneg = _problem(5, 80, 6, np.float64, True)
    B = rows_cls(RowData(X), 1.0, cpos, cneg)
    w = np.zeros(7)
    kept = []
    for k in range(4):
        mfn_loop(B, w, 0.1, tol=1e-8, max_iter=50, cg_max_iter=100,
                 cold_start=k == 0, rel_tol=1e-12)
        o = B.outputs()
        assert o is not B.obar
        assert all(o is not x for x, _ in kept)
        np.testing.assert_allclose(o, X @ w[:-1] + w[-1], rtol=1e-9, atol=1e-12)
        kept.append((o, o.copy()))
        # other costs for the next call (the outputs carried over, as TSVM's
        # switching rounds do)
        cpos[k::4], cneg[k::4] = cneg[k::4].copy(), cpos[k::4].copy()
    for o, copy in kept:
        assert o.tobytes() == copy.tobytes()


@pytest.mark.parametrize("floor", [1, 2**40])
def test_mfn_memory_check_reads_the_budget_from_its_floor_on(monkeypatch, floor):
    # below MFN_MEMORY_FLOOR bytes the budget is not read (a small solve);
    # from it on a budget too small refuses the solve, naming it
    from semisvm import _rows, _validation
    assert _rows.MFN_MEMORY_FLOOR == 16 * 2**20
    calls = []

    def tiny():
        calls.append(1)
        return 100.0, "RLIMIT_AS limit"
    monkeypatch.setattr(_validation, "memory_budget", tiny)
    monkeypatch.setattr(_rows, "MFN_MEMORY_FLOOR", floor)
    if floor > 1:
        _rows.check_mfn_memory(1000, 50, np.float64)
        assert calls == []
    else:
        with pytest.raises(_validation.NotEnoughMemoryError,
                           match="L2-SVM-MFN solver on 1000 rows x 50"):
            _rows.check_mfn_memory(1000, 50, np.float64)
        assert calls == [1]


@pytest.mark.parametrize("room", [False, True])
def test_kept_normal_matrix_only_where_it_fits(monkeypatch, room):
    # the kept normal matrix is a speed-up: the solve's own check does not
    # count it, and where the memory left (read from MFN_MEMORY_FLOOR bytes
    # on) has no room for it (2n floats, n int32 and (d+1)^2 + d + 4
    # float64) the Cholesky steps build the matrix afresh: a fit that fits
    # never fails for it
    from semisvm import _rows, _validation
    n, d = 10**6, 5
    base = 13 * (d + 1) * 8 + 7 * n * 8
    kept = 20 * n + 8 * ((d + 1) ** 2 + d + 4)
    left = base + kept if room else base + kept // 2
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (left, "RLIMIT_AS limit"))
    _rows.check_mfn_memory(n, d, np.float64)
    # what is left once the solve's vectors are allocated
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (left - base, "RLIMIT_AS limit"))
    assert _rows.kept_normal_fits(n, d, np.float64) is room
    # a whole fit: below the floor the budget is not read; with the floor at
    # 0 and no room, the fit goes on without the kept matrix, the former
    # arithmetic's bits
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 3))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(400) > 0, 1.0, -1.0)
    from semisvm.solvers import l2svm_mfn
    monkeypatch.setattr(_rows, "MFN_MEMORY_FLOOR", 0)
    asked = []
    monkeypatch.setattr(_rows, "fits_in_memory",
                        lambda nbytes: asked.append(nbytes) or room)
    w = l2svm_mfn(X, y, lam=1e-2, newton="cholesky").coef
    assert asked        # the kept matrix's room was asked for
    monkeypatch.setattr(LocalRows, "keep_normal", room)
    monkeypatch.setattr(_rows, "fits_in_memory", lambda nbytes: True)
    ref = l2svm_mfn(X, y, lam=1e-2, newton="cholesky").coef
    assert w.tobytes() == ref.tobytes()


def test_cold_start_outputs_are_the_pass_over_the_rows():
    # from w = 0 the outputs are the zero vector without a pass; any other w
    # takes the pass (the same bits as before)
    X, cpos, cneg = _problem(6, 50, 5, np.float64, True)
    for w in (np.zeros(6), np.r_[np.zeros(5), 0.3], np.arange(6.0) - 2):
        B = LocalRows(RowData(X), 1.0, cpos, cneg)
        B._start_outputs(w)
        want = np.zeros(50)
        K.outputs(RowData(X), 1.0, w, np.zeros(50, dtype=np.int32), want, 1)
        assert B.o.tobytes() == want.tobytes()
        np.testing.assert_allclose(B.o, X @ w[:-1] + w[-1], atol=1e-12)


# -- the Cholesky steps' kept normal matrix ---------------------------------

def _direct_step(R, X, a, t, lam, kept=None, valid=False):
    """One Cholesky Newton point of the rows with a > 0 (K.newton_point)."""
    n, D = X.shape[0], X.shape[1] + 1
    dt = a.dtype
    act = np.flatnonzero(a > 0)
    active = np.zeros(n, dtype=np.int32)
    active[: act.size] = act
    wbar = np.zeros(D, dtype=dt)
    o = np.zeros(n, dtype=dt)
    obar = np.zeros(n, dtype=dt)
    work = [np.zeros(n, dtype=dt) for _ in range(2)] + [
        np.zeros(D, dtype=dt) for _ in range(4)]
    tbuf = np.zeros(K.slice_buffer_len(R), dtype=dt)
    H, b = np.zeros(D * D), np.zeros(D)
    status, _, _ = K.newton_point(
        R, 0.7, active, act.size, a, t, lam, wbar, o, obar, 1e-10, 0.0, 100,
        True, *work, tbuf, H, b, 1, True, 0.0, True,
        *(kept if kept is not None else (None,) * 5), valid)
    assert status == 1
    return wbar


def _reference_step(X, a, t, lam, s=0.7):
    E = np.c_[X.toarray() if sp.issparse(X) else X, np.full(X.shape[0], s)]
    E = E.astype(np.float64)
    A = a.astype(np.float64)
    return np.linalg.solve(lam * np.eye(E.shape[1]) + E.T @ (A[:, None] * E),
                           E.T @ (A * t))


@pytest.mark.parametrize("sparse", [False, True])
def test_kept_normal_matrix_steps_solve_each_steps_system(dtype, sparse):
    # a run of Cholesky steps whose weights and targets change between
    # steps (rows leaving and entering the active set, weights and targets
    # moved: TSVM's switches, DA's p-steps) keeps the normal matrix and
    # brings it up to date; each step's point is that of its own system,
    # solved by NumPy from scratch
    rng = np.random.default_rng(5)
    n, d = 300, 12
    X = rng.standard_normal((n, d))
    if sparse:
        X[rng.random((n, d)) < 0.6] = 0.0
        X = sp.csr_matrix(X)
    X = X.astype(dtype)
    R = RowData(X)
    a = np.where(rng.random(n) < 0.6, rng.uniform(0.5, 2.0, n), 0).astype(dtype)
    t = rng.choice([-1.0, 1.0], n).astype(dtype)
    kept = (np.zeros((d + 1) ** 2), np.zeros(d + 4), np.zeros(n, dtype=dtype),
            np.zeros(n, dtype=dtype), np.zeros(n, dtype=np.int32))
    tol = 1e-10 if dtype == np.float64 else 2e-4
    for step in range(6):
        w = _direct_step(R, X, a, t, 0.3, kept, valid=step > 0)
        np.testing.assert_allclose(w, _reference_step(X, a, t, 0.3),
                                   rtol=tol, atol=tol)
        # and the fresh build of this step, as before
        w0 = _direct_step(R, X, a, t, 0.3)
        np.testing.assert_allclose(w, w0, rtol=tol, atol=tol)
        # what the kept state holds: these weights and targets
        assert np.array_equal(kept[2], a) and np.array_equal(kept[3], t)
        # next step: 20 rows leave or enter, 10 change weight, 10 target
        i = rng.choice(n, 40, replace=False)
        a[i[:20]] = np.where(a[i[:20]] > 0, 0, 1.3)
        a[i[20:30]] *= dtype(1.5)
        t[i[30:]] = rng.uniform(-1, 1, 10)
    # the differences themselves: H_prev + diff = H of the new (a, t)
    active = np.arange(n, dtype=np.int32)
    a0, t0 = a.copy(), t.copy()
    a[:50] = 0
    a[50:60] *= dtype(2)
    t[60:70] = -t[60:70]
    H0, b0 = K.normal_matrix(R, 0.7, active, n, a0, t0)
    H1, b1 = K.normal_matrix(R, 0.7, active, n, a, t)
    Hd, bd = K.normal_matrix(R, 0.7, active, 70, a, t, a_prev=a0, t_prev=t0)
    np.testing.assert_allclose(H0 + Hd, H1, rtol=tol, atol=tol)
    np.testing.assert_allclose(b0 + bd, b1, rtol=tol, atol=tol)


@pytest.mark.parametrize("few", [False, True])
def test_kept_normal_matrix_is_updated_only_below_a_pass_of_work(few):
    # the size switch: the changed rows' work (sum of (nnz + 1)^2) below a
    # pass over the active rows updates the kept matrix, else it is built
    # anew. A marker added to the kept matrix survives an update (which
    # adds to what is there) and not a fresh build.
    rng = np.random.default_rng(2)
    n, d = 200, 6
    X = sp.csr_matrix(rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7))
    R = RowData(X)
    a = rng.uniform(0.5, 2.0, n)
    t = rng.choice([-1.0, 1.0], n)
    kept = (np.zeros((d + 1) ** 2), np.zeros(d + 4), np.zeros(n), np.zeros(n),
            np.zeros(n, dtype=np.int32))
    _direct_step(R, X, a, t, 0.3, kept)
    fresh = kept[0].copy()
    kept[0][0] += 1000.0
    # few: 10 of 200 rows leave; else 190 leave (10 stay active)
    k = 10 if few else 190
    a[:k] = 0
    _direct_step(R, X, a, t, 0.3, kept, valid=True)
    H_new, _ = K.normal_matrix(R, 0.7, np.arange(n, dtype=np.int32), n, a, t)
    if few:
        assert kept[0][0] == pytest.approx(1000.0 + H_new[0, 0], rel=1e-12)
        assert not np.array_equal(kept[0], fresh)
    else:
        assert np.array_equal(kept[0], H_new.ravel())


@pytest.mark.parametrize("case", ["few", "large_rows", "large_targets"])
def test_kept_normal_matrix_is_built_anew_past_its_rounding_rule(case):
    # the rounding rule: an update whose changed rows' magnitudes (sum
    # |a_i - a_prev_i| ||e_i||^2 with all those since the last build)
    # exceed KEPT_REBUILD times the trace of H (the same for b with
    # |a_i t_i - a_prev_i t_prev_i| ||e_i|| against sum_J |a_i t_i| ||e_i||)
    # builds anew; a marker added to the kept matrix shows which was done
    rng = np.random.default_rng(3)
    n, d = 200, 6
    X = rng.standard_normal((n, d))
    a = rng.uniform(0.5, 2.0, n)
    t = rng.choice([-1.0, 1.0], n)
    if case == "large_rows":
        X[:5] *= 1e3        # five rows of 1e6 times the others' ||e||^2 ...
    elif case == "large_targets":
        t[:5] *= 1e4        # ... or targets of 1e4 times the others'
    R = RowData(X)
    kept = (np.zeros((d + 1) ** 2), np.zeros(d + 4), np.zeros(n), np.zeros(n),
            np.zeros(n, dtype=np.int32))
    _direct_step(R, X, a, t, 0.3, kept)
    kept[0][1] += 1.0
    if case == "large_targets":
        t[:5] = 1.0         # ... which change, the rows staying active
    else:
        a[:5] = 0           # ... which leave (few rows: an update's work)
    w = _direct_step(R, X, a, t, 0.3, kept, valid=True)
    H_new, b_new = K.normal_matrix(R, 0.7, np.arange(n, dtype=np.int32), n,
                                   a, t)
    if case == "few":
        assert kept[0][1] == pytest.approx(1.0 + H_new[0, 1], rel=1e-12)
    else:
        assert np.array_equal(kept[0], H_new.ravel())
        assert np.array_equal(kept[1][:d + 1], b_new)
        np.testing.assert_allclose(w, _reference_step(X, a, t, 0.3),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_kept_normal_matrix_of_mixed_norms_matches_fresh_builds(monkeypatch,
                                                                sparse):
    # 20 of 2,000 rows 1e6 times larger, far on their side: active at w = 0,
    # they leave after the first step. The kept matrix would hold their
    # subtracted outer products' rounding (about 1e-5 relative in coef with
    # no rebuild rule); the rule builds it anew and the fit matches fresh
    # builds at every step to rounding
    from semisvm._core._mfn import _set_kept_rebuild
    from semisvm.solvers import l2svm_mfn
    rng = np.random.default_rng(0)
    n, d = 2000, 10
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.8 * rng.standard_normal(n) > 0, 1, -1)
    idx = rng.choice(n, 20, replace=False)
    X[idx] *= 1e6
    X[idx, 0] = np.abs(X[idx, 0]) * y[idx]
    if sparse:
        X = sp.csr_matrix(X)
    rel = []
    for factor in (100.0, np.inf):
        old = _set_kept_rebuild(factor)
        try:
            runs = []
            for keep in (True, False):
                monkeypatch.setattr(LocalRows, "keep_normal", keep)
                runs.append(l2svm_mfn(X, y, lam=1e-3, newton="cholesky",
                                      tol=1e-9, grad_tol=0))
        finally:
            _set_kept_rebuild(old)
        kept, fresh = runs
        assert kept.n_iter == fresh.n_iter >= 3
        rel.append(np.max(np.abs(kept.coef - fresh.coef))
                   / np.max(np.abs(fresh.coef)))
    assert rel[0] < 1e-10 < rel[1]


@pytest.mark.parametrize("huge", [False, True])
def test_stalled_cholesky_step_hands_the_call_to_cgls(huge):
    # 20 of 2,000 rows 1e5 times larger, on their wrong side (they stay
    # active): lam I + X_J' A X_J is too ill-conditioned for the Cholesky
    # factor and a step fails to decrease F; the call goes on with CGLS
    # steps to CGLS's optimum (else it stopped "relative" 4e-4 above it). Without the huge rows no CG step is taken.
    # The Python loop does the same
    from semisvm.solvers import l2svm_mfn
    rng = np.random.default_rng(0)
    n, d = 2000, 10
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.8 * rng.standard_normal(n) > 0, 1, -1)
    if huge:
        idx = rng.choice(n, 20, replace=False)
        X[idx] *= 1e5
        X[idx, 0] = -np.abs(X[idx, 0]) * y[idx]
    ref = l2svm_mfn(X, y, lam=1e-3, newton="cgls", tol=1e-14, grad_tol=0,
                    max_iter=200)
    r = l2svm_mfn(X, y, lam=1e-3, newton="cholesky", tol=1e-9, grad_tol=0)
    assert r.status == "optimal"
    assert (r.n_cg_iter > 0) == huge
    assert r.objective == pytest.approx(ref.objective, rel=1e-9)
    cpos = np.where(y > 0, 1.0, 0.0)
    cneg = np.where(y < 0, 1.0, 0.0)
    runs = []
    for cls in (LocalRows, _PythonRows):
        B = cls(RowData(X), 1.0, cpos.copy(), cneg.copy())
        w = np.zeros(d + 1)
        out = mfn_loop(B, w, 1e-3, tol=1e-9, max_iter=50, cg_max_iter=1000,
                       cold_start=False, rel_tol=1e-9, direct=True)
        runs.append((w.tobytes(), out[:3]))
    assert runs[0] == runs[1]
    assert (runs[0][1][1] > 0) == huge


@pytest.mark.parametrize("sparse", [False, True])
def test_kept_normal_matrix_fit_matches_fresh_builds(monkeypatch, sparse):
    # whole L2-SVM-MFN runs (several Cholesky steps each) with the kept
    # matrix against a build from all active rows at every step
    from semisvm.solvers import l2svm_mfn
    rng = np.random.default_rng(7)
    n, d = 600, 15
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.8 * rng.standard_normal(n) > 0, 1, -1)
    if sparse:
        X[rng.random((n, d)) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    runs = []
    for keep in (True, False):
        monkeypatch.setattr(LocalRows, "keep_normal", keep)
        runs.append(l2svm_mfn(X, y, lam=0.01, newton="cholesky", tol=1e-9,
                              grad_tol=0))
    kept, fresh = runs
    assert kept.n_iter == fresh.n_iter >= 3 and kept.n_cg_iter == 0
    assert kept.objective == pytest.approx(fresh.objective, rel=1e-12)
    np.testing.assert_allclose(kept.coef, fresh.coef, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_cholesky_fits_same_bits_for_any_n_jobs(sparse):
    # few features: Newton steps by Cholesky with the kept normal matrix
    # (serial) and the outputs' passes in row blocks over the threads
    from semisvm import DASVM, TSVM, LinearSVM
    from semisvm._core._cgls import _set_blocking
    rng = np.random.default_rng(11)
    n, d = 3000, 12
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)
    if sparse:
        X[rng.random((n, d)) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    ys = np.where(rng.random(n) < 0.05, y, -1)
    old = _set_blocking(500, 64, 1)
    try:
        got = []
        for k in (1, 2, 3, 8):
            fits = (LinearSVM(lam=0.01, n_jobs=k).fit(X, y),
                    TSVM(n_jobs=k).fit(X, ys), DASVM(n_jobs=k).fit(X, ys))
            assert all(f.result_.n_cg_iter == 0 for f in fits)
            got.append([(f.coef_.tobytes(), np.asarray(f.intercept_).tobytes(),
                         f.decision_function(X).tobytes()) for f in fits])
    finally:
        _set_blocking(*old)
    for g in got[1:]:
        assert g == got[0]


@pytest.mark.parametrize("mix", [-1.0, 1.0])
def test_model_decrease_test_stops_cg_where_its_progress_slowed(mix):
    # eta < 0: CG stops (status 2) at the first iteration i whose decrease of
    # the quadratic model, Q_{i-1} - Q_i, is at most -eta / i times Q_0 - Q_i
    # (the model computed here from the iterates), at the compiled loop's
    # and the driver-side twin's iteration alike; prec_mix 1 (Jacobi) and
    # the default weight
    from semisvm._core._cgls import _cgls_py
    from semisvm._rows import cgls_twin
    rng = np.random.RandomState(7)
    n, d, lam = 300, 40, 0.05
    X = rng.randn(n, d) * (rng.rand(d) * 5) ** 2
    a, t = rng.rand(n) + 0.5, np.sign(rng.randn(n))
    Xa = np.c_[X, np.ones(n)]
    H = Xa.T @ (a[:, None] * Xa) + lam * np.eye(d + 1)
    rhs = Xa.T @ (a * t)

    def model(b):
        return 0.5 * b @ H @ b - rhs @ b

    def run(cap, eta):
        b = np.zeros(d + 1)
        st, it = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                          lam, b, np.zeros(n), 1e-14, cap, eta=eta, prec_mix=mix)
        return st, it, b

    qtol = 0.3
    st, it, b = run(1000, -qtol)
    assert st == 2 and 2 <= it < run(1000, 0.0)[1]
    q = [model(run(k, 0.0)[2]) for k in range(it + 1)]
    # the test holds at it and at no earlier iteration
    held = [k * (q[k - 1] - q[k]) <= qtol * (q[0] - q[k]) * (1 + 1e-9)
            for k in range(1, it + 1)]
    assert held[-1] and not any(held[:-1])
    np.testing.assert_allclose(b, run(it, 0.0)[2], rtol=0, atol=0)

    def prod(p):
        u = (H - lam * np.eye(d + 1)) @ p
        return u, float(p @ u)

    diag = np.einsum("ij,ij,i->j", Xa, Xa, a)
    bt = np.zeros(d + 1)
    assert cgls_twin(prod, rhs, rhs.copy(), diag, bt, lam, 1e-14, -qtol, 1000,
                     prec_mix=mix) == (2, it)
    np.testing.assert_allclose(bt, b, rtol=1e-8, atol=1e-12)


def test_gradient_test_waits_one_iteration_for_a_small_decrease():
    # grad_decrease >= 0: LIBLINEAR's gradient test is made only on the
    # seeds of iterations whose predecessor decreased F by at most that much
    # (relative), or once one iteration whose seed passed it went on: here
    # the test passes after a large step, so the run takes one iteration
    # more; with a bound above that step's decrease, none; the compiled and
    # the Python loop stop at the same iteration
    from semisvm.linear import MFN_PREC_MIX
    rng = np.random.RandomState(0)
    X = sp.random(600, 80, density=0.3, random_state=0, format="csr") * 3
    y = np.sign(X @ rng.randn(80) - 0.5 + 0.5 * rng.randn(600))
    y[y == 0] = 1
    cpos, cneg = np.where(y > 0, 1.0, 0.0), np.where(y < 0, 1.0, 0.0)

    def fit(grad_decrease):
        runs = []
        for cls in (LocalRows, _PythonRows):
            B = cls(RowData(X), 1.0, cpos.copy(), cneg.copy())
            B.prec_mix = MFN_PREC_MIX
            w = np.zeros(81)
            out = mfn_loop(B, w, 0.01, tol=1e-10, max_iter=50,
                           cg_max_iter=1000, cold_start=True, rel_tol=0.0,
                           forcing=-0.05, grad_tol=0.05,
                           grad_decrease=grad_decrease)
            runs.append((w, out))
        (w_c, out_c), (w_p, out_p) = runs
        assert out_c[2] == out_p[2] == 3 and out_c[0] == out_p[0]
        np.testing.assert_allclose(w_p, w_c, rtol=1e-9, atol=1e-12)
        hobj = out_c[4][:out_c[0] + 1]
        return out_c[0], -np.diff(hobj) / hobj[1:]

    n0, dec0 = fit(-1.0)
    assert dec0[-1] > 1e-3
    n1, _ = fit(1e-3)
    assert n1 == n0 + 1
    n2, _ = fit(2 * dec0[-1])
    assert n2 == n0


@pytest.mark.parametrize("seed", range(4))
def test_top_labels_is_the_stable_argsort(seed):
    # TSVM's first labels by selection: the first n_pos of a stable argsort
    # of -o (ties: lowest position first), signed zeros equal
    from semisvm._rows import _top_labels
    rng = np.random.default_rng(seed)
    u = 400
    ou = np.round(rng.normal(size=u), 1)          # many ties
    ou[rng.choice(u, 20, replace=False)] = -0.0
    ou[rng.choice(u, 20, replace=False)] = 0.0
    for n_pos in (0, 1, 7, 133, 200, 399, 400, 401, -1):
        ref = np.full(u, -1, dtype=np.int8)
        ref[np.argsort(-ou, kind="stable")[:max(n_pos, 0)]] = 1
        got = _top_labels(ou.copy(), n_pos)
        assert got.dtype == np.int8
        np.testing.assert_array_equal(got, ref)
    assert _top_labels(np.zeros(0), 3).shape == (0,)
