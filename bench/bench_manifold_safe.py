"""The cost of ``safe=True`` against a plain LapSVM / LapRLS fit, side by side.

Target: ``safe=True`` (the safety net: 5 labeled-row folds x 2 repeats, the
semi-supervised model and its supervised counterpart refitted on each)
costs at most 3x a plain fit with the defaults (``safe="auto"``). The
problem is the scale benchmark's (bench_manifold_scale.py):
``make_classification(n, 50, n_informative=20, n_classes=10,
n_clusters_per_class=1, class_sep=2.0, random_state=0)`` as float32, 10
labels per class by ``numpy.random.default_rng(0)``; ``--small`` adds the
5,000-row shapes of bench_manifold_reuse.py (10-60 features, 2-10 classes).

For each n and estimator, in one process, one after the other: a warm-up
fit (not timed: imports, first BLAS calls), the default fit, a
``safe=False`` fit and the ``safe=True`` fit, each timed in wall and CPU
seconds; ratios are CPU / CPU (the machine is shared: CPU seconds are the
steadier figure), ``safe/auto`` the target's. The load average is printed
with each row.

Run::

    nice -n 10 python bench/bench_manifold_safe.py --sizes 5000 100000 [--small]

Results: bench/RESULTS.md ("safe=True against a plain fit").
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def _problems(sizes, small):
    sys.path.insert(0, str(HERE))
    from bench_manifold_reuse import problem
    from bench_manifold_scale import labels, make_dense
    for n in sizes:
        X, yt = make_dense(n)
        yield f"{n} x 50, 10 cls", X, labels(yt), yt
    if small:
        for d, k in ((10, 2), (30, 5), (60, 10)):
            X, y, yt = problem(5000, d, k)
            yield f"5000 x {d}, {k} cls", X, y, yt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[5000, 100_000])
    ap.add_argument("--small", action="store_true",
                    help="also the 5,000-row shapes of bench_manifold_reuse.py")
    ap.add_argument("--estimators", nargs="*", default=["LapSVM", "LapRLS"])
    args = ap.parse_args()
    import semisvm
    warnings.simplefilter("ignore")
    print(f"# load average {os.getloadavg()}", flush=True)
    print(f"{'estimator':9s} {'problem':>20s} {'auto cpu':>8s} {'False cpu':>9s} "
          f"{'True cpu':>8s} {'True wall':>9s} {'safe/auto':>9s} {'safe/False':>10s} "
          f"{'gain':>7s} {'fell':>5s} {'err %':>6s} {'load':>5s}", flush=True)
    for name, X, y, yt in _problems(args.sizes, args.small):
        unl = y == -1
        for est_name in args.estimators:
            Est = getattr(semisvm, est_name)
            Est().fit(X[: min(X.shape[0], 6000)], y[: min(X.shape[0], 6000)])
            _, _, ca = _timed(lambda: Est().fit(X, y))
            _, _, cf = _timed(lambda: Est(safe=False).fit(X, y))
            est, wt, ct = _timed(lambda: Est(safe=True).fit(X, y))
            err = 100 * float(np.mean(est.transduction_[unl] != yt[unl]))
            gain = est.unlabeled_gain_
            print(f"{est_name:9s} {name:>20s} {ca:8.2f} {cf:9.2f} {ct:8.2f} "
                  f"{wt:9.2f} {ct / ca:9.2f} {ct / cf:10.2f} "
                  f"{float('nan') if gain is None else gain:7.3f} "
                  f"{str(est.fell_back_):>5s} {err:6.2f} {os.getloadavg()[0]:5.1f}",
                  flush=True)
    print(f"# load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
