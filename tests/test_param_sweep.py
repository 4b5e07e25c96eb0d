"""Every numeric parameter of every estimator at its extremes.

Each estimator is fitted on a tiny problem with one numeric parameter set to
NaN, +-inf, 0, -1, a subnormal (1e-310), 1e308 or a value of the wrong type.
The fit must either raise ``ValueError``/``TypeError`` whose message names
the parameter, or give a model whose every fitted number and every decision
value is finite: never a NaN model, a ``ZeroDivisionError`` or another raw
arithmetic error.
"""
import math
import warnings

import numpy as np
import pytest

import semisvm

ESTIMATORS = ("LinearSVM", "TSVM", "DASVM", "LapSVM", "LapRLS", "PUSVM", "TVRLS",
              "TVSVM", "CheegerRLS", "CheegerSVM")
BAD_VALUES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "0": 0,
              "-1": -1, "1e-310": 1e-310, "1e308": 1e308, "wrong-type": "x"}
# numeric parameters whose default is None or a string ("auto")
NUMERIC_NONE_DEFAULT = {"lam", "r", "gamma", "T0", "n_neighbors", "max_iter", "tol",
                        "p", "check_every", "eta", "graph_t", "n_components",
                        "prior", "kernel_gamma", "n_jobs", "random_state"}
# parameters that only pick an option or print (no arithmetic)
NOT_ARITHMETIC = {"verbose", "random_state"}


def _numeric_params(cls):
    out = []
    for name, default in cls().get_params(deep=False).items():
        if name in NOT_ARITHMETIC:
            continue
        numeric = (isinstance(default, (int, float)) and not isinstance(default, bool))
        if numeric or name in NUMERIC_NONE_DEFAULT:
            out.append(name)
    return sorted(out)


def _problem(name):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1.5, 1, (10, 2)), rng.normal(1.5, 1, (10, 2))]
    y = np.r_[np.zeros(10, int), np.ones(10, int)]
    if name == "LinearSVM":
        return X, y
    if name == "PUSVM":
        ypu = np.full(20, -1)
        ypu[15:] = 1
        return X, ypu
    yssl = np.full(20, -1)
    yssl[[0, 1, 2, 10, 11, 12]] = y[[0, 1, 2, 10, 11, 12]]
    return X, yssl


def _cases():
    for est in ESTIMATORS:
        cls = getattr(semisvm, est)
        for param in _numeric_params(cls):
            for label in BAD_VALUES:
                yield pytest.param(est, param, label, id=f"{est}-{param}-{label}")


def _all_finite(model):
    from semisvm._validation import nonfinite_fitted_attribute
    return nonfinite_fitted_attribute(model) is None


@pytest.mark.slow
@pytest.mark.parametrize("est, param, label", list(_cases()))
def test_extreme_parameter_gives_clear_error_or_finite_model(est, param, label):
    cls = getattr(semisvm, est)
    X, y = _problem(est)
    extra = {"prior": 0.25} if est == "PUSVM" and param != "prior" else {}
    model = cls(**extra, **{param: BAD_VALUES[label]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model.fit(X, y)
        except (ValueError, TypeError) as exc:
            assert param in str(exc), (type(exc).__name__, str(exc))
            return
        assert _all_finite(model)
        assert np.all(np.isfinite(model.decision_function(X)))


# ---- the cases the sweep was built from, fast --------------------------------

@pytest.mark.parametrize("name", ["LinearSVM", "TSVM", "DASVM"])
def test_huge_intercept_scaling_is_a_clear_error_and_keeps_the_old_model(name):
    X, y = _problem(name)
    model = getattr(semisvm, name)().fit(X, y)
    before = dict(vars(model))
    model.set_params(intercept_scaling=1e155)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="intercept_scaling=1e"):
            model.fit(X, y)
    after = {k: v for k, v in vars(model).items() if k != "intercept_scaling"}
    assert after.keys() == {k for k in before if k != "intercept_scaling"}
    assert all(after[k] is before[k] for k in after)   # the same objects


def test_pusvm_huge_lam_is_a_value_error_not_zero_division():
    X, y = _problem("PUSVM")
    with pytest.raises(ValueError, match="lam=1e.* is too large"):
        semisvm.PUSVM(prior=0.5, lam=1e308).fit(X, y)


def test_dasvm_huge_t_rate_gives_a_finite_model():
    X, y = _problem("DASVM")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = semisvm.DASVM(T_rate=1e308).fit(X, y)
    assert np.all(np.isfinite(model.coef_))


def test_graph_t_and_conflict_tol_errors_name_the_parameter():
    X, y = _problem("LapSVM")
    with pytest.raises(ValueError, match="graph_t must be"):
        semisvm.LapSVM(graph_t=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="conflict_tol must be"):
        semisvm.TVRLS(conflict_tol="x").fit(X, y)


def test_n_jobs_is_capped_at_the_available_cores(monkeypatch):
    import os

    from semisvm import _validation
    from semisvm._rows import n_threads
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert n_threads(100000) == 3 and n_threads(2) == 2 and n_threads(None) == 1
    assert n_threads(-1) == 3 and n_threads(-2) == 2 and n_threads(-100) == 1
    for bad, exc in ((0, ValueError), (1.5, TypeError), ("2", TypeError)):
        with pytest.raises(exc, match="n_jobs"):
            _validation.check_n_jobs(bad)
    X, y = _problem("LinearSVM")
    ref = semisvm.LinearSVM().fit(X, y)
    big = semisvm.LinearSVM(n_jobs=100000).fit(X, y)
    assert np.array_equal(big.coef_, ref.coef_)


def test_history_memory_does_not_grow_with_max_iter():
    import tracemalloc
    X, y = _problem("LinearSVM")
    X = np.r_[X, X + 0.1]
    y = np.r_[y, y]
    semisvm.LinearSVM(max_iter=10).fit(X, y)                 # warm up
    tracemalloc.start()
    model = semisvm.LinearSVM(max_iter=10**8).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**20, peak                                  # not 916 MB
    ref = semisvm.LinearSVM(max_iter=50).fit(X, y)
    assert np.array_equal(model.coef_, ref.coef_)
    assert model.result_.history.shape == ref.result_.history.shape


def test_histories_are_capped_and_count_every_cg_iteration(monkeypatch):
    from semisvm import _rows
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 30))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(200) > 0, 1.0, -1.0)
    from semisvm.linear import l2svm_mfn
    ref = l2svm_mfn(X, y, lam=1e-3, cg_max_iter=2, max_iter=500,
                    newton="cgls", grad_tol=0.0)
    assert ref.n_iter > 4
    for verbose in (False, True):
        monkeypatch.setattr(_rows, "HISTORY_CAP", 3)
        res = l2svm_mfn(X, y, lam=1e-3, cg_max_iter=2, max_iter=500,
                        newton="cgls", grad_tol=0.0,
                        verbose=verbose)
        monkeypatch.undo()
        assert np.array_equal(res.coef, ref.coef) and res.n_iter == ref.n_iter
        assert res.history.shape == (4,) and res.cg_history.shape == (3,)
        assert np.array_equal(res.history, ref.history[:4])
        assert res.n_cg_iter == ref.n_cg_iter == res.cg_history.sum()


