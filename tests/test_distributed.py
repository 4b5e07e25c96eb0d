"""The linear family on a Dask cluster (row blocks on 2 worker processes).

Every distributed fit is compared with the in-memory fit of the same data:
objective to 1e-8 relative, same labels. One module-scoped LocalCluster.
"""
import logging
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import ssl01

pytest.importorskip("dask.distributed")
import dask.array as da  # noqa: E402

from semisvm import TSVM, LinearSVM  # noqa: E402
from semisvm._core import _mfn as K  # noqa: E402
from semisvm._core._cgls import _cgls_py  # noqa: E402
from semisvm._core._dataset import RowData  # noqa: E402
from semisvm._rows import (  # noqa: E402
    LADDER,
    bracket_from_bins,
    cgls_twin,
    scan_events,
)
from semisvm.linear import da_s3vm, l2svm_mfn, tsvm  # noqa: E402

# the cluster's own shutdown chatter is not what these tests check
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Port .* is already in use:UserWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:distributed"),
]

CHUNKS = (90, 240, 150, 120)        # uneven row blocks


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    cl = Client(cluster)
    yield cl
    cl.close()
    cluster.close()


def _text(n=600, d=120, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.04, format="csr", random_state=seed,
                  dtype=np.float64)
    X.data = rng.random(X.nnz) + 0.1
    w = rng.standard_normal(d)
    score = X @ w + 0.1 * rng.standard_normal(n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    return X.astype(dtype), y


def _dask(X, chunks=CHUNKS):
    return da.from_array(X, chunks=(chunks, X.shape[1]), asarray=False)


# ---------------------------------------------------------------------------
# driver-side twins against the compiled kernels (no cluster)

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cgls_twin_gives_the_compiled_iterates(dtype):
    rng = np.random.RandomState(0)
    n, d, lam, s = 60, 15, 0.3, 0.7
    X = (rng.randn(n, d) * (rng.rand(n, d) < 0.5)).astype(dtype)
    a = (rng.rand(n) + 0.1).astype(dtype)
    t = np.sign(rng.randn(n)).astype(dtype)
    active = np.sort(rng.choice(n, 40, replace=False)).astype(np.int32)
    beta0 = (0.1 * rng.randn(d + 1)).astype(dtype)
    R = RowData(sp.csr_matrix(X))
    o0 = np.zeros(n, dtype=dtype)
    K.outputs(R, s, beta0, np.zeros(n, np.int32), o0)
    tol = 1e-10 if dtype == np.float64 else 1e-5
    for k in (1, 2, 3, 5, 8):
        b_c, o_c = beta0.copy(), o0.copy()
        st_c, it_c = _cgls_py(R, s, active, a, t, lam, b_c, o_c, tol, k)
        b_t = beta0.copy()
        pieces = K.cg_start(R, s, active, active.size, a, t, o0)
        st_t, it_t = cgls_twin(lambda p: K.cg_product(R, s, active, active.size, a, p),
                               *pieces, b_t, lam, tol, 0.0, k)
        assert (st_t, it_t) == (st_c, it_c)
        rtol = 1e-10 if dtype == np.float64 else 2e-5
        np.testing.assert_allclose(b_t, b_c, rtol=rtol, atol=rtol * np.abs(b_c).max())
    # and both end at the solution of the normal equations
    assert st_c == 0 or st_c == 1


def test_blockwise_line_search_equals_the_compiled_one():
    rng = np.random.default_rng(1)
    n = 3000
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    o = rng.normal(0, 1.5, n)
    # a descent direction: obar moves toward the margins, with noise
    obar = 0.2 * o + 1.5 * y + rng.normal(0, 1.0, n)
    c = rng.random(n) + 0.5
    cpos, cneg = np.where(y > 0, c, 0), np.where(y < 0, c, 0)
    w = rng.normal(size=20)
    wbar = 0.9 * w
    lam = 0.1
    ref = K.line_search(w, wbar, lam, o, obar, cpos, cneg,
                        np.empty(2 * n * 32, np.uint8))
    cuts = [0, 500, 1700, 1701, 3000]
    blocks = [slice(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    wd = wbar - w
    L, R = lam * w @ wd, lam * wd @ wd
    bins = [K.ls_bins(o[b], obar[b], cpos[b], cneg[b], LADDER) for b in blocks]
    L += sum(x[0] for x in bins)
    R += sum(x[1] for x in bins)
    assert L < 0 and 0 < ref < 2
    # the bracket from the ladder, then a refined one (as with many events)
    lo, hi, Llo, Rlo, cnt = bracket_from_bins(
        L, R, LADDER, *(sum(x[k] for x in bins) for k in (2, 3, 4)))
    edges = np.linspace(lo, hi, 17)
    fine = [K.ls_bins(o[b], obar[b], cpos[b], cneg[b], edges) for b in blocks]
    lo2, hi2, Llo2, Rlo2, cnt2 = bracket_from_bins(
        L, R, edges, *(sum(x[k] for x in fine) for k in (2, 3, 4)))
    assert lo <= lo2 < hi2 <= hi and cnt2 <= cnt
    for lo_, hi_, L_, R_ in ((lo, hi, Llo, Rlo), (lo2, hi2, Llo2, Rlo2)):
        ev = [K.ls_events(o[b], obar[b], cpos[b], cneg[b], lo_, hi_, 2 * b.start)
              for b in blocks]
        got = scan_events(L_, R_, *(np.concatenate([e[k] for e in ev])
                                    for k in range(4)))
        assert got == pytest.approx(ref, rel=1e-12)


# ---------------------------------------------------------------------------
# LinearSVM / l2svm_mfn on the cluster

@pytest.mark.parametrize("kind", ["csr", "dense"])
def test_linearsvm_distributed_equals_in_memory(client, kind):
    X, y = _text()
    Xc = X if kind == "csr" else X.toarray()
    # tol: CGLS to 1e-9, so that the weights (not only the objective) agree
    ref = LinearSVM(lam=0.2, newton="cgls", tol=1e-9).fit(Xc, y)
    Xd = _dask(Xc)
    dist = LinearSVM(lam=0.2, newton="cgls", tol=1e-9).fit(
        Xd, da.from_array(y, chunks=CHUNKS))
    assert dist.result_.objective == pytest.approx(ref.result_.objective, rel=1e-8)
    np.testing.assert_allclose(dist.coef_, ref.coef_, rtol=1e-5, atol=1e-8)
    assert dist.result_.n_iter == ref.result_.n_iter
    pred = dist.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), ref.predict(Xc))
    np.testing.assert_allclose(dist.result_.decision.compute(), ref.result_.decision,
                               rtol=1e-7, atol=1e-9)


def test_linearsvm_distributed_takes_the_model_decrease_rule(client, monkeypatch):
    # at least MFN_QTEST_MIN_ENTRIES stored entries (here: any): the Dask
    # path's CG stops on the model-decrease test with the Jacobi
    # preconditioner, as in memory (there with carried setup sums: the same
    # steps to rounding)
    from semisvm import linear
    X, y = _text()
    monkeypatch.setattr(linear, "MFN_QTEST_MIN_ENTRIES", 0)
    ref = LinearSVM(lam=0.2, newton="cgls").fit(X, y)
    dist = LinearSVM(lam=0.2, newton="cgls").fit(
        _dask(X), da.from_array(y, chunks=CHUNKS))
    assert dist.result_.objective == pytest.approx(ref.result_.objective, rel=1e-8)
    assert dist.result_.cg_history.tolist() == ref.result_.cg_history.tolist()
    # CSR blocks joined by from_delayed + concatenate (the array's _meta is
    # then dense): the rule follows the blocks' own rows
    import dask
    bounds = np.cumsum((0,) + CHUNKS)
    parts = [da.from_delayed(dask.delayed(X[a:b]), shape=(b - a, X.shape[1]),
                             dtype=X.dtype) for a, b in zip(bounds[:-1], bounds[1:])]
    Xd = da.concatenate(parts)
    assert not sp.issparse(Xd._meta)
    joined = LinearSVM(lam=0.2, newton="cgls").fit(Xd, da.from_array(y, chunks=CHUNKS))
    assert joined.result_.cg_history.tolist() == ref.result_.cg_history.tolist()
    assert joined.result_.objective == pytest.approx(ref.result_.objective, rel=1e-8)
    # dense blocks keep the former rule, as dense rows do in memory
    Xa = X.toarray()
    dense = LinearSVM(lam=0.2, newton="cgls").fit(
        da.from_array(Xa, chunks=(CHUNKS, X.shape[1])), da.from_array(y, chunks=CHUNKS))
    mem = LinearSVM(lam=0.2, newton="cgls").fit(Xa, y)
    assert dense.result_.cg_history.tolist() == mem.result_.cg_history.tolist()
    monkeypatch.setattr(linear, "MFN_QTEST_MIN_ENTRIES", X.nnz + 1)
    old = LinearSVM(lam=0.2, newton="cgls").fit(X, y)
    assert old.result_.cg_history.tolist() != ref.result_.cg_history.tolist()
    assert mem.result_.cg_history.tolist() == old.result_.cg_history.tolist()


def test_linearsvm_one_vs_rest_distributed_equals_in_memory(client):
    X, _ = _text(seed=5)
    rng = np.random.default_rng(5)
    score = np.asarray(X @ rng.standard_normal(X.shape[1])).ravel()
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3])) + 1      # 1, 2, 3
    kw = dict(lam=0.2, newton="cgls", tol=1e-9, class_weight="balanced")
    ref = LinearSVM(**kw).fit(X, y)
    dist = LinearSVM(**kw).fit(_dask(X), da.from_array(y, chunks=CHUNKS))
    assert ref.coef_.shape == dist.coef_.shape == (3, X.shape[1])
    for r_d, r_m in zip(dist.result_, ref.result_):
        assert r_d.objective == pytest.approx(r_m.objective, rel=1e-8)
    np.testing.assert_allclose(dist.coef_, ref.coef_, rtol=1e-5, atol=1e-8)
    scores = dist.decision_function(_dask(X))
    assert scores.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(dist.predict(_dask(X)).compute(), ref.predict(X))


