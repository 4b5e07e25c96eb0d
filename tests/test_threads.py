"""``n_jobs`` governs every thread of the linear family (semisvm._threads).

Inside every fit and predict of LinearSVM, TSVM and DASVM (and the solver
functions l2svm_mfn, tsvm, da_s3vm) the BLAS pools are held at one thread and
OpenMP at ``n_jobs``; the results have the same bits for any ``n_jobs``.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

import semisvm._rows as rows_mod
from semisvm import DASVM, TSVM, LinearSVM
from semisvm._threads import limit
from semisvm.solvers import da_s3vm, l2svm_mfn, tsvm


def _pools():
    """{user_api: [num_threads of each library]} right now."""
    out = {}
    for info in threadpool_info():
        out.setdefault(info["user_api"], []).append(info["num_threads"])
    return out


class _Spy:
    """Stands in for the compiled kernels module of semisvm._rows and records
    the thread pools at each kernel call (the callback inside the fit)."""

    def __init__(self, mod):
        self._mod = mod
        self.seen = []

    def __getattr__(self, name):
        f = getattr(self._mod, name)
        if not callable(f):
            return f

        def call(*args, **kwargs):
            if len(self.seen) < 20:
                self.seen.append(_pools())
            return f(*args, **kwargs)
        return call


def _text(n=400, d=300, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.05, format="csr", random_state=seed)
    y = (X @ rng.standard_normal(d) > 0).astype(int)
    return X, y


def _semi(y, frac=0.1, seed=1):
    rng = np.random.default_rng(seed)
    return np.where(rng.random(y.size) < frac, y, -1)


FITS = {
    "LinearSVM": lambda X, y, k: LinearSVM(lam=0.01, n_jobs=k).fit(X, y),
    "TSVM": lambda X, y, k: TSVM(n_jobs=k).fit(X, _semi(y)),
    "DASVM": lambda X, y, k: DASVM(n_jobs=k).fit(X, _semi(y)),
    "l2svm_mfn": lambda X, y, k: l2svm_mfn(X, 2 * y - 1, lam=0.01, n_jobs=k),
    "tsvm": lambda X, y, k: tsvm(X, _semi(y), n_jobs=k),
    "da_s3vm": lambda X, y, k: da_s3vm(X, _semi(y), n_jobs=k),
}


@pytest.mark.parametrize("name", sorted(FITS))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_fit_holds_blas_at_one_and_openmp_at_n_jobs(name, n_jobs, monkeypatch):
    X, y = _text()
    spy = _Spy(rows_mod.K)
    monkeypatch.setattr(rows_mod, "K", spy)
    # the environment's BLAS pools run several threads (a default install on
    # a multi-core machine); the fit must hold them at one all the same
    with threadpool_limits(limits=4, user_api="blas"):
        blas_before = _pools().get("blas", [])
        assert not blas_before or max(blas_before) > 1
        FITS[name](X, y, n_jobs)
        assert _pools().get("blas", []) == blas_before   # restored after the fit
    assert spy.seen, "no kernel call recorded"
    for pools in spy.seen:
        assert all(k == 1 for k in pools.get("blas", [])), pools
        assert all(k == n_jobs for k in pools.get("openmp", [])), pools


@pytest.mark.parametrize("Est", [LinearSVM, TSVM, DASVM])
def test_predict_holds_blas_at_one(Est, monkeypatch):
    X, y = _text()
    Xd = X.toarray()
    clf = Est(n_jobs=1).fit(Xd, y if Est is LinearSVM else _semi(y))
    seen = []
    real = clf._decision_function

    def spy(X):
        seen.append(_pools())
        return real(X)
    monkeypatch.setattr(clf, "_decision_function", spy)
    with threadpool_limits(limits=4, user_api="blas"):
        clf.predict(Xd)
    assert seen and all(k == 1 for k in seen[0].get("blas", []))


def test_limit_leaves_pools_already_held_alone(monkeypatch):
    # pools already at the counts asked for (one BLAS and one OpenMP thread
    # for n_jobs=1): the limit sets nothing (its fixed cost in a small fit),
    # the kernels still see one thread; pools elsewhere: it sets and restores
    import semisvm._threads as thr
    ctl = thr._controller()
    calls = []
    real = type(ctl).limit

    def spy_limit(self, **kw):
        calls.append(kw)
        return real(self, **kw)
    monkeypatch.setattr(type(ctl), "limit", spy_limit)
    X, y = _text()
    spy = _Spy(rows_mod.K)
    monkeypatch.setattr(rows_mod, "K", spy)
    with threadpool_limits(limits=1):
        LinearSVM(lam=0.01, n_jobs=1).fit(X, y)
        assert calls == []
        assert spy.seen and all(k == 1 for p in spy.seen for v in p.values()
                                for k in v)
    with threadpool_limits(limits=3):
        before = _pools()
        spy.seen.clear()
        LinearSVM(lam=0.01, n_jobs=1).fit(X, y)
        assert len(calls) == 1 and _pools() == before
        assert spy.seen and all(k == 1 for p in spy.seen for v in p.values()
                                for k in v)


def test_limit_validates_n_jobs():
    with pytest.raises(ValueError, match="n_jobs"):
        with limit(0):
            pass
    with pytest.raises(TypeError, match="n_jobs"):
        TSVM(n_jobs=1.5).fit(*_text())


def _bits(obj):
    return {k: np.asarray(v).tobytes() for k, v in obj.items()}


@pytest.mark.parametrize("name", ["LinearSVM", "TSVM", "DASVM"])
def test_same_bits_for_any_n_jobs(name):
    # large enough for several row blocks (semisvm._core._cgls.n_blocks), so
    # that the threads do take different blocks
    from semisvm._core._cgls import _set_blocking
    X, y = _text(n=2000, d=300, seed=3)
    old = _set_blocking(500, 64, 1)     # 48 blocks (a multiple of 16)
    try:
        got = []
        for k in (1, 2, 3, 8):
            clf = FITS[name](X, y, k)
            out = {"coef": clf.coef_, "b": clf.intercept_,
                   "dec": clf.decision_function(X),
                   "dec_dense": clf.decision_function(X.toarray())}
            if hasattr(clf, "transduction_"):
                out["trans"] = clf.transduction_
                out["obj"] = clf.result_.objective
            got.append(_bits(out))
    finally:
        _set_blocking(*old)
    for g in got[1:]:
        assert g == got[0]


_CPU_SCRIPT = textwrap.dedent("""
    import os, sys, time
    import numpy as np, scipy.sparse as sp
    from threadpoolctl import threadpool_limits
    from semisvm import {est}

    def ticks():
        out = {{}}
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{{tid}}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            out[int(tid)] = int(parts[11]) + int(parts[12])   # utime + stime
        return out

    rng = np.random.default_rng(0)
    n, d = 20000, 60000
    # 25 entries per row, built directly (sp.random draws its positions from
    # all n * d cells: 10 GB here)
    cols = np.sort(rng.choice(d, size=(n, 25)), axis=1).ravel().astype(np.int32)
    X = sp.csr_matrix((rng.random(n * 25), cols, np.arange(0, n * 25 + 1, 25)),
                      shape=(n, d))
    X.sum_duplicates()
    y = (X @ rng.standard_normal(d) > 0).astype(int)
    if "{est}" != "LinearSVM":
        y = np.where(rng.random(n) < 0.05, y, -1)
    kw = dict(lam=1e-2) if "{est}" == "LinearSVM" else {{}}
    with threadpool_limits(limits=2, user_api="blas"):   # as on 2+ cores
        {est}(n_jobs=1, **kw).fit(X[:500], y[:500])       # warm up the pools
        t0 = ticks()
        c0 = time.process_time()
        {est}(n_jobs=1, **kw).fit(X, y)
        cpu = time.process_time() - c0
        t1 = ticks()
    main = os.getpid()
    other = sum(t1.get(t, 0) - t0.get(t, 0) for t in t1 if t != main)
    print(cpu, other / os.sysconf("SC_CLK_TCK"))
