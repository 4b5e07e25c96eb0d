"""LapSVM / LapRLS scalable modes (semisvm._lowrank, n_components): the
linear primal in w and Nystroem, against the exact kernel-matrix solver."""
import pickle
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_moons

from semisvm._lowrank import lap_primal_w, nystroem_features
from semisvm.graph import knn_affinity, laplacian
from semisvm.kernels import kernel_matrix
from semisvm.manifold import LapRLS, LapSVM, lapsvm_primal


def _blobs(n=80, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    yt = (np.arange(n) < n // 2).astype(int)
    X[yt == 1] += 1.5
    y = np.full(n, -1)
    lab = np.r_[0:4, n - 4:n]
    y[lab] = yt[lab]
    return X, y, yt


def _pm(y):
    return np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))


@pytest.mark.parametrize("loss", ["squared_hinge", "squared"])
@pytest.mark.parametrize("power", [1, 2])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_primal_w_matches_exact_linear_kernel(loss, power, fit_intercept):
    X, y, _ = _blobs()
    L = laplacian(knn_affinity(X, 6))
    ref = lapsvm_primal(X @ X.T, L, y, gamma_A=1e-2, gamma_I=1.0, loss=loss,
                        solver="newton", power=power, fit_intercept=fit_intercept)
    for Z in (X, sp.csr_matrix(X)):
        res = lap_primal_w(Z, L, _pm(y), gamma_A=1e-2, gamma_I=1.0, loss=loss,
                           power=power, fit_intercept=fit_intercept)
        assert res.converged
        assert abs(res.objective - ref.objective) <= 1e-9 * ref.objective
        np.testing.assert_allclose(res.decision, ref.decision, atol=1e-8)
        np.testing.assert_allclose(res.intercept, ref.intercept, atol=1e-8)
        # w = X' alpha: the same function
        np.testing.assert_allclose(res.coef, X.T @ ref.alpha, atol=1e-7)


def test_primal_w_objective_is_the_documented_one():
    X, y, _ = _blobs(seed=3)
    L = laplacian(knn_affinity(X, 5), normalized=False)
    res = lap_primal_w(X, L, _pm(y), gamma_A=0.1, gamma_I=0.5, power=2)
    f = X @ res.coef + res.intercept
    yl = _pm(y)[y != -1]
    hinge = np.maximum(0, 1 - yl * f[y != -1]) ** 2
    Ld = L.toarray()
    obj = 0.5 * (hinge.sum() + 0.1 * res.coef @ res.coef + 0.5 * f @ Ld @ Ld @ f)
    np.testing.assert_allclose(res.objective, obj, rtol=1e-12)
    np.testing.assert_allclose(res.decision, f, atol=1e-12)
    # optimality: the gradient vanishes
    act = (y != -1) & (_pm(y) * f < 1)
    r = np.where(act, f - _pm(y), 0.0)
    g = r + 0.5 * Ld @ Ld @ f
    np.testing.assert_allclose(X.T @ g + 0.1 * res.coef, 0, atol=1e-7)
    np.testing.assert_allclose(g.sum(), 0, atol=1e-7)


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_linear_estimator_matches_kernel_lapsvm(Est):
    X, y, yt = _blobs(n=100, seed=1)
    Xt = np.random.RandomState(9).randn(30, X.shape[1]) + 0.7
    lin = Est(kernel="linear", gamma_A=1e-2, p=2).fit(X, y)
    assert lin.mode_ == "linear" and lin.coef_.shape == (1, X.shape[1])
    ref = Est(kernel="linear", gamma_A=1e-2, p=2, n_components=None,
              solver="newton").fit(X, y)
    assert ref.mode_ == "exact"
    # the same graph: knn_affinity vs the Gram matrix's own kNN lists
    aff = knn_affinity(X, 10)
    lin = Est(kernel="linear", gamma_A=1e-2, p=2).fit(X, y, affinity=aff)
    ref = Est(kernel="linear", gamma_A=1e-2, p=2, n_components=None,
              solver="newton").fit(X, y, affinity=aff)
    np.testing.assert_allclose(lin.result_.objective, ref.result_.objective,
                               rtol=1e-9)
    np.testing.assert_array_equal(lin.transduction_, ref.transduction_)
    np.testing.assert_allclose(lin.decision_function(Xt),
                               ref.decision_function(Xt), atol=1e-7)
    np.testing.assert_array_equal(lin.predict(Xt), ref.predict(Xt))
    again = pickle.loads(pickle.dumps(lin))
    np.testing.assert_array_equal(again.decision_function(Xt),
                                  lin.decision_function(Xt))


