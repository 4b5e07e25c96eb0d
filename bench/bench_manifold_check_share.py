"""LapRLS / LapSVM on the exact path (up to ``LOWRANK_MIN_SAMPLES`` rows): the
default check's cost, with and without sharing the fit's work with the
check's two label folds.

The default ``safe="auto"`` check re-solves the problem on two label folds
(the same K and L, half of the labels hidden). The Newton / closed-form
solver (LapRLS's default) computed ``L^p K`` (a sparse-dense n x n product)
and a new (n+1) x (n+1) LU for each of the three solves; now the fit
computes the setup once and the folds solve through the fit's LU by the
Woodbury identity (rank = the hidden labels). Three variants, one process,
in alternating order (A B C A B C ...), after one untimed warm-up fit:

* ``old``: every solve its own setup and LU (the solver's ``shared`` dict
  dropped: the path before the sharing);
* ``setup``: the setup shared, every fold its own LU (Woodbury disabled:
  ``WOODBURY_MAX_FRACTION = 0``; the same bits as ``old``);
* ``new``: the default (setup and LU shared).

CPU seconds (``time.process_time``, BLAS threads included) of the fit, the
``safe=False`` fit beside, the ratios to ``old``, and whether
``fell_back_`` and ``transduction_`` are those of ``old``. Problems:
``bench_graph_tv_scale._problem(n, 20, 2, 10)`` and ``(n, 10, 10, 10)``
(make_classification, 10 labels per class).

    nice python bench/bench_manifold_check_share.py --n 2000 3000 4000
    nice python bench/bench_manifold_check_share.py --models TVRLS --n 3000 --shapes 20,2
    nice python bench/bench_manifold_check_share.py --part threshold --n 2000 3000 4000

``--part threshold``: the exact path's default fit beside the two-stage
Nystroem path that ``n_components="auto"`` takes above the threshold
(``n_components=1000, lowrank_fit="graph"``), at sizes below it: CPU s
and transductive error (for the ``LOWRANK_MIN_SAMPLES`` question; no
default is changed here).
"""
import argparse
import hashlib
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_graph_tv_scale import _problem  # noqa: E402


def _old_multi(*args, shared=None, **kw):
    import semisvm._manifold_solvers as ms
    return ms.lapsvm_multi(*args, **kw)


def _fit(Est, params, X, y, variant):
    import semisvm._manifold_solvers as ms
    import semisvm.manifold as man
    saved = man._lapsvm_multi, ms.WOODBURY_MAX_FRACTION
    try:
        if variant == "old":
            man._lapsvm_multi = _old_multi
        elif variant == "setup":
            ms.WOODBURY_MAX_FRACTION = 0.0
        est = Est(**params)
        c0 = time.process_time()
        est.fit(X, y)
        return est, time.process_time() - c0
    finally:
        man._lapsvm_multi, ms.WOODBURY_MAX_FRACTION = saved


def _digest(a):
    return hashlib.sha1(np.ascontiguousarray(a)).hexdigest()[:8]


def part_check(models, sizes, shapes, repeats):
    import semisvm
    variants = ("old", "setup", "new")
    print(f"{'model':8s} {'problem':>16s} {'safe=False':>10s} "
          + " ".join(f"{v:>7s}" for v in variants)
          + "  setup/old new/old  same fb/labels  err%  load")
    for name in models:
        Est = getattr(semisvm, name)
        for d, c in shapes:
            if name.startswith("TV") and c != 2:
                continue
            for n in sizes:
                X, y, yt = _problem(n, d, c, 10)
                unl = y == -1
                t = {v: [] for v in variants + ("off",)}
                res = {}
                for _ in range(repeats):
                    for v in variants:
                        est, s = _fit(Est, {}, X, y, v)
                        t[v].append(s)
                        res[v] = est
                    t["off"].append(_fit(Est, {"safe": False}, X, y, "new")[1])
                m = {v: float(np.median(t[v])) for v in t}
                same = all(res[v].fell_back_ == res["old"].fell_back_ and np.array_equal(
                    res[v].transduction_, res["old"].transduction_)
                    for v in variants)
                err = 100 * float(np.mean(res["new"].transduction_[unl] != yt[unl]))
                print(f"{name:8s} {f'{n}x{d} c={c}':>16s} {m['off']:10.2f} "
                      + " ".join(f"{m[v]:7.2f}" for v in variants)
                      + f"  {m['setup'] / m['old']:9.2f} {m['new'] / m['old']:7.2f}"
                      + f"  {str(same):>14s} {err:5.2f}  {os.getloadavg()[0]:.1f}",
                      flush=True)


def part_threshold(models, sizes, shapes):
    import semisvm
    print(f"{'model':8s} {'problem':>16s} {'exact cpu':>9s} {'err%':>5s} "
          f"{'nystroem cpu':>12s} {'err%':>5s}  ratio  load")
    for name in models:
        Est = getattr(semisvm, name)
        for d, c in shapes:
            for n in sizes:
                X, y, yt = _problem(n, d, c, 10)
                unl = y == -1
                row = []
                for params in ({}, {"n_components": 1000, "lowrank_fit": "graph"}):
                    est, s = _fit(Est, params, X, y, "new")
                    row += [s, 100 * float(np.mean(est.transduction_[unl] != yt[unl]))]
                print(f"{name:8s} {f'{n}x{d} c={c}':>16s} {row[0]:9.2f} {row[1]:5.2f} "
                      f"{row[2]:12.2f} {row[3]:5.2f}  {row[2] / row[0]:5.2f}  "
                      f"{os.getloadavg()[0]:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("check", "threshold"), default="check")
    ap.add_argument("--models", nargs="+", default=["LapRLS", "LapSVM"])
    ap.add_argument("--n", nargs="+", type=int, default=[2000, 3000, 4000])
    ap.add_argument("--shapes", nargs="+", default=["20,2", "10,10"],
                    help="d,classes of the problems")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes]
    import semisvm
    warnings.simplefilter("ignore")
    X, y, _ = _problem(500, 20, 2, 10)
    for name in args.models:
        getattr(semisvm, name)().fit(X, y)       # warm-up, untimed
    if args.part == "check":
        part_check(args.models, args.n, shapes, args.repeats)
    else:
        part_threshold(args.models, args.n, shapes)


if __name__ == "__main__":
    main()