""")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="reads per-thread CPU time from /proc")
@pytest.mark.parametrize("est", ["LinearSVM"])
def test_n_jobs_1_fit_runs_on_one_thread(est, tmp_path):
    # a fresh process; CPU time of every thread but the main one, over a fit
    # with n_jobs=1 whose BLAS pools were set to two threads beforehand
    env = dict(os.environ)
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(v, None)
    # (without the limits the BLAS threads of a loaded machine spin: the
    # same fit took 48 s of CPU instead of 0.2 s; a timeout is a failure)
    out = subprocess.run([sys.executable, "-c", _CPU_SCRIPT.format(est=est)],
                         capture_output=True, text=True, env=env, check=True,
                         timeout=300, cwd=tmp_path)   # outside the source tree
    cpu, other = map(float, out.stdout.split())
    assert cpu > 0.05, "the fit is too short to tell"
    assert other <= 0.02 + 0.02 * cpu, (cpu, other)


@pytest.mark.parametrize("n_jobs", [None, 1, 2])
def test_estimate_prior_holds_threads_to_n_jobs(n_jobs, monkeypatch):
    # the PU prior's classifier (histogram gradient boosting, OpenMP) ran on
    # every core whatever the caller gave it
    import sklearn.model_selection as ms

    from semisvm.pu import estimate_prior
    seen = []
    real = ms.cross_val_predict

    def spy(*args, **kwargs):
        seen.append(_pools())
        return real(*args, **kwargs)
    monkeypatch.setattr(ms, "cross_val_predict", spy)
    rng = np.random.default_rng(0)
    X = np.r_[rng.standard_normal((150, 3)) + 2, rng.standard_normal((150, 3)) - 2]
    y = -np.ones(300)
    y[:60] = 1
    with threadpool_limits(limits=4):
        prior = estimate_prior(X, y, n_jobs=n_jobs)
    assert 0.2 < prior < 0.5
    assert seen
    want = 1 if n_jobs is None else n_jobs
    assert all(k == want for k in seen[0].get("openmp", [])), seen[0]
    assert all(k == 1 for k in seen[0].get("blas", [])), seen[0]
    with pytest.raises(ValueError, match="n_jobs"):
        estimate_prior(X, y, n_jobs=0)


@pytest.mark.parametrize("safe", [False, True])
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_tv_graph_search_runs_on_n_jobs_threads(safe, n_jobs, monkeypatch):
    # the TV/Cheeger family's default graph (and safe=True's shared one)
    # searches the neighbours on the fit's n_jobs threads, not on one
    import semisvm.graph as graph_mod
    from semisvm import TVRLS

    seen = []
    search = graph_mod.knn_search

    def spy(X, k, **kw):
        seen.append(kw.get("n_jobs"))
        return search(X, k, **kw)

    monkeypatch.setattr(graph_mod, "knn_search", spy)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.3, (40, 2)), rng.normal(3, 0.3, (40, 2))])
    y = np.full(80, -1)
    y[[0, 1, 40, 41]] = [0, 0, 1, 1]
    TVRLS(n_jobs=n_jobs, safe=safe).fit(X, y)
    assert seen and set(seen) == {n_jobs}


def test_map_blocks_threads_follow_limit_only_with_blas_at_one():
    # row blocks run side by side inside limit(n_jobs) (BLAS held at one
    # thread); with BLAS at n_jobs threads, or outside a limit, one by one
    import threading

    from semisvm._threads import current, map_blocks

    def seen(_):
        return threading.get_ident()

    assert current() == 1
    with limit(2):
        assert current() == 2
        assert [b for b in map_blocks(lambda i: i * i, 5)] == [0, 1, 4, 9, 16]
        with limit(2, blas=None):
            assert current() == 1
            assert set(map_blocks(seen, 4)) == {threading.get_ident()}
        assert current() == 2
    assert current() == 1
    assert set(map_blocks(seen, 4)) == {threading.get_ident()}


def test_limit_api_held_sets_and_restores_nothing():
    # a limit of one API entered where its pools already run that count (a
    # fold solved on a worker thread inside the fit's limit) sets nothing and
    # restores nothing: it cannot put back a stale count after the enclosing
    # limit has ended (Ctrl-C leaving the worker to finish on its own)
    import semisvm._threads as thr
    with threadpool_limits(limits=3):
        outer = thr.limit_api(1, "blas")
        outer.__enter__()
        inner = thr.limit_api(1, "blas")          # held: nothing to do
        inner.__enter__()
        outer.__exit__(None, None, None)           # the fit's limit ends first
        after_outer = _pools()
        inner.__exit__(None, None, None)           # the worker's ends later
        assert _pools() == after_outer            # no stale 1 put back
    with threadpool_limits(limits=3):
        if any(p["user_api"] == "blas" for p in threadpool_info()):
            before = _pools()
            with thr.limit_api(1, "blas"):        # not held: set, then restored
                assert all(p["num_threads"] == 1 for p in threadpool_info()
                           if p["user_api"] == "blas")
            assert _pools() == before


# ------------------------------------------ the TV / Cheeger family's threads


def _two_cpus(monkeypatch):
    """n_jobs as on a machine of at least two cores (check_n_jobs caps the
    count at the cores this process may use: one under taskset)."""
    import semisvm._tv_check as tv_check
    import semisvm.graph_tv as gt

    def two(n_jobs):
        return 1 if n_jobs is None else 2 if n_jobs in (-1, 2) else n_jobs
    monkeypatch.setattr(tv_check, "check_n_jobs", two)
    monkeypatch.setattr(gt, "check_n_jobs", two)


def _rof_spy(monkeypatch):
    """Record the n_threads of every graph ROF solve."""
    import semisvm._tv_solvers as ts
    seen = []
    real = ts.rof_pd_multi

    def spy(*a, **kw):
        seen.append(kw["n_threads"])
        return real(*a, **kw)
    monkeypatch.setattr(ts, "rof_pd_multi", spy)
    return seen


@pytest.mark.parametrize("c", [1, 3])
def test_rof_threads_size_switch_both_sides_same_bits(c, monkeypatch):
    """The graph ROF solver takes several threads only from
    ROF_THREADS_MIN_WORK edge-columns per thread (and, for one column, only
    from ROF_ONE_COLUMN_MIN_THREADS threads): at each switch the threads,
    one edge-column (one thread) below it one thread, and the same
    iterates, bit for bit, on either side and on one thread."""
    import semisvm._tv_solvers as ts
    from semisvm.graph import knn_affinity
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 3))
    W = knn_affinity(X, 8, weight="self-tuning")
    Z = rng.standard_normal((300, c))
    seen = _rof_spy(monkeypatch)
    m = ts._ROF(W, c, 1e-8, 50).src.shape[0]
    # (one column: the least count allowed set to 2 and to 3, the work
    # then enough for two threads: both sides of that switch)
    cases = ([(m * c // 2, 2, 2), (m * c // 2 + 1, 2, 1), (m * c, 2, 1)] if c > 1 else
             [(m // 2, 2, 2), (m // 2, 3, 1), (m // 2 + 1, 2, 1)])
    out = []
    for work, least, nt in cases:
        monkeypatch.setattr(ts, "ROF_THREADS_MIN_WORK", work)
        monkeypatch.setattr(ts, "ROF_ONE_COLUMN_MIN_THREADS", least)
        with limit(2):
            rof = ts._ROF(W, c, 1e-8, 50, n_threads=2)
            G = rof.solve(Z, 0.3, 1.0, np.zeros((300, c)))
        assert rof.n_threads == nt and seen[-1] == nt
        out.append((G.tobytes(), rof.p.tobytes(), rof.n_iter))
    with limit(1):
        rof = ts._ROF(W, c, 1e-8, 50, n_threads=1)
        one = (rof.solve(Z, 0.3, 1.0, np.zeros((300, c))).tobytes(),
               rof.p.tobytes(), rof.n_iter)
    assert all(v == one for v in out)
    # many threads allowed: one per share, at most the count allowed; one
    # column on at least ROF_ONE_COLUMN_MIN_THREADS
    monkeypatch.setattr(ts, "ROF_THREADS_MIN_WORK", 1000)
    monkeypatch.setattr(ts, "ROF_ONE_COLUMN_MIN_THREADS", 4)
    assert ts._rof_threads(16, 3500, 2) == 7 and ts._rof_threads(2, 3500, 2) == 2
    assert ts._rof_threads(16, 999, 2) == 1 and ts._rof_threads(16, 400, 3) == 1
    assert ts._rof_threads(16, 3999, 1) == 1 and ts._rof_threads(16, 4000, 1) == 4
    assert ts._rof_threads(3, 9000, 1) == 1


def _guard_problem():
    from sklearn.datasets import make_moons
    X, yt = make_moons(120, noise=0.1, random_state=0)
    y = np.full(120, -1)
    rng = np.random.default_rng(0)
    for k in (0, 1):
        y[rng.choice(np.flatnonzero(yt == k), 5, replace=False)] = k
    return X, y


def _tv_outcome(est, X):
    r = est.result_
    return (np.asarray(r.decision).tobytes(), est.transduction_.tobytes(),
            est.decision_function(X).tobytes(), est.fell_back_,
            est.unlabeled_gain_, est.laplacian_agreement_, est.laplacian_fallback_,
            tuple(s.tobytes() for s in est.safe_scores_), est.n_iter_)


def _guard_spy(monkeypatch):
    """Record the thread and n_jobs of each Laplacian guard's LapRLS fit,
    and the n_jobs of each solve of the fit (not of its check's folds)."""
    import threading

    import semisvm.graph_tv as gt
    seen = {"guard": [], "solve": []}
    owner = next(c for c in gt.TVRLS.__mro__ if "_fit_laplacian" in vars(c))
    real = vars(owner)["_fit_laplacian"]

    def spy(self, X, y, memo=None, n_jobs=None):
        seen["guard"].append((threading.current_thread().name.split("_")[0],
                              self.n_jobs if n_jobs is None else n_jobs))
        return real(self, X, y, memo, n_jobs)
    monkeypatch.setattr(owner, "_fit_laplacian", spy)
    for name in ("graph_tv", "graph_cheeger"):
        def spy_solve(*a, _real=getattr(gt, name), **kw):
            seen["solve"].append(kw.get("n_jobs"))
            return _real(*a, **kw)
        monkeypatch.setattr(gt, name, spy_solve)
    return seen


@pytest.mark.parametrize("Est", ["TVRLS", "CheegerRLS"])
@pytest.mark.parametrize("take", [False, True])
def test_guard_ahead_both_sides_same_bits(Est, take, monkeypatch):
    """With n_jobs >= 2 the Laplacian guard's LapRLS fit runs on a thread
    beside the fit's solve (which takes n_jobs - 1 threads), LapRLS on one
    thread: the same fit, check, guard outcome and model, bit for bit, as
    n_jobs=None (the guard after the check, on this thread); not with
    GUARD_AHEAD off, above GUARD_MAX_ROWS (no guard at all), or where both
    fits' n x n arrays do not fit in memory at once. ``take``: the guard
    takes LapRLS's fit over (GUARD_AGREEMENT above 1) or keeps the fit."""
    import semisvm
    import semisvm._fallback as fb
    import semisvm._tv_check as tv_check
    X, y = _guard_problem()
    Est = getattr(semisvm, Est)
    _two_cpus(monkeypatch)
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 1.01 if take else 0.0)
    seen = _guard_spy(monkeypatch)

    def fit(n_jobs):
        seen["guard"].clear()
        seen["solve"].clear()
        est = Est(n_jobs=n_jobs)
        with _quiet():
            est.fit(X, y)
        return _tv_outcome(est, X)

    one = fit(None)
    assert seen["guard"] == [("MainThread", None)]
    assert one[6] is take and one[5] is not None
    assert fit(2) == one
    assert seen["guard"] == [("semisvm-guard", 1)]
    assert seen["solve"][0] == 1            # the fit's solve: n_jobs - 1
    # the switches' other sides: the guard after the check, on this thread
    monkeypatch.setattr(tv_check, "GUARD_AHEAD", False)
    assert fit(2) == one and seen["guard"] == [("MainThread", 2)]
    assert seen["solve"][0] == 2
    monkeypatch.setattr(tv_check, "GUARD_AHEAD", True)
    monkeypatch.setattr(tv_check, "fits_in_memory", lambda nbytes: False)
    assert fit(2) == one and seen["guard"] == [("MainThread", 2)]
    monkeypatch.setattr(tv_check, "fits_in_memory", lambda nbytes: True)
    assert fit(2) == one and seen["guard"] == [("semisvm-guard", 1)]
    monkeypatch.setattr(fb, "GUARD_MAX_ROWS", X.shape[0] - 1)
    above = fit(2)
    assert seen["guard"] == [] and above[5] is None
    assert fit(None) == above