def test_linear_csr_never_densified(monkeypatch):
    # 2000 x 3000 CSR, 0.2 % dense: a dense n x d array is 48 MB (24 MB in
    # float32), an n x n one 32 MB; the fit's own memory is O(nnz + n k)
    # (measured peak 1.3 MB; the kernel-matrix path: 60 MB)
    rng = np.random.RandomState(0)
    n, d = 2000, 3000
    X = sp.random(n, d, density=0.002, format="csr", random_state=rng)
    X.data[:] = rng.rand(X.nnz)
    X = X + sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(n) % 50)),
                          shape=(n, d))
    w = rng.randn(d)
    yt = (X @ w > np.median(X @ w)).astype(int)
    y = np.full(n, -1)
    y[:60] = yt[:60]
    aff = knn_affinity(X, 6, method="exact")

    def no_dense(*a, **k):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", no_dense)
        monkeypatch.setattr(cls, "todense", no_dense)
    tracemalloc.start()
    try:
        est = LapSVM(kernel="linear", gamma_A=0.1, gamma_I=0.1, p=1).fit(
            X, y, affinity=aff)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert est.mode_ == "linear" and est.result_.converged
    assert peak < 8e6, f"peak {peak / 1e6:.1f} MB"
    assert est.decision_function(X[:5]).shape == (5,)


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
@pytest.mark.parametrize("p", [1, 2])
def test_nystroem_m_equals_n_reproduces_exact(Est, p):
    X, y = make_moons(60, noise=0.1, random_state=0)
    y = np.where(np.arange(60) < 6, y, -1)
    Xt, _ = make_moons(40, noise=0.1, random_state=1)
    aff = knn_affinity(X, 8)
    kw = dict(gamma=1.0, gamma_A=1e-3, gamma_I=1.0, p=p)
    exact = Est(n_components=None, solver="newton", **kw).fit(X, y, affinity=aff)
    low = Est(n_components=60, **kw).fit(X, y, affinity=aff)
    assert low.mode_ == "nystroem" and low.n_components_ == 60
    assert low.result_.converged
    np.testing.assert_allclose(low.result_.objective, exact.result_.objective,
                               rtol=1e-6)
    np.testing.assert_array_equal(low.transduction_, exact.transduction_)
    np.testing.assert_allclose(low.decision_function(Xt),
                               exact.decision_function(Xt), atol=1e-4)


def test_nystroem_features_gram():
    X = np.random.RandomState(0).randn(50, 3)
    kern = lambda A, B: kernel_matrix(A, B, kernel="rbf", gamma=0.5)  # noqa: E731
    K = kern(X, X)
    Z, lm, N = nystroem_features(X, kern, 50)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8)
    Z, lm, N = nystroem_features(X, kern, 10, random_state=3)
    assert lm.shape == (10,) and np.all(np.diff(lm) > 0)
    np.testing.assert_array_equal(
        lm, np.sort(np.random.RandomState(3).permutation(50)[:10]))
    # Nystroem: Z Z' = K_nm K_mm^-1 K_mn, exact on the landmark columns
    np.testing.assert_allclose((Z @ Z.T)[:, lm], K[:, lm], atol=1e-8)
    Z32, _, _ = nystroem_features(X.astype(np.float32), kern, 10)
    assert Z32.dtype == np.float32


def test_nystroem_low_rank_accuracy_seeded_and_float32():
    X, yt = make_moons(400, noise=0.1, random_state=0)
    y = np.full(400, -1)
    y[np.r_[np.flatnonzero(yt == 0)[:3], np.flatnonzero(yt == 1)[:3]]] = 1
    y[np.flatnonzero(yt == 0)[:3]] = 0
    est = LapSVM(n_components=60, gamma=2.0, p=1).fit(X, y)
    err = np.mean(est.transduction_ != yt)
    assert err < 0.05, err
    again = LapSVM(n_components=60, gamma=2.0, p=1).fit(X, y)
    np.testing.assert_array_equal(again.dual_coef_, est.dual_coef_)
    e32 = LapSVM(n_components=60, gamma=2.0, p=1).fit(X.astype(np.float32), y)
    assert e32.dual_coef_.dtype == np.float32
    assert np.mean(e32.transduction_ != yt) < 0.05
    # multi-class one-vs-rest over the shared features and graph
    y3 = y.copy()
    y3[(X[:, 0] > 1.5) & (y3 == -1)] = -1
    y3[np.flatnonzero((X[:, 0] > 1.5) & (yt == 1))[:3]] = 2
    est3 = LapRLS(n_components=60, gamma=2.0, p=1).fit(X, y3)
    assert est3.dual_coef_.shape == (3, 60) and est3.predict(X[:5]).shape == (5,)


def test_auto_mode_threshold_and_message(monkeypatch, caplog):
    import logging

    import semisvm.manifold as m
    X, y = make_moons(120, noise=0.1, random_state=0)
    y = np.where(np.arange(120) < 6, y, -1)
    assert LapSVM(gamma=2.0).fit(X, y).mode_ == "exact"
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 30)
    with caplog.at_level(logging.INFO, logger="semisvm"):
        est = LapSVM(gamma=2.0).fit(X, y)
    assert est.mode_ == "nystroem" and est.n_components_ == 30
    assert "Nystroem low-rank mode" in caplog.text and "30 landmarks" in caplog.text
    # precomputed kernels stay exact
    K = kernel_matrix(X, kernel="rbf", gamma=2.0)
    assert LapSVM(kernel="precomputed").fit(K, y).mode_ == "exact"


