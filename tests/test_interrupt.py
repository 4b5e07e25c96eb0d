"""Ctrl-C during a fit: it stops within a second, and the estimator is left
exactly as it was before the call (the previous model whole, same objects).

SIGINT is sent to this process from a timer thread while the main thread is
inside the fit; the compiled loops run Python's signal handlers every few
million flops, so the KeyboardInterrupt surfaces from the fit itself.
"""
import os
import signal
import threading
import time
import warnings

import numpy as np
import pytest

import semisvm


def _interrupt_fit(model, X, y, after=0.5):
    """Fit, send SIGINT ``after`` seconds in; return seconds from the signal
    to the KeyboardInterrupt (fails if the fit ends first)."""
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, fire)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            timer.start()
            try:
                model.fit(X, y)
            except KeyboardInterrupt:
                stopped = time.perf_counter()
            else:  # pragma: no cover - the fit must outlast the timer
                timer.cancel()
                timer.join()
                pytest.fail("the fit ended before the interrupt")
    finally:
        timer.join()
        signal.signal(signal.SIGINT, old)
    return stopped - sent[0]


def _state(model):
    return dict(vars(model))


def _same_state(model, before):
    now = vars(model)
    return now.keys() == before.keys() and all(now[k] is before[k] for k in now)


@pytest.mark.slow
def test_ctrl_c_stops_linear_svm_within_a_second_and_keeps_the_model():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20000, 400))
    y = np.where(X[:, 0] + rng.standard_normal(20000) > 0, 1, 0)
    # a first model, on other labels, that the interrupted refit must keep
    model = semisvm.LinearSVM(lam=1e-3).fit(X[:200], np.where(y[:200], "b", "a"))
    before = _state(model)
    # one compiled call that would run for minutes: exact CG, no gradient stop
    model.set_params(lam=1e-9, tol=1e-300, grad_tol=0.0, newton="cgls",
                     max_iter=10**6, cg_max_iter=10**6)
    before["lam"], before["tol"], before["grad_tol"] = 1e-9, 1e-300, 0.0
    before["newton"], before["max_iter"], before["cg_max_iter"] = "cgls", 10**6, 10**6
    delay = _interrupt_fit(model, X, y)
    assert delay < 1.0, delay
    assert _same_state(model, before)
    assert list(model.classes_) == ["a", "b"]      # not the new labels
    assert model.predict(X[:5]).dtype.kind == "U"


@pytest.mark.slow
def test_ctrl_c_stops_tvrls_within_a_second_and_keeps_the_model():
    rng = np.random.default_rng(1)
    n = 1200
    X = np.r_[rng.normal(-1, 1, (n // 2, 5)), rng.normal(1, 1, (n // 2, 5))]
    y = np.full(n, -1)
    y[:10], y[n // 2:n // 2 + 10] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = semisvm.TVRLS(max_iter=5).fit(
            np.r_[X[:100], X[n // 2:n // 2 + 100]],
            np.r_[y[:100], y[n // 2:n // 2 + 100]])
    before = _state(model)
    model.set_params(max_iter=10**6, tol=1e-300, n_stable=10**6)
    before.update(max_iter=10**6, tol=1e-300, n_stable=10**6)
    delay = _interrupt_fit(model, X, y, after=1.0)
    assert delay < 1.0, delay
    assert _same_state(model, before)


def test_an_interrupted_first_fit_leaves_an_unfitted_estimator():
    from sklearn.exceptions import NotFittedError

    model = semisvm.LinearSVM()
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((50, 3)), np.r_[np.zeros(25), np.ones(25)]

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    import semisvm.linear as lin
    mp = pytest.MonkeyPatch()
    mp.setattr(lin, "_mfn_solve", boom)
    try:
        with pytest.raises(KeyboardInterrupt):
            model.fit(X, y)
    finally:
        mp.undo()
    assert vars(model) == vars(semisvm.LinearSVM())
    with pytest.raises(NotFittedError):
        model.predict(X)