def _quiet():
    import warnings
    from contextlib import contextmanager

    @contextmanager
    def block():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    return block()


def test_guard_ahead_dropped_where_the_check_falls_back(monkeypatch):
    """XOR defeats the graph: the check falls back to the SVC and the guard
    does not run; the LapRLS fitted ahead is dropped, the model the same
    bits as with n_jobs=None."""
    import semisvm._fallback as fb
    from semisvm import CheegerRLS
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (200, 2))
    yt = (X[:, 0] * X[:, 1] > 0).astype(int)
    y = np.full(200, -1)
    for k in (0, 1):
        y[rng.choice(np.flatnonzero(yt == k), 8, replace=False)] = k
    _two_cpus(monkeypatch)
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 1.01)
    seen = _guard_spy(monkeypatch)
    out = []
    for n_jobs in (None, 2):
        with _quiet():
            est = CheegerRLS(n_jobs=n_jobs).fit(X, y)
        assert est.fell_back_ and est.laplacian_agreement_ is None
        out.append(_tv_outcome(est, X))
    assert out[0] == out[1]
    assert seen["guard"] == [("semisvm-guard", 1)]


def test_guard_ahead_error_reaches_the_fit(monkeypatch):
    """An error in the guard's thread reaches the fit where the guard reads
    its LapRLS fit."""
    import semisvm._fallback as fb
    from semisvm import TVRLS
    from semisvm.manifold import LapRLS
    X, y = _guard_problem()
    _two_cpus(monkeypatch)
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 0.5)

    def failing(self, *a, **kw):
        raise RuntimeError("guard thread")
    monkeypatch.setattr(LapRLS, "fit", failing)
    with pytest.raises(RuntimeError, match="guard thread"), _quiet():
        TVRLS(n_jobs=2).fit(X, y)