def test_l2svm_mfn_distributed_cholesky_and_float32(client):
    X, y = _text(n=800, d=20, seed=3)
    for dtype, rel in ((np.float64, 1e-8), (np.float32, 1e-5)):
        Xc = X.astype(dtype).toarray()
        ref = l2svm_mfn(Xc, y, lam=0.1)                 # few features: Cholesky
        assert ref.n_cg_iter == 0
        dist = l2svm_mfn(_dask(Xc, (100, 300, 400)), y, lam=0.1)
        assert dist.n_cg_iter == 0
        assert dist.objective == pytest.approx(ref.objective, rel=rel)


def test_linearsvm_distributed_class_weight_and_labels(client):
    X, y = _text(seed=4)
    labels = np.where(y > 0, "spam", "ham")
    ref = LinearSVM(lam=0.05, class_weight="balanced").fit(X, labels)
    dist = LinearSVM(lam=0.05, class_weight="balanced").fit(_dask(X), labels)
    assert dist.result_.objective == pytest.approx(ref.result_.objective, rel=1e-8)
    np.testing.assert_array_equal(dist.classes_, ref.classes_)
    np.testing.assert_array_equal(dist.predict(_dask(X)).compute(), ref.predict(X))


def test_verbose_logs_round_trips_and_bytes(client, caplog):
    X, y = _text(n=400, d=50, seed=5)
    with caplog.at_level(logging.INFO, logger="semisvm"):
        l2svm_mfn(_dask(X, (200, 200)), y, lam=0.1, newton="cgls", verbose=True)
    lines = [r.getMessage() for r in caplog.records if "iter" in r.getMessage()]
    assert lines and all("worker round trips" in m and "moved" in m for m in lines)


