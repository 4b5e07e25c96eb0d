"""LapSVM / LapRLS fit times with the defaults, the safety check, the first fit.

The targets measured (no peer: absolute seconds on this machine, with the
CPU seconds beside the wall seconds and the load average):

* ``fit``: one fit with the defaults on ``make_classification`` rows
  (5,000 x 10-60 features, 2-10 classes, 10 labels per class), target
  <= 1 s;
* ``safe/plain``: ``safe=True`` against a plain fit, target <= 3x;
* ``first - repeat``: at 50,000 rows, the first fit in a fresh process
  (imports excluded, any compilation included) minus a repeat fit in the
  same process, target <= 2 s;
* ``100k``: ``LapSVM().fit`` on 100,000 x 50 rows (refused before by the
  memory check of the n x n path it did not take).

Run::

    nice -n 10 python bench/bench_manifold_reuse.py [--quick] [--no-safe] [--no-large]

Results: bench/RESULTS.md ("LapSVM / LapRLS reachable paths and reuse").
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

_FIRST = r"""
import sys, time
import numpy as np
sys.path.insert(0, {here!r})
from bench_manifold_reuse import problem
X, y, yt = problem({n}, 50, 10)
from semisvm import {est}
t0 = time.perf_counter(); c0 = time.process_time()
{est}().fit(X, y)
t1 = time.perf_counter(); c1 = time.process_time()
{est}().fit(X, y)
t2 = time.perf_counter(); c2 = time.process_time()
print(t1 - t0, c1 - c0, t2 - t1, c2 - c1)
"""


def problem(n, d, n_classes, labels_per_class=10, seed=0):
    from sklearn.datasets import make_classification
    X, yt = make_classification(n, d, n_informative=min(d, 20), n_redundant=0,
                                n_classes=n_classes, n_clusters_per_class=1,
                                class_sep=2.0, random_state=seed)
    y = np.full(n, -1)
    rng = np.random.default_rng(seed)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), labels_per_class, replace=False)] = c
    return X, y, yt


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one 5k problem only")
    ap.add_argument("--no-safe", action="store_true")
    ap.add_argument("--safe-first-only", action="store_true",
                    help="the safety check on the first problem only")
    ap.add_argument("--no-large", action="store_true")
    args = ap.parse_args()
    import warnings

    from semisvm import LapRLS, LapSVM
    warnings.simplefilter("ignore")
    print(f"# load average {os.getloadavg()}")
    shapes = [(10, 2), (30, 5), (60, 10)]
    if args.quick:
        shapes = shapes[1:2]
    print(f"{'estimator':9s} {'n x d':>11s} {'cls':>3s} {'mode':>8s} {'wall':>6s} "
          f"{'cpu':>6s} {'err':>6s} {'safe wall':>9s} {'safe cpu':>8s} "
          f"{'ratio(cpu)':>10s}", flush=True)
    for d, k in shapes:
        X, y, yt = problem(5000, d, k)
        for Est in (LapSVM, LapRLS):
            est, w, c = timed(lambda: Est().fit(X, y))
            err = float(np.mean(est.transduction_ != yt))
            sw = sc = float("nan")
            if not args.no_safe and not (args.safe_first_only and d != shapes[0][0]):
                _, sw, sc = timed(lambda: Est(safe=True).fit(X, y))
            print(f"{Est.__name__:9s} {'5000 x %d' % d:>11s} {k:3d} {est.mode_:>8s} "
                  f"{w:6.2f} {c:6.2f} {err:6.3f} {sw:9.2f} {sc:8.2f} "
                  f"{sc / c:10.2f}", flush=True)
    if not args.no_large:
        here = os.path.dirname(os.path.abspath(__file__))
        for est in ("LapSVM", "LapRLS"):
            out = subprocess.run(
                [sys.executable, "-c", _FIRST.format(here=here, n=50_000, est=est)],
                capture_output=True, text=True, check=True, cwd="/")
            f, fc, r, rc = map(float, out.stdout.split())
            print(f"{est} 50k x 50 first fit {f:.2f} s ({fc:.2f} cpu), repeat "
                  f"{r:.2f} s ({rc:.2f} cpu): first - repeat {f - r:.2f} s", flush=True)
        X, y, yt = problem(100_000, 50, 10)
        est, w, c = timed(lambda: LapSVM().fit(X, y))
        print(f"LapSVM().fit 100k x 50, 10 classes: {est.mode_} "
              f"m={est.n_components_}, {w:.1f} s wall, {c:.1f} s cpu, error "
              f"{np.mean(est.transduction_ != yt):.3f}", flush=True)
    print(f"# load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