def test_guard_ahead_ctrl_c_does_not_wait(monkeypatch):
    """A KeyboardInterrupt in the fit's solve ends the fit at once, the
    guard's thread still fitting (it finishes in the background); the
    estimator is left as before the fit, and the thread pools as they were."""
    import threading

    import semisvm.graph_tv as gt
    from semisvm import TVRLS
    from semisvm.manifold import LapRLS
    X, y = _guard_problem()
    _two_cpus(monkeypatch)
    release, started = threading.Event(), threading.Event()
    real_fit = LapRLS.fit

    def slow_fit(self, *a, **kw):
        started.set()
        release.wait(30)
        return real_fit(self, *a, **kw)
    monkeypatch.setattr(LapRLS, "fit", slow_fit)
    solve = gt.graph_tv

    def interrupted(*a, **kw):
        started.wait(30)
        raise KeyboardInterrupt
    monkeypatch.setattr(gt, "graph_tv", interrupted)
    est = TVRLS(n_jobs=2)
    before = _pools()
    workers = []
    try:
        with pytest.raises(KeyboardInterrupt), _quiet():
            est.fit(X, y)
        workers += [t for t in threading.enumerate()
                    if t.name.startswith("semisvm-guard")]
        assert started.is_set() and workers and workers[0].is_alive()
        # a daemon: the interpreter's exit does not wait for its LapRLS fit
        # (a thread pool's worker would hold it until the fit ends)
        assert workers[0].daemon
        assert not hasattr(est, "transduction_")
    finally:
        release.set()
        monkeypatch.setattr(gt, "graph_tv", solve)
    for t in workers:
        t.join(30)
    assert _pools() == before


