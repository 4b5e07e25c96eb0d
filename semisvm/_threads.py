"""Threads: what ``n_jobs`` means, and the BLAS/OpenMP pools held to it.

Every estimator with ``n_jobs`` follows scikit-learn's convention (None: one
thread, -1: all cores, -k: all but k - 1) through
:func:`semisvm._rows.n_threads`, and runs
its fit and predict inside :func:`limit`, which holds the thread pools of the
loaded native libraries (threadpoolctl, as scikit-learn's
``threadpool_limits``) for the time of the call:

* **BLAS** (OpenBLAS, MKL, BLIS: SciPy's and NumPy's) at one thread. The
  compiled kernels call it only on d-length vectors (dot products, axpy),
  between their own threaded passes over the rows; left to itself OpenBLAS
  threads any such call above about 10,000 entries, so ``n_jobs=1`` kept a
  second core busy (on a 2-core machine, 200k x 50k CSR rows: 2.08 s CPU
  for 1.04 s wall), and its sums then depended on the BLAS thread count.
  Held at one, a fit with ``n_jobs=1`` runs on one core and every fit gives
  the same bits whatever the environment's ``OPENBLAS_NUM_THREADS``.
* **OpenMP** at ``n_threads(n_jobs)``: the threads of the passes over the
  rows (the kernels also pass that count to each parallel region).

A predict (one product ``X @ coef``) holds BLAS at one thread too: OpenBLAS
splits a threaded ``gemv`` into partial sums whose order follows its thread
count, and the decision values must have the same bits for any ``n_jobs``
(``tests/test_threads.py``).

The controller that finds the libraries is built once (scanning the loaded
libraries costs about a millisecond), as scikit-learn does, and built again
when more Python modules have been imported since, so that a native library
loaded later (an OpenMP runtime brought by another package) is held too.
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import sys

from semisvm._rows import n_threads
from semisvm._thread_state import STATE, current

__all__ = ["current", "follows_n_jobs", "limit", "limit_api", "map_blocks", "n_threads",
           "start_beside"]

_CONTROLLER = (None, -1)


def _controller():
    # native libraries arrive with Python modules (an OpenMP runtime with
    # scikit-learn's SVC or the kNN index, say): scan again when the set of
    # imported modules has grown, so that a library loaded after the first
    # fit is held too
    global _CONTROLLER
    ctl, seen = _CONTROLLER
    if ctl is None or seen != len(sys.modules):
        from threadpoolctl import ThreadpoolController
        ctl = ThreadpoolController()
        _CONTROLLER = (ctl, len(sys.modules))
    return ctl


@contextlib.contextmanager
def limit(n_jobs, *, blas=1):
    """Hold BLAS at ``blas`` threads (None: ``n_threads(n_jobs)``) and OpenMP
    at ``n_threads(n_jobs)`` threads inside the block; yields that count.

    Validates ``n_jobs`` first (ValueError/TypeError naming it).
    """
    nt = n_threads(n_jobs)
    nb = nt if blas is None else int(blas)
    ctl = _controller()
    prev = current()
    # map_blocks' threads: the row blocks run side by side only while BLAS
    # is held at one thread (each block's products then have the bits of a
    # one-thread product, whichever thread computes them)
    STATE.n = nt if nb == 1 else 1
    try:
        if _held(ctl, nb, nt):
            # every pool already runs these counts (an environment pinned to
            # one thread, or an enclosing limit): setting them and putting
            # them back would change nothing; it cost a small fit (pcmac,
            # about 5 ms) some 40 us
            yield nt
        else:
            with ctl.limit(limits={"blas": nb, "openmp": nt}):
                yield nt
    finally:
        STATE.n = prev


def _held(ctl, nb, nt):
    """Do all of ``ctl``'s BLAS pools run ``nb`` threads and all its OpenMP
    pools ``nt`` (one query per library, a few microseconds)?"""
    want = {"blas": nb, "openmp": nt}
    return all(lc.num_threads == want.get(lc.user_api, lc.num_threads)
               for lc in ctl.lib_controllers)


def map_blocks(func, n_blocks):
    """``[func(0), ..., func(n_blocks - 1)]``, run on :func:`current` threads.

    For row blocks whose layout is fixed by the data alone: each call's
    result does not depend on the thread that computes it (BLAS is held at
    one thread inside :func:`limit`), and the list comes back in block
    order, so a caller that sums it in that order gets the same bits for any
    thread count. NumPy releases the GIL in its products.
    """
    nt = min(current(), n_blocks)
    if nt <= 1:
        return [func(i) for i in range(n_blocks)]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(nt) as pool:
        return list(pool.map(func, range(n_blocks)))


def limit_api(limits, user_api):
    """``threadpoolctl.threadpool_limits(limits, user_api)`` through the
    controller built once (:func:`_controller`): the same pools held, without
    scanning the loaded libraries again (threadpoolctl's own function builds
    a new controller per call, about 15 ms each; a graph TV fit made eight
    such calls). Where every pool of ``user_api`` already runs ``limits``
    threads (an int) nothing is set, and nothing is put back on exit: a
    limit entered inside another holding the same count (a check's fold
    solved on a worker thread while the fit holds BLAS at one) then cannot
    restore a stale count after the enclosing limit has ended."""
    ctl = _controller()
    if isinstance(limits, numbers.Integral) and all(
            lc.num_threads == limits for lc in ctl.lib_controllers
            if lc.user_api == user_api):
        return contextlib.nullcontext()
    return ctl.limit(limits=limits, user_api=user_api)


def start_beside(func, name):
    """Start ``func()`` on a thread of its own (``name``) beside the caller's
    and return its :class:`concurrent.futures.Future` (``result()`` waits
    and re-raises what it raised).

    The thread first sets its own OpenMP pools to one thread (an OpenMP
    runtime keeps the count per thread: nothing process-wide changes, and
    nothing is put back, the thread ending with ``func``), so that a
    :func:`limit` of ``n_jobs=1`` entered inside ``func`` while the caller
    holds BLAS at one thread finds every pool held and sets nothing: no
    count of the caller's is restored late by this thread (a threadpoolctl
    limit puts back every library's count, BLAS included, as it was at its
    start), even where the caller's own limit has ended first (a Ctrl-C).
    The caller must not change the ``warnings`` filters while the thread
    runs (``catch_warnings`` is not thread-safe). The thread is a daemon:
    a process whose caller was interrupted (and dropped the Future) exits
    without waiting for ``func``.
    """
    import threading
    from concurrent.futures import Future

    future = Future()

    def run():
        if not future.set_running_or_notify_cancel():
            return
        try:
            for lc in _controller().lib_controllers:
                if lc.user_api == "openmp":
                    lc.set_num_threads(1)
            out = func()
        except BaseException as exc:       # (handed to the caller's result())
            future.set_exception(exc)
        else:
            future.set_result(out)

    # a daemon thread: a caller stopped by a Ctrl-C (which drops the Future)
    # can exit at once, without waiting for func to finish (a pool's worker
    # thread would hold the interpreter's exit until then)
    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def follows_n_jobs(func):
    """Run ``func`` (which takes an ``n_jobs`` keyword) inside :func:`limit`
    of its ``n_jobs``: the solver functions' threads then follow it too."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with limit(kwargs.get("n_jobs")):
            return func(*args, **kwargs)
    return wrapper