@pytest.mark.parametrize("name", ["TSVM", "DASVM"])
def test_lam_auto_is_the_same_for_a_csr_matrix_and_its_duplicate_entry_twin(name):
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = sp.random(60, 8, density=0.5, random_state=1, format="csr") * 3
    y = np.full(60, -1)
    y[:10] = (np.asarray(X[:10].sum(axis=1)).ravel() > 6).astype(int)
    y[:2] = [0, 1]
    # every stored entry split in two halves (same matrix), plus explicit zeros
    rows = np.repeat(np.arange(60), np.diff(X.indptr))
    coo = sp.coo_matrix((np.r_[X.data / 2, X.data / 2, np.zeros(5)],
                         (np.r_[rows, rows, rng.integers(0, 60, 5)],
                          np.r_[X.indices, X.indices, rng.integers(0, 8, 5)])),
                        shape=X.shape)
    order = np.argsort(coo.row, kind="stable")
    twin = sp.csr_matrix((coo.data[order], coo.col[order],
                          np.r_[0, np.cumsum(np.bincount(coo.row, minlength=60))]),
                         shape=X.shape)
    assert not twin.has_canonical_format and twin.nnz > X.nnz
    assert np.allclose(twin.toarray(), X.toarray())
    cls = getattr(semisvm, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = cls().fit(X, y), cls().fit(twin, y)
    assert a.lam_ == pytest.approx(b.lam_, rel=1e-12)
    assert np.allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    assert twin.nnz > X.nnz                          # the user's matrix untouched


# ---- labels: -1 marks unlabeled rows, never a class ---------------------------

@pytest.mark.parametrize("name", ["TSVM", "DASVM", "LapSVM", "TVRLS", "CheegerSVM"])
def test_minus_one_plus_one_labels_get_an_error_that_says_how_to_encode(name):
    X, _ = _problem(name)
    y = np.where(np.arange(20) < 10, -1, 1)          # SVM-light's -1/+1, all labeled
    with pytest.raises(ValueError, match=r"-1 marks unlabeled rows .* encode "
                                         r"labels -1/\+1 as 0/1"):
        getattr(semisvm, name)().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(semisvm, name)().fit(X, (y + 1) // 2)
    assert list(model.classes_) == [0, 1]


def test_kernel_width_is_the_same_for_a_csr_matrix_and_its_duplicate_entry_twin():
    import scipy.sparse as sp
    X = sp.random(40, 6, density=0.5, random_state=2, format="csr") * 2
    rows = np.repeat(np.arange(40), np.diff(X.indptr))
    twin = sp.csr_matrix((np.r_[X.data / 2, X.data / 2][np.argsort(
        np.r_[rows, rows], kind="stable")],
        np.r_[X.indices, X.indices][np.argsort(np.r_[rows, rows], kind="stable")],
        np.r_[0, np.cumsum(2 * np.diff(X.indptr))]), shape=X.shape)
    assert not twin.has_canonical_format
    y = np.where(np.arange(40) % 3 == 0, 1, -1)
    a = semisvm.PUSVM(prior=0.4).fit(X, y)
    b = semisvm.PUSVM(prior=0.4).fit(twin, y)
    assert a.gamma_ == b.gamma_
    assert np.allclose(a.decision_function(X), b.decision_function(twin))