@pytest.mark.parametrize("Est", ["TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"])
def test_tv_family_n_jobs_same_bits_on_threads(Est, monkeypatch):
    """Every TV / Cheeger default fit, n_jobs None / 1 / 2 / -1: as it runs
    (every graph ROF solve on one thread below ROF_THREADS_MIN_WORK; the
    guard's fit beside the solve, the check's folds side by side) and with
    the ROF solves forced onto the fit's threads (ROF_THREADS_MIN_WORK 1,
    ROF_ONE_COLUMN_MIN_THREADS 2, the guard after the check, the folds one
    after the other): the same bits."""
    import semisvm
    import semisvm._tv_check as tv_check
    import semisvm._tv_solvers as ts
    X, y = _guard_problem()
    _two_cpus(monkeypatch)
    seen = _rof_spy(monkeypatch)
    out = []
    for forced in (False, True):
        if forced:
            monkeypatch.setattr(ts, "ROF_THREADS_MIN_WORK", 1)
            monkeypatch.setattr(ts, "ROF_ONE_COLUMN_MIN_THREADS", 2)
            monkeypatch.setattr(tv_check, "GUARD_AHEAD", False)
            monkeypatch.setattr(tv_check, "FOLD_THREADS_MAX_ROWS", X.shape[0] - 1)
        for n_jobs in (None, 1, 2, -1):
            seen.clear()
            with _quiet():
                est = getattr(semisvm, Est)(n_jobs=n_jobs).fit(X, y)
            out.append(_tv_outcome(est, X))
            if forced and n_jobs in (2, -1):
                assert 2 in seen
            else:
                assert set(seen) == {1}
    assert all(o == out[0] for o in out[1:])


