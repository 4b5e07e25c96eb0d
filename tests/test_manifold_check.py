"""LapSVM / LapRLS exact path: the fit and its check's label folds share the
label-free Newton setup (L^p K, the same bits) and the fit's factorisation
(the folds of LapRLS through it by the Woodbury identity)."""
import warnings
import weakref

import numpy as np
import pytest
import scipy.linalg as sla
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

import semisvm._manifold_solvers as ms
import semisvm.manifold as man
from semisvm import LapRLS, LapSVM
from semisvm.graph import graph_laplacian
from semisvm.kernels import kernel_matrix

KW = dict(gamma_A=1e-4, gamma_I=1.0, stop="stability", tol=None, max_iter=None,
          check_every=None, eta=None)


def _problem(n=120, n_classes=2, per_class=6, seed=0, dtype=np.float64):
    X, yt = make_blobs(n, centers=n_classes, cluster_std=2.5, random_state=seed)
    X = X.astype(dtype)
    K = kernel_matrix(X, gamma=0.2)
    L = graph_laplacian(X, n_neighbors=6)
    y = np.full(n, -1)
    rng = np.random.default_rng(seed)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, K, L, y, yt


def _ovr(y, classes):
    out = []
    for c in classes:
        yy = (y == c).astype(np.int8)
        yy[y == -1] = -1
        out.append(yy)
    return out


def _folds(y):
    """The two label folds' y (every other labeled row hidden)."""
    lab = np.flatnonzero(y != -1)
    out = []
    for k in (0, 1):
        yh = y.copy()
        yh[lab[k::2]] = -1
        out.append(yh)
    return out


class _Count:
    def __init__(self, fn):
        self.fn, self.calls = fn, []

    def __call__(self, *a, **k):
        self.calls.append(a)
        return self.fn(*a, **k)


