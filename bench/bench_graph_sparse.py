"""The kNN graph of sparse (text-like) rows: the exact and the approximate search.

For CSR rows from ``SPARSE_ANN_MIN_SAMPLES`` on, :func:`semisvm.graph.knn_search`
takes its candidates from each row's ``SPARSE_TOP_TERMS`` largest terms'
posting lists (each cut to ``SPARSE_POSTING_CAP`` entries), scores them by
the partial inner product and re-ranks the best ``SPARSE_CANDIDATES * (k +
1)`` by their exact sparse distances. This prints, side by side in one run on
bench/_text_like.py's rows (tf-idf, L2-normalised, about 50 tokens a row
out of 50,000 columns, a planted linear label):

* the exact search (scikit-learn's brute force on the CSR rows) and the
  approximate search, wall and CPU seconds, and the recall of the latter
  (the fraction of the exact k = 10 lists found) and how much farther its
  k-th neighbour is on average, for each ``--sizes`` n
  (``--no-exact`` above the sizes where the exact search is affordable);
* ``--fit``: the linear LapSVM (``kernel="linear"``, defaults, 1 % of the
  rows labeled) on the exact graph and on the approximate one (``graph=``):
  error on the unlabeled rows, and the whole fit's time (graph included).

Run::

    nice -n 10 python bench/bench_graph_sparse.py --sizes 20000 50000 --fit
    nice -n 10 python bench/bench_graph_sparse.py --sizes 200000 --no-exact --fit
    nice -n 10 /usr/bin/time -v python bench/bench_graph_sparse.py --sizes 1000000 --fit-only

``--fit`` also prints the fit's time split: the graph (kNN search and
Laplacian), the solve, and the default check (two label-fold solves and the
supervised counterparts, :mod:`semisvm._fallback`).

Results: bench/RESULTS.md ("Sparse rows: the kNN graph at scale").
"""
from __future__ import annotations

import argparse
import os
import resource
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


def _labels(y, frac=0.01, seed=0):
    rng = np.random.default_rng(seed)
    yl = np.full_like(y, -1)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        yl[rng.choice(idx, max(2, int(frac * idx.size)), replace=False)] = c
    return yl


def _split_timers():
    """Wall / CPU seconds of the fit's graph (the kNN search and the
    Laplacian: ``_graph``) and of the default check (``auto_fallback``,
    its two label-fold solves and the counterparts); the rest is the solve."""
    import semisvm.manifold as manifold
    acc = {}

    def timed(key, fn):
        def run(*a, **kw):
            out, w, c = _timed(lambda: fn(*a, **kw))
            pw, pc = acc.get(key, (0.0, 0.0))
            acc[key] = (pw + w, pc + c)
            return out
        return run

    cls = manifold.LapSVM
    cls._graph = timed("graph", cls._graph)
    manifold.auto_fallback = timed("check", manifold.auto_fallback)
    return acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[20000])
    ap.add_argument("--d", type=int, default=50_000)
    ap.add_argument("--nnz", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--fit-only", action="store_true",
                    help="no standalone search line (the fit, approximate graph, "
                         "alone: an end-to-end run)")
    ap.add_argument("--scalable-min-labeled", type=int, default=None,
                    help="override semisvm._fallback.SCALABLE_MIN_LABELED (the "
                         "labeled rows above which the check's counterparts "
                         "are liblinear / drawn rows)")
    args = ap.parse_args()
    if args.scalable_min_labeled is not None:
        import semisvm._fallback as fb
        fb.SCALABLE_MIN_LABELED = args.scalable_min_labeled
    if args.fit_only:
        args.fit, args.no_exact = True, True
    sys.path.insert(0, str(HERE))
    from _text_like import make_text_like

    import semisvm.graph as g
    from semisvm import LapSVM
    from semisvm.graph import KNNGraph, knn_search
    warnings.simplefilter("ignore")
    print(f"# load average {os.getloadavg()}; top terms {g.SPARSE_TOP_TERMS}, "
          f"posting cap {g.SPARSE_POSTING_CAP}, {g.SPARSE_CANDIDATES} x (k + 1) "
          f"candidates; k = {args.k}; n_jobs = {args.n_jobs}", flush=True)
    split = _split_timers()
    for n in args.sizes:
        (X, y), wd, cd = _timed(lambda: make_text_like(n, args.d, args.nnz, seed=0))
        X = X.astype(np.float32)
        print(f"n={n:>8d} data {wd:7.2f} s wall {cd:7.2f} s cpu ({X.nnz} nonzeros)",
              flush=True)
        if args.fit_only:
            line = None
        else:
            (da, ia), wa, ca = _timed(lambda: knn_search(
                X, args.k, method="approximate", n_jobs=args.n_jobs))
            line = (f"n={n:>8d} approx {wa:7.2f} s wall {ca:7.2f} s cpu "
                    f"load {os.getloadavg()[0]:4.1f}")
        if not args.no_exact:
            (de, ie), we, ce = _timed(lambda: knn_search(
                X, args.k, method="exact", n_jobs=args.n_jobs))
            rec = np.mean([np.intersect1d(ia[i], ie[i]).size for i in range(n)]) / args.k
            far = float(np.mean(da[:, -1]) / np.mean(de[:, -1])) - 1
            line += (f" | exact {we:7.2f} s wall {ce:7.2f} s cpu | recall@{args.k} "
                     f"{rec:.3f}, k-th neighbour {100 * far:.2f} % farther")
        if line is not None:
            print(line, flush=True)
        if args.fit:
            yl = _labels(y)
            unl = yl == -1
            errs = {}
            for name in (["approx"] if args.no_exact else ["exact", "approx"]):
                method = "exact" if name == "exact" else "approximate"
                g = KNNGraph(args.k, method=method, n_jobs=args.n_jobs)
                split.clear()
                est, w, c = _timed(lambda: LapSVM(kernel="linear", graph=g,
                                                  n_jobs=args.n_jobs).fit(X, yl))
                gw, gc = split.get("graph", (0.0, 0.0))
                kw, kc = split.get("check", (0.0, 0.0))
                print(f"    split (wall / cpu s): graph {gw:.2f} / {gc:.2f}, solve "
                      f"{w - gw - kw:.2f} / {c - gc - kc:.2f}, check {kw:.2f} / "
                      f"{kc:.2f} ({int(np.sum(yl != -1))} labeled rows; "
                      f"{est.safe_check_}, counterpart {est.safe_counterpart_}, "
                      f"fell back {est.fell_back_})", flush=True)
                errs[name] = 100 * float(np.mean(est.transduction_[unl] != y[unl]))
                print(f"    LapSVM(kernel='linear') on the {name} graph: fit "
                      f"(graph included) {w:7.2f} s wall {c:7.2f} s cpu, error "
                      f"{errs[name]:.2f} %, peak RSS "
                      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
                      f"load {os.getloadavg()[0]:4.1f}", flush=True)
    print(f"# load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