def test_bad_n_components():
    X, y = make_moons(40, noise=0.1, random_state=0)
    y = np.where(np.arange(40) < 6, y, -1)
    with pytest.raises(ValueError, match="n_components"):
        LapSVM(n_components=41).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        LapSVM(n_components="big").fit(X, y)
    with pytest.raises(TypeError, match="n_components"):
        LapSVM(n_components=2.5).fit(X, y)
    with pytest.raises(ValueError, match="linear"):
        LapSVM(kernel="linear", n_components=10).fit(X, y)
    with pytest.raises(ValueError, match="precomputed"):
        LapSVM(kernel="precomputed", n_components=10).fit(
            kernel_matrix(X, kernel="rbf", gamma=1.0), y)


@pytest.mark.parametrize("power", [1, 2, 3])
@pytest.mark.parametrize("loss", ["squared_hinge", "squared"])
def test_direct_newton_matches_cg(power, loss):
    from semisvm._lowrank import lap_gram
    X, y, _ = _blobs(n=90, d=6, seed=4)
    L = laplacian(knn_affinity(X, 6))
    G = lap_gram(X, L, power)
    Zt = np.hstack([X, np.ones((90, 1))])
    Lp = np.linalg.matrix_power(L.toarray(), power)
    np.testing.assert_allclose(G, Zt.T @ Lp @ Zt, atol=1e-10)
    a = lap_primal_w(X, L, _pm(y), gamma_A=1e-2, power=power, loss=loss)
    b = lap_primal_w(X, L, _pm(y), gamma_A=1e-2, power=power, loss=loss, gram=G)
    np.testing.assert_allclose(b.objective, a.objective, rtol=1e-10)
    np.testing.assert_allclose(b.decision, a.decision, atol=1e-8)
    assert b.n_cg_iter == 0


# ------------------------------------------------------------------ PUSVM

def _pu(n=120, seed=0):
    rng = np.random.RandomState(seed)
    yt = (np.arange(n) % 2).astype(int)
    X = rng.randn(n, 2) + 2.0 * yt[:, None]
    y = np.where((yt == 1) & (rng.rand(n) < 0.4), 1, -1)
    return X, y, yt


def test_pusvm_nystroem_m_equals_n_reproduces_exact():
    from semisvm.pu import PUSVM
    X, y, _ = _pu()
    Xt = np.random.RandomState(5).randn(30, 2) + 1.0
    kw = dict(prior=0.5, lam=1e-2, gamma=0.5, tol=1e-9)
    exact = PUSVM(n_components=None, **kw).fit(X, y)
    low = PUSVM(n_components=X.shape[0], **kw).fit(X, y)
    assert exact.n_components_ is None and low.n_components_ == X.shape[0]
    np.testing.assert_allclose(low.result_.objective,
                               exact.result_.objective, rtol=1e-6)
    np.testing.assert_allclose(low.decision_function(Xt),
                               exact.decision_function(Xt), atol=1e-5)
    np.testing.assert_array_equal(low.transduction_, exact.transduction_)


def test_pusvm_nystroem_low_rank_and_auto(monkeypatch, caplog):
    import logging

    import semisvm.pu as pu
    X, y, yt = _pu(n=600)
    kw = dict(prior=0.5, lam=1e-2, gamma=0.5)
    exact = pu.PUSVM(n_components=None, **kw).fit(X, y)
    low = pu.PUSVM(n_components=50, **kw).fit(X, y)
    err_e = np.mean(exact.transduction_ != np.where(yt == 1, 1, -1))
    err_l = np.mean(low.transduction_ != np.where(yt == 1, 1, -1))
    assert err_l <= err_e + 0.02, (err_l, err_e)
    assert low.dual_coef_.shape == (50,) and low.support_vectors_.shape == (50, 2)
    assert pu.PUSVM(**kw).fit(X, y).n_components_ is None     # auto: exact
    monkeypatch.setattr(pu, "NYSTROEM_MIN_SAMPLES", 500)
    monkeypatch.setattr(pu, "AUTO_COMPONENTS", 40)
    with caplog.at_level(logging.INFO, logger="semisvm"):
        assert pu.PUSVM(**kw).fit(X, y).n_components_ == 40
    assert "Nystroem" in caplog.text
    with pytest.raises(ValueError, match="n_components"):
        pu.PUSVM(kernel="linear", n_components=10, **kw).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        pu.PUSVM(n_components=601, **kw).fit(X, y)


def test_nystroem_landmarks_include_the_labeled_rows():
    X, yt = make_moons(300, noise=0.1, random_state=0)
    y = np.full(300, -1)
    lab = np.r_[np.flatnonzero(yt == 0)[:4], np.flatnonzero(yt == 1)[:4]]
    y[lab] = yt[lab]
    est = LapSVM(n_components=20, gamma=2.0, p=1).fit(X, y)
    assert set(lab) <= set(est.landmarks_.tolist())
    assert est.landmarks_.size == 20
    perm = np.random.RandomState(0).permutation(300)
    rest = perm[~np.isin(perm, lab)][:12]
    np.testing.assert_array_equal(est.landmarks_, np.sort(np.r_[lab, rest]))


# ------------------------------------------- memory checks follow the path taken

def _budget(monkeypatch, nbytes):
    """Fake the memory the system reports available."""
    import semisvm._validation as v
    monkeypatch.setattr(v, "memory_budget", lambda: (float(nbytes), "available RAM"))