def _direct(K, L, ys, E, gA, gI, fit_b, power):
    """The Newton step's bordered system, formed densely and solved by
    numpy (the reference of the shared path)."""
    K = K.astype(float)
    Lp = np.linalg.matrix_power(L.toarray().astype(float), power)
    n = K.shape[0]
    M = gA * np.eye(n) + gI * Lp @ K
    M[E] += K[E]
    # the 1 / 0 labels as the solver's +1 / -1 targets
    Y = np.where(np.column_stack(ys) == 1, 1.0, -1.0)
    rhs = np.zeros((n + fit_b, Y.shape[1]))
    rhs[E] = Y[E]
    if fit_b:
        a1 = gI * Lp.sum(axis=1)
        a1[E] += 1
        M = np.block([[M, a1[:, None]], [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(M, rhs)
    return sol[:n], (sol[n] if fit_b else np.zeros(Y.shape[1]))


@pytest.mark.parametrize("loss,solver", [("squared", "closed"),
                                         ("squared_hinge", "newton")])
@pytest.mark.parametrize("n_classes,power", [(2, 1), (3, 2)])
def test_shared_setup_same_bits_and_computed_once(monkeypatch, loss, solver,
                                                  n_classes, power):
    # without the Woodbury solve (its rank limit at 0) sharing changes no bit
    monkeypatch.setattr(ms, "WOODBURY_MAX_FRACTION", 0.0)
    _, K, L, y, _ = _problem(n_classes=n_classes)
    classes = np.arange(n_classes) if n_classes > 2 else [1]
    kw = dict(KW, loss=loss, solver=solver, fit_intercept=True, power=power)
    plain = [ms.lapsvm_multi(K, L, _ovr(yy, classes), **kw)
             for yy in [y] + _folds(y)]
    spy = _Count(ms.lap_newton_setup)
    monkeypatch.setattr(ms, "lap_newton_setup", spy)
    shared = {}
    got = [ms.lapsvm_multi(K, L, _ovr(yy, classes), shared=shared, **kw)
           for yy in [y] + _folds(y)]
    assert len(spy.calls) == 1
    for a, b in zip(plain, got):
        for ra, rb in zip(a, b):
            np.testing.assert_array_equal(ra.alpha, rb.alpha)
            np.testing.assert_array_equal(ra.decision, rb.decision)
            assert ra.intercept == rb.intercept and ra.n_iter == rb.n_iter


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes,power", [(2, 1), (3, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_folds_through_the_fit_factorisation(monkeypatch, fit_intercept, n_classes,
                                             power, dtype):
    _, K, L, y, _ = _problem(n_classes=n_classes, dtype=dtype)
    classes = np.arange(n_classes) if n_classes > 2 else [1]
    kw = dict(KW, loss="squared", solver="closed", fit_intercept=fit_intercept,
              power=power)
    fit0 = ms.lapsvm_multi(K, L, _ovr(y, classes), **kw)
    folds0 = [ms.lapsvm_multi(K, L, _ovr(yy, classes), **kw) for yy in _folds(y)]
    lu = _Count(sla.lu_factor)
    monkeypatch.setattr(sla, "lu_factor", lu)
    shared = {}
    fit1 = ms.lapsvm_multi(K, L, _ovr(y, classes), shared=shared, **kw)
    folds1 = [ms.lapsvm_multi(K, L, _ovr(yy, classes), shared=shared, **kw)
              for yy in _folds(y)]
    # one n x n factorisation; the folds' are h x h (the hidden rows)
    n = K.shape[0]
    assert [a[0].shape[0] >= n for a in lu.calls] == [True] + [False] * (
        len(lu.calls) - 1)
    assert len(lu.calls) == 1 + len(_folds(y))
    assert all(a[0].shape[0] < n // 4 for a in lu.calls[1:])
    # the fit itself: the same bits as sla.solve
    for ra, rb in zip(fit0, fit1):
        np.testing.assert_array_equal(ra.alpha, rb.alpha)
        np.testing.assert_array_equal(ra.decision, rb.decision)
    # the folds: the new factorisation's solution to rounding, and the
    # dense system's (numpy) solution
    tol = 1e-9 if dtype == np.float64 else 1e-5
    for yy, a, b in zip(_folds(y), folds0, folds1):
        E = np.flatnonzero(yy != -1)
        ref_a, ref_b = _direct(K, L, [r for r in _ovr(yy, classes)], E, 1e-4, 1.0,
                               fit_intercept, power)
        # (alpha itself is ill-determined with gamma_A = 1e-4, K's small
        # eigenvalues: the decision values f = K alpha + b are compared)
        ref_f = K.astype(float) @ ref_a + ref_b
        for j, (ra, rb) in enumerate(zip(a, b)):
            scale = np.max(np.abs(ra.decision))
            assert np.max(np.abs(ra.decision - rb.decision)) <= tol * scale
            assert np.max(np.abs(rb.decision - ref_f[:, j])) <= 10 * tol * scale


def test_woodbury_rank_limit_both_sides(monkeypatch):
    # h = |E0 \ E| hidden rows: through the fit's factors up to
    # WOODBURY_MAX_FRACTION * n, a new factorisation (the same bits as
    # without sharing) above
    _, K, L, y, _ = _problem(n=100, per_class=10)
    kw = dict(KW, loss="squared", solver="closed", fit_intercept=True, power=1)
    yh = _folds(y)[0]
    h = int(np.sum((y != -1) & (yh == -1)))
    plain = ms.lapsvm_multi(K, L, _ovr(yh, [1]), **kw)[0]
    for frac, through in ((h / 100, True), ((h - 1) / 100, False)):
        monkeypatch.setattr(ms, "WOODBURY_MAX_FRACTION", frac)
        wb = _Count(ms.woodbury_solve)
        monkeypatch.setattr(ms, "woodbury_solve", wb)
        shared = {}
        ms.lapsvm_multi(K, L, _ovr(y, [1]), shared=shared, **kw)
        got = ms.lapsvm_multi(K, L, _ovr(yh, [1]), shared=shared, **kw)[0]
        assert len(wb.calls) == 1
        if through:
            assert not np.array_equal(got.decision, plain.decision)
            np.testing.assert_allclose(got.decision, plain.decision, rtol=0,
                                       atol=1e-9 * np.max(np.abs(plain.decision)))
        else:
            np.testing.assert_array_equal(got.decision, plain.decision)
        monkeypatch.undo()


def test_labels_outside_the_fit_get_their_own_factorisation():
    # a later call labelling a row the first did not: no subset, a new
    # factorisation (the same bits as without sharing); the stored factors
    # stay the first call's
    _, K, L, y, _ = _problem()
    kw = dict(KW, loss="squared", solver="closed", fit_intercept=True, power=1)
    y2 = y.copy()
    y2[np.flatnonzero(y == -1)[0]] = 1
    shared = {}
    ms.lapsvm_multi(K, L, _ovr(y, [1]), shared=shared, **kw)
    E0 = shared["factor"]["E"].copy()
    got = ms.lapsvm_multi(K, L, _ovr(y2, [1]), shared=shared, **kw)[0]
    plain = ms.lapsvm_multi(K, L, _ovr(y2, [1]), **kw)[0]
    np.testing.assert_array_equal(got.decision, plain.decision)
    np.testing.assert_array_equal(shared["factor"]["E"], E0)


def test_singular_system_least_squares_and_no_factors_kept():
    # an exactly singular matrix (M = all ones: every sum below is exact):
    # least squares on M, as before (the factorisation, which overwrites
    # its matrix in place, does not leak into it), with and without a
    # factor dict, and nothing stored for later calls
    n = 30
    K = np.full((n, n), 0.5)
    E = np.arange(5)
    LK = np.full((n, n), 1.0)
    LK[np.arange(n), np.arange(n)] -= 0.25
    LK[E] -= K[E]
    y = np.zeros((n, 1))
    y[E, 0] = 1.0
    rhs = np.zeros((n, 1))
    rhs[E] = 1.0
    ref = np.linalg.lstsq(np.ones((n, n)), rhs, rcond=None)[0]
    for factor in (None, {}):
        a, _ = ms.newton_solve(K, LK, np.zeros(n), y, E, 0.25, 1.0, False,
                               factor=factor)
        np.testing.assert_allclose(a, ref, rtol=1e-10, atol=1e-12)
    assert "lu" not in factor


def _old_multi(*args, shared=None, **kw):
    # the path before sharing: every call computes its own setup and LU
    return ms.lapsvm_multi(*args, **kw)


@pytest.mark.parametrize("Est", [LapRLS, LapSVM])
@pytest.mark.parametrize("case", range(4))
def test_estimator_check_as_before_and_setup_once(monkeypatch, Est, case):
    # the default check's outcome (fell back or not, its scores, the labels)
    # the same as with a setup and factorisation per solve; the label-free
    # setup computed once per fit
    n_classes = (2, 3, 2, 2)[case]
    X, _, _, y, yt = _problem(n=150, n_classes=n_classes, per_class=8, seed=case)
    if case == 3:
        # concentric clouds: the graph term hurts, the check falls back
        rng = np.random.RandomState(0)
        yt = np.arange(150) % 2
        X = rng.randn(150, 5) * np.where(yt == 1, 3.0, 1.0)[:, None]
        y = np.full(150, -1)
        r = np.random.default_rng(0)
        for c in (0, 1):
            y[r.choice(np.flatnonzero(yt == c), 8, replace=False)] = c
    params = dict(solver="newton") if Est is LapSVM else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        spy = _Count(ms.lap_newton_setup)
        monkeypatch.setattr(ms, "lap_newton_setup", spy)
        new = Est(**params).fit(X, y)
        assert len(spy.calls) == 1
        monkeypatch.setattr(man, "_lapsvm_multi", _old_multi)
        old = Est(**params).fit(X, y)
        assert len(spy.calls) == 4        # the old path: one per solve
    assert new.safe_check_ == old.safe_check_ == "two folds"
    assert new.fell_back_ == old.fell_back_
    assert new.unlabeled_gain_ == old.unlabeled_gain_
    for a, b in zip(new.safe_scores_, old.safe_scores_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(new.transduction_, old.transduction_)
    np.testing.assert_array_equal(new.decision_function(X), old.decision_function(X))
    if case == 3:
        assert new.fell_back_
    # nothing of the n x n work stays on the estimator
    assert not any(isinstance(v, dict) and "setup" in v for v in vars(new).values())


def test_nothing_shared_without_the_check(monkeypatch):
    # safe=False (no folds) and safe=True (refits on folds of the rows, each
    # its own K and L): no factors kept, no Woodbury solve; safe="auto": the
    # fit's factors, the two folds through them
    X, _, _, y, _ = _problem(n=120)
    calls = []
    orig = ms.newton_solve

    def spy(*a, factor=None, **k):
        calls.append(factor)
        return orig(*a, factor=factor, **k)

    wb = _Count(ms.woodbury_solve)
    monkeypatch.setattr(ms, "newton_solve", spy)
    monkeypatch.setattr(ms, "woodbury_solve", wb)
    LapRLS(safe=False).fit(X, y)
    assert calls == [None] and not wb.calls
    calls.clear()
    LapRLS().fit(X, y)
    assert len(calls) == 3 and all(f is calls[0] for f in calls)
    assert "lu" in calls[0] and len(wb.calls) == 2


@pytest.mark.parametrize("fit_b", [False, True])
def test_woodbury_solve_against_numpy(fit_b):
    # M_E = M_E0 less the rows H = E0 \ E of I_E0 K (and of the bias
    # column): through M_E0's LU, as numpy's solve of M_E itself
    rng = np.random.default_rng(3)
    n, N = 12, 12 + fit_b
    K = rng.standard_normal((n, n))
    E0 = np.array([1, 4, 5, 8, 10])
    E = np.array([4, 8, 10])
    M0 = rng.standard_normal((N, N)) + N * np.eye(N)
    ME = M0.copy()
    ME[[1, 5], :n] -= K[[1, 5]]
    if fit_b:
        ME[[1, 5], n] -= 1.0
    rhs = rng.standard_normal((N, 2))
    got = ms.woodbury_solve(K, E0, sla.lu_factor(M0), E, rhs, fit_b)
    np.testing.assert_allclose(got, np.linalg.solve(ME, rhs), rtol=1e-12, atol=1e-12)
    # not a subset of E0: None (the caller factorises M_E)
    assert ms.woodbury_solve(K, E0, sla.lu_factor(M0), np.array([2, 4]), rhs,
                             fit_b) is None


def test_woodbury_solve_singular_capacitance_is_none():
    # M_E0 = A + e_0 K_0 with A singular (row 0 zero): hiding row 0 leaves
    # the singular A, S = 1 - K_0 M_E0^-1 e_0 = 0 exactly
    n = 4
    K = np.zeros((n, n))
    K[0] = [1.0, 2.0, 3.0, 4.0]
    M0 = np.diag([0.0, 1.0, 1.0, 1.0])
    M0[0] += K[0]
    rhs = np.ones((n, 1))
    assert ms.woodbury_solve(K, np.array([0, 2]), sla.lu_factor(M0),
                             np.array([2]), rhs, False) is None


def _old_newton_solve(K, LK, L1, y, E, gA, gI, fit_b):
    # newton_solve's gamma_I > 0 branch before this change: the matrix
    # bordered by np.block, C-ordered, solved by scipy.linalg.solve
    n = K.shape[0]
    M = gI * LK
    M.flat[:: n + 1] += gA
    M[E] += K[E]
    rhs = np.zeros((n + fit_b, y.shape[1]))
    rhs[E] = y[E]
    if fit_b:
        A1 = gI * L1
        A1[E] += 1
        M = np.block([[M, A1[:, None]], [np.ones((1, n)), np.zeros((1, 1))]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)
        sol = sla.solve(M, rhs, check_finite=False, overwrite_a=True)
    return (sol[:n], sol[n]) if fit_b else (sol, np.zeros(y.shape[1]))


@pytest.mark.parametrize("fit_b", [False, True])
@pytest.mark.parametrize("n_classes,power", [(2, 1), (3, 2)])
def test_direct_solve_same_bits_as_before(fit_b, n_classes, power):
    # the matrix written in Fortran order and factorised in place: the
    # same bits as the old bordering and scipy.linalg.solve
    _, K, L, y, _ = _problem(n=150, n_classes=n_classes)
    K64, _, LK, L1 = ms.lap_newton_setup(K, L, 1.0, power)
    E = np.flatnonzero(y != -1)
    Y = np.where(np.column_stack(_ovr(y, range(n_classes))) == 1, 1.0, -1.0)
    for gA in (1e-4, 1e-8):
        a, b = ms.newton_solve(K64, LK, L1, Y, E, gA, 1.0, fit_b)
        a0, b0 = _old_newton_solve(K64, LK, L1, Y, E, gA, 1.0, fit_b)
        np.testing.assert_array_equal(a, a0)
        np.testing.assert_array_equal(b, b0)


def _blobs300(seed):
    # 300 rows, 3 classes, 30 labels (the ill-conditioned cases' problem)
    X, yt = make_blobs(300, centers=3, cluster_std=2.0, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(300, -1)
    idx = rng.choice(300, 30, replace=False)
    y[idx] = yt[idx]
    return X, y


def _check_outcome(est):
    return (est.fell_back_, est.unlabeled_gain_,
            [np.asarray(s).tolist() for s in est.safe_scores_])


@pytest.mark.parametrize("seed", [1, 3, 7])
@pytest.mark.parametrize("gamma_A,gamma_I", [(1e-12, 1e-8), (1e-10, 1.0)])
def test_ill_conditioned_folds_as_a_new_factorisation(monkeypatch, seed, gamma_A,
                                                      gamma_I):
    # a tiny gamma_A: the Woodbury solve's f is wrong (1e-12 / 1e-8: in its
    # leading digit), its refinement step says so, and the folds factorise
    # afresh: the check's outcome is the new-factorisation path's
    # (WOODBURY_MAX_FRACTION = 0), and the fit's factors are dropped
    X, y = _blobs300(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(ms, "WOODBURY_MAX_FRACTION", 0.0)
        ref = _check_outcome(LapRLS(gamma_A=gamma_A, gamma_I=gamma_I).fit(X, y))
        monkeypatch.undo()
        wb = _Count(ms.woodbury_solve)
        monkeypatch.setattr(ms, "woodbury_solve", wb)
        factors = []
        orig = ms.newton_solve

        def spy(*a, factor=None, **k):
            factors.append(factor)
            return orig(*a, factor=factor, **k)

        monkeypatch.setattr(ms, "newton_solve", spy)
        got = _check_outcome(LapRLS(gamma_A=gamma_A, gamma_I=gamma_I).fit(X, y))
    assert got == ref
    # tried once, refused (None), then the factors are gone
    assert len(wb.calls) == 1
    assert factors[0]["lu"] is None


def test_refinement_estimate_refuses_and_accepts():
    # woodbury_solve with M_E's pieces: the refined solution where the
    # estimate is small (f as a new LU's to 1e-10), None where large; the
    # new LU's f (numpy) is the reference
    X, y = _blobs300(3)
    K = kernel_matrix(X, gamma=1.0 / (2 * X.var()))
    L = graph_laplacian(X, n_neighbors=6)
    Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in range(3)])
    E0 = np.flatnonzero(y >= 0).astype(np.int32)
    E = E0[::2]
    n = K.shape[0]
    for gA, gI, ok in ((1e-4, 1.0, True), (1e-4, 1e-8, True), (1e-12, 1e-8, False),
                       (1e-8, 1e-8, False)):
        K64, _, LK, L1 = ms.lap_newton_setup(K, L, gI, 1)
        fac = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ms.newton_solve(K64, LK, L1, Y, E0, gA, gI, True, factor=fac)
            ad, bd = ms.newton_solve(K64, LK, L1, Y, E, gA, gI, True)
        rhs = np.zeros((n + 1, 3))
        rhs[E] = Y[E]
        kw = dict(LK=LK, L1=L1, gamma_A=gA, gamma_I=gI)
        x = ms.woodbury_solve(K64, fac["E"], fac["lu"], E, rhs, True, **kw)
        raw = ms.woodbury_solve(K64, fac["E"], fac["lu"], E, rhs, True)
        fd = K64 @ ad + bd
        err_raw = np.max(np.abs(K64 @ raw[:n] + raw[n] - fd)) / np.max(np.abs(fd))
        if ok:
            assert x is not None
            err = np.max(np.abs(K64 @ x[:n] + x[n] - fd)) / np.max(np.abs(fd))
            assert err <= 1e-9
        else:
            assert x is None
            # the refusal is warranted: the unrefined f is far off
            assert err_raw > 1e-4


def test_refused_woodbury_drops_the_factors_before_factorising(monkeypatch):
    # above the rank limit the fold factorises M_E itself: the fit's
    # factors are gone by then (the two n^2 factorisations never coexist)
    _, K, L, y, _ = _problem(n=100, per_class=10)
    kw = dict(KW, loss="squared", solver="closed", fit_intercept=True, power=1)
    monkeypatch.setattr(ms, "WOODBURY_MAX_FRACTION", 0.01)
    shared = {}
    ms.lapsvm_multi(K, L, _ovr(y, [1]), shared=shared, **kw)
    # the fit's LU array itself is freed (no reference left anywhere)
    lu_ref = weakref.ref(shared["factor"]["lu"][0])
    seen = []
    orig = sla.lu_factor

    def spy(a, *args, **k):
        if a.shape[0] > 50:
            seen.append((shared["factor"]["lu"], lu_ref()))
        return orig(a, *args, **k)

    monkeypatch.setattr(sla, "lu_factor", spy)
    for yy in _folds(y):
        ms.lapsvm_multi(K, L, _ovr(yy, [1]), shared=shared, **kw)
    assert seen == [(None, None), (None, None)]


def test_defaults_keep_the_woodbury_solve(monkeypatch):
    # the default gamma_A / gamma_I: every fold through the fit's factors
    # (none refused), the check's outcome the new-factorisation path's
    X, y = _blobs300(7)
    monkeypatch.setattr(ms, "WOODBURY_MAX_FRACTION", 0.0)
    ref = _check_outcome(LapRLS().fit(X, y))
    monkeypatch.undo()
    wb = _Count(ms.woodbury_solve)
    monkeypatch.setattr(ms, "woodbury_solve", wb)
    results = []
    orig = ms.woodbury_solve.fn

    def spy(*a, **k):
        out = orig(*a, **k)
        results.append(out is not None)
        return out

    wb.fn = spy
    got = _check_outcome(LapRLS().fit(X, y))
    assert got == ref
    assert len(results) >= 2 and all(results)