@pytest.mark.parametrize("Est", ["TVRLS", "CheegerRLS"])
def test_guard_ahead_leaves_a_random_state_instance_as_n_jobs_none(monkeypatch, Est):
    """A RandomState instance as random_state: LapRLS draws from it, so the
    guard's fit is not started ahead (it would draw where the check falls
    back and the guard never runs); the generator is left where n_jobs=None
    leaves it, and a second fit sharing it gets the same bits."""
    import semisvm
    import semisvm._tv_check as tv_check
    _two_cpus(monkeypatch)
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (200, 2))
    yt = (X[:, 0] * X[:, 1] > 0).astype(int)        # XOR: the check falls back
    y = np.full(200, -1)
    for k in (0, 1):
        y[rng.choice(np.flatnonzero(yt == k), 8, replace=False)] = k
    started = []
    real = tv_check.start_beside

    def spy(func, name):
        started.append(name)
        return real(func, name)
    monkeypatch.setattr(tv_check, "start_beside", spy)
    E = getattr(semisvm, Est)
    out = []
    for nj in (None, 2):
        rs = np.random.RandomState(7)
        with _quiet():
            a = E(n_jobs=nj, n_components=40, random_state=rs).fit(X, y)
            b = E(n_jobs=nj, n_components=40, random_state=rs).fit(X, y)
        out.append((a.fell_back_, b.decision_function(X).tobytes(), rs.randint(10**9)))
    assert out[0][0] and out[0] == out[1]
    assert not started
    # with an int seed it is started (the same problem)
    with _quiet():
        E(n_jobs=2, n_components=40, random_state=7).fit(X, y)
    assert started