def _big(n=450, seed=0):
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 3
    X = rng.randn(n, 6) + 3.0 * np.eye(6)[yt]
    y = np.full(n, -1)
    y[:12] = yt[:12]
    return X, y, yt


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_scalable_paths_fit_where_the_exact_one_is_refused(monkeypatch, Est):
    import semisvm.manifold as m
    from semisvm._validation import NotEnoughMemoryError
    X, y, yt = _big()
    n = X.shape[0]
    # 1.2 MB: the exact path's n x n float64 matrix is 1.6 MB (twice that
    # with LapRLS's linear system), Nystroem with 20 landmarks and the kNN
    # graph about 0.8 MB, the linear path less
    _budget(monkeypatch, 1.2e6)
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)      # above the threshold
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 20)
    est = Est().fit(X, y)                                  # the defaults
    assert est.mode_ == "nystroem" and est.n_components_ == 20
    assert np.mean(est.transduction_ == yt) > 0.9
    assert Est(n_components=30).fit(X, y).mode_ == "nystroem"
    for Xin in (X, sp.csr_matrix(X)):
        lin = Est(kernel="linear").fit(Xin, y)
        assert lin.mode_ == "linear"
    # the exact path is refused before any work, naming what it needs
    def no_kernel(*a, **k):
        raise AssertionError("the kernel matrix was computed")
    monkeypatch.setattr(m, "kernel_matrix", no_kernel)
    with pytest.raises(NotEnoughMemoryError,
                       match=rf"needs 0\.0 GiB \({n * n * 8 * (1 if Est is LapSVM else 2)} "
                             rf"bytes\) for {Est.__name__} on n={n} samples: the "
                             rf"{n} x {n} float64 kernel matrix.*n_components=None"):
        Est(n_components=None).fit(X, y)
    with pytest.raises(NotEnoughMemoryError, match="kernel matrix"):
        Est(n_components=None, kernel="linear").fit(X, y)


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_auto_below_threshold_exact_unless_it_does_not_fit(monkeypatch, Est):
    import semisvm.manifold as m
    from semisvm._validation import NotEnoughMemoryError
    X, y, _ = _big()
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 20)
    assert X.shape[0] < m.LOWRANK_MIN_SAMPLES
    _budget(monkeypatch, 1e9)
    ref = Est().fit(X, y)
    assert ref.mode_ == "exact"
    # the same fit, bit for bit, as an explicit n_components=None
    np.testing.assert_array_equal(ref.dual_coef_,
                                  Est(n_components=None).fit(X, y).dual_coef_)
    _budget(monkeypatch, 1.2e6)          # the n x n matrix no longer fits
    low = Est().fit(X, y)
    assert low.mode_ == "nystroem" and low.n_components_ == 20
    _budget(monkeypatch, 1e5)          # nor the Nystroem features
    with pytest.raises(NotEnoughMemoryError,
                       match=r"450 x 20 float64 Nystroem features \(n_components=20\) "
                             r"and the kNN graph \(k=10\)"):
        Est().fit(X, y)
    with pytest.raises(NotEnoughMemoryError, match="kNN graph"):
        Est(kernel="linear").fit(X, y)


@pytest.mark.parametrize("loss", ["squared_hinge", "squared"])
@pytest.mark.parametrize("direct", [False, True])
def test_primal_w_warm_start_same_minimiser(loss, direct):
    from semisvm._lowrank import lap_gram
    X, y, _ = _blobs(n=120, seed=5)
    L = laplacian(knn_affinity(X, 6))
    gram = lap_gram(X, L, 1) if direct else None
    cold = lap_primal_w(X, L, _pm(y), gamma_A=1e-2, gamma_I=1.0, loss=loss,
                        gram=gram)
    # from the solution of a neighbouring problem (gamma_I = 0.3)
    near = lap_primal_w(X, L, _pm(y), gamma_A=1e-2, gamma_I=0.3, loss=loss,
                        gram=gram)
    warm = lap_primal_w(X, L, _pm(y), gamma_A=1e-2, gamma_I=1.0, loss=loss,
                        gram=gram, w0=near.coef, intercept0=near.intercept)
    assert warm.converged
    if not direct and loss == "squared":
        assert warm.n_cg_iter <= cold.n_cg_iter     # one CG solve, from near
    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-10)
    np.testing.assert_allclose(warm.decision, cold.decision, atol=1e-7)
    with pytest.raises(ValueError, match="w0"):
        lap_primal_w(X, L, _pm(y), w0=np.ones(3))


# ---------------------------------------------------------------------------
# lowrank_fit="graph": graph objective over the n rows, then the landmark
# kernel ridge fit on the labels it gives

def _dense_graph_scores(L, Y, gamma_I, p, null=None, ridge=1e-8):
    Lp = np.linalg.matrix_power(L.toarray(), p)
    F = np.column_stack([
        np.linalg.solve(np.diag((Y[:, j] != 0) * 1.0) + gamma_I * Lp
                        + ridge * np.eye(L.shape[0]), Y[:, j])
        for j in range(Y.shape[1])])
    if null is not None:
        v = null[:, None]
        F = F - v * (v.T @ F) / (v.T @ v)
    return F


