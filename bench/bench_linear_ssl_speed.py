#!/usr/bin/env python
"""Thread scaling of LinearSVM, and TSVM / DASVM at scale against LIBLINEAR.

Two tables, each measured side by side in one run, on seeded text-like CSR
rows made here (``_text_like.make_text_like``: Zipf columns, tf-idf rows;
nothing is read from disk), in the environment the script is started
in (run it without ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS``: every
thread must follow ``n_jobs``):

1. ``--scale N D NNZ`` (part ``linear``): ``LinearSVM(lam=0.5)`` (LIBLINEAR
   ``-s 2 -c 1 -B 1``'s objective, times lam) on N x D rows with about NNZ
   stored entries per row, for each of ``--threads``: wall and CPU seconds,
   CPU / wall, the speed-up over the first thread count, MFN and CG
   iterations, and whether ``coef_`` has the same bits as with the first
   thread count (it must). ``--scale-liblinear`` adds LIBLINEAR's ``train()``
   on the same rows and LinearSVM's time and objective relative to it.
2. ``--rows`` (part ``ssl``): TSVM and DASVM (``lam=0.001, lam_u=1, r=0.5``,
   the settings of the scale table of ``bench_linear_tsvm.py``) on N x
   ``--d`` rows, 1 % labeled, for each of ``--jobs``: wall and CPU seconds,
   CPU / wall, MFN calls, CG iterations, the objective, whether the labels
   have the same bits as with the first ``n_jobs``, and the wall- and
   CPU-time ratios to LIBLINEAR ``-s 2 -B 1`` trained on all rows with all labels
   (``train()`` only; ``pip install liblinear-official``; one thread).
   ``--two-pass`` adds the former two-pass CG step and the former
   arithmetic's output pass per MFN call, for comparison.
   ``--reference-stops`` adds TSVM with ``switch_tol=0`` and DASVM with
   ``settled=None`` (every switching round to none switched; cooling until
   the entropy test), and the labels where they differ from the defaults'.

``--d-factor K``: row blocks of at least K (d + 1) stored entries (the
library's rule is 16; see ``semisvm._core._cgls``), to compare block layouts
on a many-core machine. ``--quick``: small sizes, a check that the script
runs (seconds).

    # this 2-core machine: TSVM / DASVM at 200k rows
    python bench/bench_linear_ssl_speed.py --parts ssl --rows 200000 --jobs 1 2
    # a 16-core machine (about 3 minutes): both tables at 1M rows
    python bench/bench_linear_ssl_speed.py --scale 1000000 100000 40 \\
        --threads 1 2 4 8 16 --rows 1000000 --jobs 1 8
"""
import argparse
import hashlib
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _text_like import make_text_like  # noqa: E402

from semisvm import DASVM, TSVM, LinearSVM  # noqa: E402
from semisvm._rows import LocalRows, LocalSSL  # noqa: E402


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def digest(a):
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()[:10]