def test_guard_ahead_waited_for_before_the_exact_kernel(monkeypatch):
    """A multi-class fit whose penalty iteration is rejected builds the exact
    kernel mid-solve (scikit-learn's validation enters warnings filters of
    its own): the guard's LapRLS fit beside it is finished first, and the
    fit's bits are those of n_jobs=None."""
    from sklearn.datasets import make_blobs

    import semisvm._tv_schemes as sc
    import semisvm._tv_setup as ts
    from semisvm import TVRLS
    _two_cpus(monkeypatch)
    # the Nystroem path from 150 rows, the exact kernel up to its default
    # bound; every penalty iteration rejected
    monkeypatch.setattr(ts, "LOWRANK_MIN_SAMPLES", 150, raising=True)
    monkeypatch.setattr(sc, "PENALTY_MIN_SHARE", 1.01)
    X, yt = make_blobs(240, centers=3, n_features=4, cluster_std=2.0, random_state=0)
    y = np.full(240, -1)
    r = np.random.default_rng(0)
    for k in range(3):
        y[r.choice(np.flatnonzero(yt == k), 6, replace=False)] = k
    seen = []
    real = TVRLS._kernel

    def kernel(self, A, Y=None):
        pending = getattr(self, "_guard_pending", None)
        if pending is not None and Y is None and A.shape[0] == X.shape[0]:
            seen.append(pending.done())
        return real(self, A, Y)
    monkeypatch.setattr(TVRLS, "_kernel", kernel)
    with _quiet():
        a = TVRLS(n_jobs=None).fit(X, y)
        b = TVRLS(n_jobs=2).fit(X, y)
    assert b.mode_ == "exact" and seen and all(seen)
    assert _tv_outcome(a, X) == _tv_outcome(b, X)