@pytest.mark.parametrize("p", [1, 2])
def test_graph_transduction_squared_matches_closed_form(p):
    from semisvm._lowrank import graph_transduction
    X, y, _ = _blobs(60)
    W = knn_affinity(X, 5)
    L = laplacian(W)
    Y = np.column_stack([_pm(y), -_pm(y)])
    null = np.sqrt(np.asarray(W.sum(axis=1)).ravel())
    F, n_newton, _, conv = graph_transduction(L, Y, gamma_I=0.3, power=p,
                                              null=null, cg_tol=1e-12)
    assert conv and n_newton == 1
    np.testing.assert_allclose(F, _dense_graph_scores(L, Y, 0.3, p, null),
                               atol=1e-8)
    # the projection leaves no component along the null vector
    np.testing.assert_allclose(null @ F, 0.0, atol=1e-8)
    np.testing.assert_allclose(L @ null, 0.0, atol=1e-10)
    # a CG stopped by its iteration limit is not reported as converged
    *_, conv = graph_transduction(L, Y, gamma_I=0.3, power=p, null=null,
                                  cg_tol=1e-12, cg_max_iter=2)
    assert not conv


def _dense_hinge_check(L, y, gamma_I, p, F, ridge):
    """Optimality of F for the squared hinge, in closed form: with E the
    labeled rows where y f < 1, F solves (E + gamma_I L^p + ridge I) f = E y
    (the gradient vanishes) and the rows outside E have y f >= 1."""
    Lp = np.linalg.matrix_power(L.toarray(), p)
    lab = y != 0
    E = lab & (y * F < 1)
    f = np.linalg.solve(np.diag(E * 1.0) + gamma_I * Lp + ridge * np.eye(len(y)),
                        E * y)
    np.testing.assert_allclose(F, f, atol=1e-8)
    assert np.all(y[lab & ~E] * f[lab & ~E] >= 1 - 1e-9)
    return E


@pytest.mark.parametrize("p", [1, 2])
def test_graph_transduction_hinge_is_optimal(p):
    from semisvm._lowrank import graph_transduction
    rng = np.random.RandomState(1)
    X = rng.randn(50, 2)
    L = laplacian(knn_affinity(X, 6), normalized=False)
    y = np.zeros(50)
    # neighbours labeled alike push each other past the margin: some
    # labeled rows leave the error set
    near = np.argsort(((X - X[0]) ** 2).sum(1))[:6]
    y[near] = 1.0
    y[[10, 11, 12]] = -1.0
    F, n_newton, _, conv = graph_transduction(
        L, y, gamma_I=0.05, power=p, loss="squared_hinge", ridge=1e-3,
        cg_tol=1e-13)
    assert conv
    E = _dense_hinge_check(L, y, 0.05, p, F[:, 0], 1e-3)
    n_lab = int((y != 0).sum())
    if p == 1:
        # the maximum principle of D - W: |f| <= 1, every labeled row in E
        assert E.sum() == n_lab and n_newton == 1
    else:
        assert 0 < E.sum() < n_lab and n_newton >= 2


def test_landmark_ridge_matches_closed_form():
    from semisvm._lowrank import landmark_ridge
    rng = np.random.RandomState(0)
    X = rng.randn(5000, 4)          # more than one block of rows
    T = rng.randn(5000, 3)
    kern = lambda A, B: kernel_matrix(A, B, kernel="rbf", gamma=0.3)  # noqa: E731
    XL = X[:40]
    beta, b = landmark_ridge(X, kern, XL, T, 0.1)
    K, Kmm = kern(X, XL), kern(XL, XL)
    A = np.hstack([K, np.ones((5000, 1))])
    H = A.T @ A
    H[:40, :40] += 0.1 * Kmm
    ref = np.linalg.solve(H, A.T @ T)
    np.testing.assert_allclose(beta, ref[:40], atol=1e-8)
    np.testing.assert_allclose(b, ref[40], atol=1e-8)
    beta0, b0 = landmark_ridge(X, kern, XL, T, 0.1, fit_intercept=False)
    ref0 = np.linalg.solve(K.T @ K + 0.1 * Kmm, K.T @ T)
    np.testing.assert_allclose(beta0, ref0, atol=1e-8)
    assert np.all(b0 == 0)