# ---------------------------------------------------------------------------
# bad input: clear errors before any iteration

def test_column_chunks_are_rejected(client):
    X, y = _text(n=200, d=40)
    Xd = da.from_array(X.toarray(), chunks=(100, 20))
    with pytest.raises(ValueError, match="row blocks only"):
        LinearSVM().fit(Xd, y)


def test_mismatched_y_chunks_are_rejected(client):
    X, y = _text(n=200, d=40)
    with pytest.raises(ValueError, match="do not match the row chunks"):
        l2svm_mfn(_dask(X, (100, 100)), da.from_array(y, chunks=(50, 150)))


def test_non_finite_block_is_named(client, caplog):
    X, y = _text(n=300, d=40)
    Xd = X.toarray()
    Xd[250, 3] = np.nan
    with caplog.at_level(logging.INFO, logger="semisvm"):
        with pytest.raises(ValueError, match=r"row block 2 \(rows 200 to 299\).*NaN"):
            l2svm_mfn(_dask(Xd, (100, 100, 100)), y, verbose=True)
    assert not any("iter" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------------------
# TSVM / DA: the unlabeled-row steps as reductions over the blocks

def _ssl(seed=0, n=480, d=80, n_lab=40):
    """Text-like rows; labeled rows only outside the second block (90..329)
    of CHUNKS, so that one block has no labeled row."""
    X, y = _text(n=n, d=d, seed=seed)
    rng = np.random.default_rng(seed)
    pool = np.r_[0:90, 330:n]
    lab = rng.choice(pool, n_lab, replace=False)
    y_ssl = np.zeros(n)
    y_ssl[lab] = y[lab]
    return X, y_ssl


SSL_CHUNKS = (90, 240, 150)
# few annealing steps / temperatures: every round costs worker round trips
TSVM_KW = {"lam_u_init": 0.05, "lam_u_rate": 20.0}
DA_KW = {"max_outer_iter": 2, "max_inner_iter": 3}


@pytest.mark.parametrize("kind", ["csr", "dense"])
def test_tsvm_distributed_equals_in_memory(client, kind):
    X, y = _ssl()
    Xc = X if kind == "csr" else X.toarray()
    # dense: with the continuation in lam (P.lam changes between MFN calls)
    kw = TSVM_KW if kind == "csr" else dict(TSVM_KW, lam_factor=4.0)
    ref = tsvm(Xc, ssl01(y), **kw)
    dist = tsvm(_dask(Xc, SSL_CHUNKS), da.from_array(ssl01(y), chunks=SSL_CHUNKS), **kw)
    assert dist.objective == pytest.approx(ref.objective, rel=1e-8)
    np.testing.assert_array_equal(np.asarray(dist.labels), ref.labels)
    assert (dist.n_mfn, dist.n_switches) == (ref.n_mfn, ref.n_switches)
    np.testing.assert_array_equal(np.asarray(dist.unlabeled_index),
                                  ref.unlabeled_index)


def test_tsvm_estimator_transduction_on_dask(client):
    X, y = _ssl(seed=2)
    labels = np.where(y == 0, -1, np.where(y > 0, 7, 3))
    kw = dict(TSVM_KW, S=3)
    ref = TSVM(**kw).fit(X, labels)
    Xd = _dask(X, SSL_CHUNKS)
    dist = TSVM(**kw).fit(Xd, labels)
    # lam="auto" from one blockwise reduction equals the in-memory value
    assert dist.lam_ == pytest.approx(ref.lam_, rel=1e-12)
    assert dist.result_.objective == pytest.approx(ref.result_.objective, rel=1e-8)
    assert isinstance(dist.transduction_, da.Array)
    np.testing.assert_array_equal(dist.transduction_.compute(), ref.transduction_)
    np.testing.assert_array_equal(dist.predict(Xd).compute(), ref.predict(X))


def test_da_s3vm_distributed_equals_in_memory(client):
    X, y = _ssl(seed=1)
    ref = da_s3vm(X, ssl01(y), **DA_KW)
    dist = da_s3vm(_dask(X, SSL_CHUNKS), ssl01(y), **DA_KW)
    assert dist.objective == pytest.approx(ref.objective, rel=1e-8)
    assert dist.da_objective == pytest.approx(ref.da_objective, rel=1e-8)
    assert dist.nu == pytest.approx(ref.nu, rel=1e-8, abs=1e-12)
    np.testing.assert_array_equal(np.asarray(dist.labels), ref.labels)
    np.testing.assert_allclose(np.asarray(dist.p), ref.p, rtol=1e-7, atol=1e-10)
    assert dist.n_mfn == ref.n_mfn


# ---------------------------------------------------------------------------
# a worker killed in the middle of a fit

def test_killed_worker_gives_the_same_result_or_a_clear_error(client):
    import os
    import signal

    X, y = _text(n=600, d=120, seed=7)
    kw = {"lam": 0.05, "newton": "cgls", "tol": 1e-9}
    ref = l2svm_mfn(X, y, **kw)
    out = {}
    started = threading.Event()

    class Started(logging.Handler):
        def emit(self, record):
            if "iter 2" in record.getMessage():
                started.set()

    handler = Started()
    log = logging.getLogger("semisvm")
    log.addHandler(handler)
    old_level = log.level
    log.setLevel(logging.INFO)

    def run():
        try:
            out["res"] = l2svm_mfn(_dask(X), y, verbose=True, **kw)
        except Exception as exc:  # noqa: BLE001 - inspected below
            out["exc"] = exc

    th = threading.Thread(target=run, daemon=True)
    try:
        th.start()
        assert started.wait(60), "the fit never reached its second iteration"
        pids = client.run(os.getpid)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        th.join(120)
    finally:
        log.removeHandler(handler)
        log.setLevel(old_level)
    assert not th.is_alive(), "the fit hangs after a worker was killed"
    print("killed-worker fit:", "completed" if "res" in out else repr(out["exc"]))
    if "res" in out:
        assert out["res"].objective == pytest.approx(ref.objective, rel=1e-8)
        assert out["res"].n_iter == ref.n_iter
    else:
        assert str(out["exc"]), out["exc"]
    # the nanny restarts the killed worker: slow on a loaded machine
    client.wait_for_workers(2, timeout=300)


@pytest.mark.slow
def test_tsvm_one_vs_rest_on_dask(client):
    X, y = _text(n=240, d=40, seed=9)
    rng = np.random.default_rng(9)
    score = np.asarray(X @ rng.standard_normal(40)).ravel()
    cls = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    labels = np.full(240, -1)
    lab = rng.choice(np.r_[0:90, 150:240], 45, replace=False)
    labels[lab] = cls[lab]
    kw = dict(TSVM_KW, max_iter=20)
    ref = TSVM(**kw).fit(X, labels)
    if len(ref.classes_) < 3:
        pytest.skip("the draw gave fewer than 3 labeled classes")
    dist = TSVM(**kw).fit(_dask(X, (90, 60, 90)), labels)
    np.testing.assert_allclose(dist.coef_, ref.coef_, rtol=1e-5, atol=1e-8)
    np.testing.assert_array_equal(dist.transduction_.compute(), ref.transduction_)


def test_ssl_backends_share_one_protocol():
    """TSVM/DA reach the rows only through the SSL backend: every step the
    in-memory backend offers, the Dask backend offers too."""
    from semisvm._distributed import DaskSSL
    from semisvm._rows import LocalSSL

    def steps(cls):
        return {n for n in vars(cls) if not n.startswith("_")
                and callable(getattr(cls, n))}

    missing = steps(LocalSSL) - steps(DaskSSL)
    assert not missing, missing
    assert LocalSSL.distributed is False and DaskSSL.distributed is True


def test_tsvm_r_auto_on_dask_equals_in_memory(client):
    # r="auto" (the default) gathers the labeled rows and counts the
    # supervised outputs of the unlabeled rows blockwise: the same r_
    X, y = _ssl(seed=3)
    labels = np.where(y == 0, -1, np.where(y > 0, 1, 0))
    ref = TSVM(**TSVM_KW).fit(X, labels)
    dist = TSVM(**TSVM_KW).fit(_dask(X, SSL_CHUNKS), labels)
    assert dist.r_ == pytest.approx(ref.r_, abs=1e-12)
    assert ref.r_ != np.mean(labels[labels >= 0])
    with pytest.raises(ValueError, match="safe=True needs X in memory"):
        TSVM(safe=True).fit(_dask(X, SSL_CHUNKS), labels)


# ---------------------------------------------------------------------------
# the same label conventions as in memory; Dask-fitted models save and pickle

def test_dask_l2svm_mfn_takes_0_1_labels_as_in_memory(client):
    X, y = _text(seed=7)
    y01 = (y > 0).astype(int)
    mem = l2svm_mfn(X, y01, lam=0.1)
    ref = l2svm_mfn(_dask(X), y, lam=0.1)               # -1/+1 on dask
    assert ref.objective == pytest.approx(mem.objective, rel=1e-8)
    for yy in (y01, da.from_array(y01, chunks=(CHUNKS,))):
        res = l2svm_mfn(_dask(X), yy, lam=0.1)
        assert np.array_equal(res.coef, ref.coef) and res.intercept == ref.intercept
    # one block of all ones is fine; 0 and -1 together are not
    bad = y01.copy()
    bad[-1] = -1
    with pytest.raises(ValueError, match="both 0 and -1"):
        l2svm_mfn(_dask(X), bad, lam=0.1)
    with pytest.raises(ValueError, match="both 0 and -1"):
        l2svm_mfn(_dask(X), da.from_array(bad, chunks=(CHUNKS,)), lam=0.1)


@pytest.mark.parametrize("name", ["TSVM", "DASVM"])
def test_dask_fitted_tsvm_dasvm_save_and_pickle_like_in_memory(name, client, tmp_path):
    import pickle

    import semisvm
    X, y = _text(seed=8)
    yssl = np.where(np.arange(y.shape[0]) % 10 == 0, (y > 0).astype(int), -1)
    cls = getattr(semisvm, name)
    mem = cls(r=0.5).fit(X, yssl)
    dist = cls(r=0.5).fit(_dask(X), yssl)
    back = pickle.loads(pickle.dumps(dist))
    assert np.array_equal(back.transduction_, mem.transduction_)
    assert np.allclose(back.coef_, mem.coef_, rtol=1e-6, atol=1e-9)
    assert isinstance(back.transduction_, np.ndarray)
    semisvm.save(dist, tmp_path / "m.model")
    loaded = semisvm.load(tmp_path / "m.model")
    assert np.array_equal(loaded.transduction_, mem.transduction_)
    assert np.array_equal(loaded.predict(X), dist.predict(X))
    # the fitted estimator itself still holds its lazy arrays
    assert not isinstance(dist.transduction_, np.ndarray)
