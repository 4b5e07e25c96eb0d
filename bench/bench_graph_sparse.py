"""The kNN graph of sparse (text-like) rows: exact against the sketched HNSW search.

For CSR rows at scale :func:`semisvm.graph.knn_search` searches the HNSW
index over a dense random-projection sketch of the rows (``SKETCH_DIM``
dimensions) and re-ranks ``SKETCH_CANDIDATES * (k + 1)`` candidates per row
by their exact sparse distances. This prints, side by side in one run on
bench/_text_like.py's rows (tf-idf, L2-normalised, about 50 tokens a row
out of 50,000 columns, a planted linear label):

* the exact search (scikit-learn's brute force on the CSR rows) and the
  sketched search, wall and CPU seconds, and the recall of the sketch
  (the fraction of the exact k = 10 lists found), for each ``--sizes`` n
  (``--no-exact`` above the sizes where the exact search is affordable);
* ``--fit``: the linear LapSVM (``kernel="linear"``, defaults, 1 % of the
  rows labeled) on the exact graph and on the sketched one (``graph=``):
  error on the unlabeled rows, and the whole fit's time with the sketch.

Run::

    nice -n 10 python bench/bench_graph_sparse.py --sizes 20000 50000 --fit
    nice -n 10 python bench/bench_graph_sparse.py --sizes 200000 --no-exact --fit

Results: bench/RESULTS.md ("Sparse rows: the sketched HNSW graph").
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[20000])
    ap.add_argument("--d", type=int, default=50_000)
    ap.add_argument("--nnz", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--no-exact", action="store_true")
    ap.add_argument("--fit", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from _text_like import make_text_like

    from semisvm import LapSVM
    from semisvm.graph import SKETCH_CANDIDATES, SKETCH_DIM, KNNGraph, knn_search
    warnings.simplefilter("ignore")
    print(f"# load average {os.getloadavg()}; sketch {SKETCH_DIM} dims, "
          f"{SKETCH_CANDIDATES} x (k + 1) candidates; k = {args.k}; "
          f"n_jobs = {args.n_jobs}", flush=True)
    for n in args.sizes:
        X, y = make_text_like(n, args.d, args.nnz, seed=0)
        X = X.astype(np.float32)
        (da, ia), wa, ca = _timed(lambda: knn_search(
            X, args.k, method="approximate", n_jobs=args.n_jobs))
        line = (f"n={n:>8d} sketch {wa:7.2f} s wall {ca:7.2f} s cpu "
                f"load {os.getloadavg()[0]:4.1f}")
        if not args.no_exact:
            (de, ie), we, ce = _timed(lambda: knn_search(
                X, args.k, method="exact", n_jobs=args.n_jobs))
            rec = np.mean([np.intersect1d(ia[i], ie[i]).size for i in range(n)]) / args.k
            line += f" | exact {we:7.2f} s wall {ce:7.2f} s cpu | recall@{args.k} {rec:.3f}"
        print(line, flush=True)
        if args.fit:
            yl = _labels(y)
            unl = yl == -1
            errs = {}
            for name in (["sketch"] if args.no_exact else ["exact", "sketch"]):
                method = "exact" if name == "exact" else "approximate"
                g = KNNGraph(args.k, method=method, n_jobs=args.n_jobs)
                est, w, c = _timed(lambda: LapSVM(kernel="linear", graph=g,
                                                  n_jobs=args.n_jobs).fit(X, yl))
                errs[name] = 100 * float(np.mean(est.transduction_[unl] != y[unl]))
                print(f"    LapSVM(kernel='linear') on the {name} graph: fit "
                      f"(graph included) {w:7.2f} s wall {c:7.2f} s cpu, error "
                      f"{errs[name]:.2f} %, peak RSS "
                      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
                      f"load {os.getloadavg()[0]:4.1f}", flush=True)
    print(f"# load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