def _three_blobs(n=300, seed=0):
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 3
    X = rng.randn(n, 4) + 4.0 * np.eye(4)[yt]
    y = np.full(n, -1)
    for c in range(3):
        y[np.flatnonzero(yt == c)[:2]] = c
    return X, y, yt


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_graph_fit_matches_independent_two_stage(Est):
    """lowrank_fit="graph" against a dense re-derivation of both stages."""
    X, y, yt = _three_blobs()
    W = knn_affinity(X, 8)
    kw = dict(gamma=0.2, gamma_A=1e-3, gamma_I=0.5, p=1, n_components=40)
    est = Est(lowrank_fit="graph", **kw).fit(X, y, affinity=W)
    assert est.mode_ == "nystroem" and est.lowrank_fit_ == "graph"
    L = laplacian(W)
    null = np.sqrt(np.asarray(W.sum(axis=1)).ravel())
    Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in range(3)])
    Y[y == -1] = 0
    F = _dense_graph_scores(L, Y, 0.5, 1, null)
    if Est is LapSVM:
        # the squared hinge: the error sets from the estimator's own scores,
        # checked for optimality in closed form (see _dense_hinge_check)
        from semisvm._lowrank import graph_transduction
        F0, *_ = graph_transduction(L, Y, gamma_I=0.5, loss="squared_hinge",
                                    cg_tol=1e-12)
        for j in range(3):
            _dense_hinge_check(L, Y[:, j], 0.5, 1, F0[:, j], 1e-8)
        v = null[:, None]
        F = F0 - v * (v.T @ F0) / (v.T @ v)
    pseudo = np.where(y == -1, F.argmax(1), y)
    T = np.where(pseudo[:, None] == np.arange(3)[None], 1.0, -1.0)
    XL = X[est.landmarks_]
    # the landmarks: the first m of the seeded permutation of the rows
    np.testing.assert_array_equal(
        est.landmarks_, np.sort(np.random.RandomState(0).permutation(300)[:40]))
    K = kernel_matrix(X, XL, kernel="rbf", gamma=0.2)
    A = np.hstack([K, np.ones((300, 1))])
    H = A.T @ A
    H[:40, :40] += 1e-3 * kernel_matrix(XL, kernel="rbf", gamma=0.2)
    sol = np.linalg.solve(H, A.T @ T)
    np.testing.assert_allclose(est.dual_coef_, sol[:40].T, atol=1e-6)
    np.testing.assert_allclose(est.intercept_, sol[40], atol=1e-6)
    # predict is inductive and equals the transduction on the training rows
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    assert est.graph_agreement_ == np.mean(F.argmax(1) == est.transduction_)
    assert np.mean(est.transduction_ != yt) < 0.03
    # binary: one problem, sign decisions, the user's labels back
    yb = np.where(y == 2, -1, y)
    eb = Est(lowrank_fit="graph", **kw).fit(X[yt < 2], yb[yt < 2])
    assert eb.dual_coef_.shape == (1, 40)
    assert np.mean(eb.predict(X[yt < 2]) != yt[yt < 2]) < 0.03
    # same input, same bits; float32 stays float32
    again = Est(lowrank_fit="graph", **kw).fit(X, y, affinity=W)
    np.testing.assert_array_equal(again.dual_coef_, est.dual_coef_)
    e32 = Est(lowrank_fit="graph", **kw).fit(X.astype(np.float32), y, affinity=W)
    assert e32.dual_coef_.dtype == np.float32
    assert np.mean(e32.transduction_ == est.transduction_) > 0.99
    pickle.loads(pickle.dumps(est)).predict(X[:3])


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_graph_fit_ridge_reads_a_row_sample_above_its_budget(monkeypatch, Est):
    """Above _RIDGE_ROWS rows per landmark the ridge's normal equations read
    a uniform sample of the rows (the landmarks among them): the same
    closed form on those rows; below, all rows (the test above)."""
    import semisvm.manifold as m
    X, y, yt = _three_blobs()
    W = knn_affinity(X, 8)
    kw = dict(gamma=0.2, gamma_A=1e-3, gamma_I=0.5, p=1, n_components=40)
    full = Est(lowrank_fit="graph", **kw).fit(X, y, affinity=W)
    monkeypatch.setattr(m, "_RIDGE_ROWS", 4)          # 160 of the 300 rows
    est = Est(lowrank_fit="graph", **kw).fit(X, y, affinity=W)
    np.testing.assert_array_equal(est.landmarks_, full.landmarks_)
    rows = np.sort(np.random.RandomState(0).permutation(300)[:160])
    assert set(est.landmarks_) <= set(rows)
    # the closed form on those rows, on the graph stage's labels
    from semisvm._lowrank import graph_transduction
    L = laplacian(W)
    null = np.sqrt(np.asarray(W.sum(axis=1)).ravel())
    Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in range(3)])
    Y[y == -1] = 0
    F = graph_transduction(L, Y, gamma_I=0.5, loss=Est._loss, null=null,
                           cg_tol=1e-3)[0]
    lab = np.where(y == -1, F.argmax(1), y)
    T = np.where(lab[:, None] == np.arange(3)[None], 1.0, -1.0)[rows]
    XL = X[est.landmarks_]
    A = np.hstack([kernel_matrix(X[rows], XL, kernel="rbf", gamma=0.2),
                   np.ones((rows.size, 1))])
    H = A.T @ A
    H[:40, :40] += 1e-3 * kernel_matrix(XL, kernel="rbf", gamma=0.2)
    sol = np.linalg.solve(H, A.T @ T)
    np.testing.assert_allclose(est.dual_coef_, sol[:40].T, atol=1e-6)
    # the decision on all training rows is still the model's
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    assert np.mean(est.transduction_ != yt) < 0.03