def primal(X, y, w, b, lam):
    """lam/2 (||w||^2 + b^2) + 1/2 sum_i max(0, 1 - y_i (x_i.w + b))^2.

    On one BLAS thread: a threaded dot leaves OpenBLAS's threads spinning
    for a while after it, and the next fit's CPU time would count them."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1, user_api="blas"):
        m = np.maximum(0.0, 1.0 - np.where(y > 0, 1.0, -1.0) * (X @ w + b))
        return 0.5 * lam * (float(w @ w) + b * b) + 0.5 * float(m @ m)


def liblinear_fit(X, y):
    """LIBLINEAR -s 2 -c 1 -B 1 on all rows: (w, b, wall, CPU) of train()."""
    from liblinear import liblinearutil
    prob = liblinearutil.problem(np.where(y > 0, 1.0, -1.0), X, bias=1)
    param = liblinearutil.parameter("-s 2 -c 1 -B 1 -q")
    model, t, c = timed(lambda: liblinearutil.train(prob, param))
    nf = model.get_nr_feature()
    wf = np.ctypeslib.as_array(model.w, (nf + 1,)).astype(np.float64)
    w, b = np.zeros(X.shape[1]), float(wf[nf]) * model.bias
    w[:nf] = wf[:nf]
    if model.get_labels()[0] != 1:
        w, b = -w, -b
    return w, b, t, c


def load():
    return f"{os.getloadavg()[0]:.1f}"


def scale_table(n, d, nnz, threads, with_liblinear, repeat):
    (X, y), t_gen, _ = timed(lambda: make_text_like(n, d=d, nnz=nnz))
    print(f"\n== LinearSVM(lam=0.5) on {n} x {d} rows, {X.nnz} stored entries "
          f"(made in {t_gen:.1f} s); wall = best of {repeat} ==")
    ll = None
    if with_liblinear:
        try:
            w, b, t, c = liblinear_fit(X, y)
            ll = (t, primal(X, y, w, b, 0.5))
            print(f"LIBLINEAR -s 2 -c 1 -B 1: wall {t:.2f} s, CPU {c:.2f} s, "
                  f"objective {ll[1]:.10g}")
        except ImportError:
            print("LIBLINEAR absent (pip install liblinear-official)")
    print(f"{'threads':>7}{'wall':>8}{'CPU':>8}{'CPU/wall':>9}{'speed-up':>9}"
          f"{'iter':>6}{'cg':>6}{'same bits':>10}"
          + (f"{'/LIBLINEAR':>11}{'obj gap':>10}" if ll else "") + "  load")
    first = None
    for k in threads:
        best = None
        for _ in range(repeat):
            clf, t, c = timed(lambda k=k: LinearSVM(lam=0.5, n_jobs=k).fit(X, y))
            if best is None or t < best[1]:
                best = (clf, t, c)
        clf, t, c = best
        h = digest(clf.coef_)
        if first is None:
            first = (t, h)
        r = clf.result_
        line = (f"{k:>7}{t:>8.2f}{c:>8.2f}{c / t:>9.2f}{first[0] / t:>9.2f}"
                f"{r.n_iter:>6}{r.n_cg_iter:>6}{str(h == first[1]):>10}")
        if ll:
            obj = primal(X, y, clf.coef_.ravel().astype(np.float64),
                         float(clf.intercept_), 0.5)
            line += f"{t / ll[0]:>11.2f}{(obj - ll[1]) / abs(ll[1]):>10.1e}"
        print(line + f"  {load()}", flush=True)


def ssl_table(n, d, jobs, two_pass, reference_stops=False):
    (X, y), t_gen, _ = timed(lambda: make_text_like(n, d=d))
    rng = np.random.default_rng(0)
    ys = np.where(rng.random(n) < 0.01, y, -1)
    print(f"\n== TSVM / DASVM (lam=0.001, lam_u=1, r=0.5) on {n} x {d} rows, "
          f"{X.nnz} stored entries, {np.sum(ys >= 0)} labeled (made in "
          f"{t_gen:.1f} s) ==")
    try:
        _, _, t_ll, c_ll = liblinear_fit(X, y)
        print(f"LIBLINEAR -s 2 -c 1 -B 1 (all {n} labels): wall {t_ll:.2f} s, "
              f"CPU {c_ll:.2f} s  load {load()}")
    except ImportError:
        t_ll = c_ll = np.nan
        print("LIBLINEAR absent (pip install liblinear-official)")
    print(f"{'model':<18}{'n_jobs':>7}{'wall':>8}{'CPU':>8}{'CPU/wall':>9}"
          f"{'mfn':>5}{'cg':>6}{'objective':>16}{'same bits':>10}"
          f"{'wall/LL':>8}{'CPU/LL':>8}  load")
    variants = [("", False)] + ([(" two-pass", True)] if two_pass else [])
    labels = {}
    for label, two in variants:
        orig = LocalSSL.__init__

        def init(self, *args, **kw):
            orig(self, *args, **kw)
            self.rows.one_pass = False
            self.rows.reuse_outputs = False
        if two:
            LocalSSL.__init__ = init
        try:
            for Est in (TSVM, DASVM):
                first = None
                for k in jobs:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est, t, c = timed(lambda k=k: Est(
                            lam=1e-3, lam_u=1.0, r=0.5, n_jobs=k).fit(X, ys))
                    res = est.result_
                    labels.setdefault(Est.__name__, est.transduction_)
                    h = digest(est.transduction_) + digest(est.coef_)
                    first = first or h
                    print(f"{Est.__name__ + label:<18}{k:>7}{t:>8.2f}{c:>8.2f}"
                          f"{c / t:>9.2f}{res.n_mfn:>5}{res.n_cg_iter:>6}"
                          f"{res.objective:>16.10g}{str(h == first):>10}"
                          f"{t / t_ll:>8.2f}{c / c_ll:>8.2f}  {load()}",
                          flush=True)
        finally:
            LocalSSL.__init__ = orig
    if reference_stops:
        for Est, ref in ((TSVM, {"switch_tol": 0}), (DASVM, {"settled": None})):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est, t, c = timed(lambda: Est(lam=1e-3, lam_u=1.0, r=0.5,
                                              n_jobs=jobs[0], **ref).fit(X, ys))
            res = est.result_
            diff = int(np.sum(est.transduction_ != labels[Est.__name__]))
            print(f"{Est.__name__ + ' ' + str(ref):<30}{jobs[0]:>3}{t:>8.2f}"
                  f"{c:>8.2f}{c / t:>9.2f}{res.n_mfn:>5}{res.n_cg_iter:>6}"
                  f"{res.objective:>16.10g}  labels differing from the "
                  f"default's: {diff}  {t / t_ll:.2f} {c / c_ll:.2f}  {load()}",
                  flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", nargs="+", choices=("linear", "ssl"),
                    default=["linear", "ssl"])
    ap.add_argument("--scale", type=int, nargs=3, metavar=("N", "D", "NNZ"),
                    default=[1000000, 100000, 40])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--scale-liblinear", action="store_true")
    ap.add_argument("--repeat", type=int, default=1,
                    help="LinearSVM fits per thread count (best wall time)")
    ap.add_argument("--rows", type=int, nargs="+", default=[200000])
    ap.add_argument("--d", type=int, default=50000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--two-pass", action="store_true")
    ap.add_argument("--reference-stops", action="store_true")
    ap.add_argument("--d-factor", type=int, default=None)
    ap.add_argument("--quick", action="store_true",
                    help="small sizes (a check that the script runs)")
    a = ap.parse_args()
    if a.quick:
        a.scale, a.rows, a.d = [30000, 20000, 40], [20000], 20000
    if a.d_factor is not None:
        from semisvm._core import _cgls
        old = _cgls._set_blocking(1, 1)
        _cgls._set_blocking(old[0], old[1], a.d_factor)
    env = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    print(f"# {os.cpu_count()} CPUs; environment {env}; load average "
          f"{os.getloadavg()}; d_factor {a.d_factor or 'default'}; "
          f"reuse outputs {LocalRows.reuse_outputs}")
    t0 = time.perf_counter()
    if "linear" in a.parts:
        scale_table(*a.scale, a.threads, a.scale_liblinear, a.repeat)
    if "ssl" in a.parts:
        for n in a.rows:
            ssl_table(n, a.d, a.jobs, a.two_pass, a.reference_stops)
    print(f"\n# total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