def test_lowrank_fit_auto_switch_both_sides(monkeypatch):
    import semisvm.manifold as m
    X, y, yt = _three_blobs()
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 30)
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 300)
    # n = 300 <= LOWRANK_MIN_SAMPLES: the exact path, lowrank_fit unused
    ex = LapRLS(gamma=0.2).fit(X, y)
    assert ex.mode_ == "exact" and ex.lowrank_fit_ is None
    # an explicit m at this n: Nystroem, coupled
    co = LapRLS(gamma=0.2, n_components=30).fit(X, y)
    assert co.mode_ == "nystroem" and co.lowrank_fit_ == "coupled"
    assert np.isfinite(co.result_[0].objective)
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 299)
    gr = LapRLS(gamma=0.2).fit(X, y)
    assert gr.mode_ == "nystroem" and gr.lowrank_fit_ == "graph"
    assert gr.p_ == 1 and gr.n_components_ == 30
    assert np.mean(gr.transduction_ != yt) < 0.03
    # the coupled fit stays reachable above the threshold
    co2 = LapRLS(gamma=0.2, lowrank_fit="coupled").fit(X, y)
    assert co2.lowrank_fit_ == "coupled"
    # the linear mode ignores it
    lin = LapRLS(kernel="linear", lowrank_fit="graph").fit(X, y)
    assert lin.mode_ == "linear" and lin.lowrank_fit_ is None
    with pytest.raises(ValueError, match="lowrank_fit"):
        LapRLS(lowrank_fit="poisson").fit(X, y)


@pytest.mark.slow  # three safe=True fits (2 x 3 folds each) and two fold fits
@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_safe_folds_reuse_the_fit_ridge_system_and_choose_as_cold(monkeypatch, Est):
    """safe=True on the two-stage fit: each fold's fit starts its graph
    stage from the full fit's solution and takes the full fit's landmark
    ridge system less the removed rows (both read from the shared graph,
    counted), and makes the choice a cold fold fit makes."""
    import semisvm.manifold as m
    from semisvm.graph import KNNGraph
    X, yt = _three_blobs()[0], _three_blobs()[2]
    y = np.full(300, -1)
    for c in range(3):
        y[np.flatnonzero(yt == c)[:6]] = c
    y[np.flatnonzero(yt == 0)[6:9]] = 1          # a few wrong labels
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 40)
    kw = dict(safe=True, safe_cv=3, gamma_I=0.5)
    warm = Est(**kw).fit(X, y)
    assert warm.mode_ == "nystroem" and warm.lowrank_fit_ == "graph"
    # 3 folds x 2 repeats, each reading the fit's graph solution (its start)
    # and its ridge system
    assert warm.graph_._work_hits >= 12
    # a fold's fit from the stored system = the same fit computed cold
    rows = np.flatnonzero((y == -1) | (np.arange(300) % 4 != 0))
    fold = dict(graph=warm.graph_, gamma=warm._gamma, gamma_I=0.5)
    hits = warm.graph_._work_hits
    a = Est(**fold).fit(X[rows], y[rows])
    assert warm.graph_._work_hits == hits + 2
    real_recall = KNNGraph._recall
    monkeypatch.setattr(KNNGraph, "_recall", lambda self, key: None)
    b = Est(**fold).fit(X[rows], y[rows])
    np.testing.assert_array_equal(a.landmarks_, b.landmarks_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    # the whole check cold: the same scores and the same choice
    cold = Est(**kw).fit(X, y)
    assert cold.graph_._work_hits == 0
    np.testing.assert_array_equal(warm.safe_scores_[0], cold.safe_scores_[0])
    assert warm.unlabeled_gain_ == pytest.approx(cold.unlabeled_gain_)
    assert warm.fell_back_ == cold.fell_back_
    monkeypatch.setattr(KNNGraph, "_recall", real_recall)


def _four_blobs(n=1200, seed=0):
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 4
    X = (rng.randn(n, 5) + 3.0 * np.eye(5)[yt]).astype(np.float32)
    y = np.full(n, -1)
    for c in range(4):
        y[np.flatnonzero(yt == c)[:5]] = c
    return X, y, yt


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_n_jobs_same_bits_and_threads_held(monkeypatch, Est):
    """n_jobs: the graph's HNSW search and the graph CG on n_jobs threads
    (OpenMP held at n_jobs, BLAS at one inside the fit), the same model to
    the bit for 1, 2 and 3 threads; refused when not an integer."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import semisvm._lowrank as lr
    import semisvm.graph as gr
    import semisvm.manifold as m
    from semisvm._rows import n_threads

    X, y, yt = _four_blobs()
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 300)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 60)
    monkeypatch.setattr(gr, "ANN_MIN_SAMPLES", 500)     # the HNSW index
    seen = []
    real = lr._lapsvm.graph_block_cg

    class Spy:
        def __getattr__(self, name):
            return getattr(lr._lapsvm, name)

        @staticmethod
        def graph_block_cg(*args):
            pools = {}
            for info in threadpool_info():
                pools.setdefault(info["user_api"], []).append(info["num_threads"])
            seen.append((args[-1], pools))
            return real(*args)

    # (a first fit loads the index's library, whose own OpenMP runtime the
    # fit's limit, set up before it loaded, cannot hold)
    Est().fit(X[:600], y[:600])
    monkeypatch.setattr(lr, "_lapsvm", Spy())
    got = []
    for k in (1, 2, 3):
        seen.clear()
        with threadpool_limits(limits=2, user_api="blas"):
            est = Est(n_jobs=k).fit(X, y)
        assert est.mode_ == "nystroem" and est.lowrank_fit_ == "graph"
        assert est.graph_.method_ == "approximate" and est.graph_.n_jobs == k
        # (capped at the cores there are; the CG's row blocks over threads
        # give the same bits: tests/core, graph_block_cg)
        assert seen and all(nt == n_threads(k) for nt, _ in seen)
        for _, pools in seen:
            assert all(t == 1 for t in pools.get("blas", [])), pools
            assert all(t == n_threads(k) for t in pools.get("openmp", [])), pools
        assert np.mean(est.transduction_ != yt) < 0.05
        got.append([a.tobytes() for a in (
            est.dual_coef_, est.intercept_, est.transduction_,
            est.decision_function(X), est.graph_.indices_)])
    assert got[0] == got[1] == got[2]
    with pytest.raises(TypeError, match="n_jobs"):
        Est(n_jobs=1.5).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        Est(n_jobs=0).fit(X, y)


@pytest.mark.parametrize("fit", ["graph", "coupled"])
def test_random_state_instance_is_drawn_from(monkeypatch, fit):
    """random_state=RandomState(0): the landmarks of its first draw, those of
    random_state=0 (scikit-learn's convention, not refused)."""
    import semisvm.manifold as m

    X, y, _ = _three_blobs()
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 40)
    a = LapRLS(gamma=0.2, lowrank_fit=fit, safe=False).fit(X, y)
    b = LapRLS(gamma=0.2, lowrank_fit=fit, safe=False,
               random_state=np.random.RandomState(0)).fit(X, y)
    assert b.lowrank_fit_ == fit
    np.testing.assert_array_equal(a.landmarks_, b.landmarks_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-12)
    with pytest.raises(ValueError, match="random_state"):
        LapRLS(lowrank_fit=fit, random_state=-1).fit(X, y)


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_safety_fold_model_predicts_only(monkeypatch, Est):
    """The safety net's fold model (``_safe_semi``) stays one through
    clone, skips the decision over its training rows (no transduction_)
    and predicts the held-out rows as the same fit made in full does."""
    from sklearn.base import clone

    import semisvm.manifold as m

    X, y, yt = _three_blobs()
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 40)
    full = Est(gamma_I=0.5, safe=False).fit(X, y)
    semi = full._safe_semi()
    fold = clone(clone(semi))
    assert fold._safety_fold and fold.graph is full.graph_
    held = np.flatnonzero(y != -1)[::3]
    rows = np.setdiff1d(np.arange(X.shape[0]), held)
    f = fold.fit(X[rows], y[rows])
    assert f.transduction_ is None and f.result_ is None
    ref = Est(**semi.get_params(deep=False)).fit(X[rows], y[rows])
    assert ref.transduction_ is not None
    np.testing.assert_array_equal(f.predict(X[held]), ref.predict(X[held]))
    np.testing.assert_array_equal(f.predict(X), ref.predict(X))
    # a plain clone of the fitted estimator is no fold model
    assert not getattr(clone(full), "_safety_fold", False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ridge_normal_blocks_written_into_knm_same_bits(dtype, monkeypatch):
    # kernel_out=True: each block of K_nm computed in place (the kernel's
    # out=), no block-sized copy: the same G, s, Kmm and K_nm bits as the
    # blocks computed apart and copied; several blocks with a short last one
    import semisvm._lowrank as lr
    from semisvm.kernels import _kernel_matrix
    monkeypatch.setattr(lr, "_BLOCK", 64)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 6)).astype(dtype)
    XL = X[::10]
    calls = []

    def kern(A, B=None, out=None):
        calls.append(out is not None)
        return _kernel_matrix(A, B, gamma=0.2, out=out)

    a = lr.ridge_normal(X, kern, XL)
    assert not any(calls)
    calls.clear()
    b = lr.ridge_normal(X, kern, XL, kernel_out=True)
    assert calls[:5] == [True] * 5           # the 5 blocks of K_nm, then K_mm
    assert b[3].dtype == dtype and b[3].flags.c_contiguous
    for p, q in zip(a, b):
        assert p.dtype == q.dtype and np.array_equal(p, q)
        assert p.tobytes() == q.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nystroem_features_rows_written_in_place_same_bits(dtype, monkeypatch):
    # float64 Z: each block's K_b N written into Z's rows (matmul out=); the
    # same bits as the product as a new array (the former form), several
    # blocks with a short last one; float32 Z keeps the cast copy
    import semisvm._lowrank as lr
    from semisvm.kernels import kernel_matrix
    monkeypatch.setattr(lr, "_BLOCK", 50)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((233, 5)).astype(dtype)

    def kern(A, B=None):
        return kernel_matrix(A, B, gamma=0.3)

    Z, lm, N = lr.nystroem_features(X, kern, 40, random_state=2, include=[7])
    XL = X[lm]
    ref = np.concatenate([(np.asarray(kern(X[a:a + 50], XL), dtype=np.float64) @ N)
                          .astype(dtype) for a in range(0, 233, 50)])
    assert Z.dtype == dtype
    assert Z.tobytes() == ref.tobytes()


def test_ridge_normal_kernel_out_copies_a_returned_array():
    # a kernel that takes out= but hands back a new array: its block is
    # copied into K_nm (never left unwritten)
    import semisvm._lowrank as lr
    from semisvm.kernels import kernel_matrix
    X = np.random.default_rng(0).standard_normal((50, 3))

    def kern(A, B=None, out=None):
        return kernel_matrix(A, B, gamma=0.5)

    a = lr.ridge_normal(X, kern, X[:9])
    b = lr.ridge_normal(X, kern, X[:9], kernel_out=True)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
