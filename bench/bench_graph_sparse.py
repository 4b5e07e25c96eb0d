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

    import semisvm.graph as g
    from semisvm import LapSVM
    from semisvm.graph import KNNGraph, knn_search
    warnings.simplefilter("ignore")
    print(f"# load average {os.getloadavg()}; top terms {g.SPARSE_TOP_TERMS}, "
          f"posting cap {g.SPARSE_POSTING_CAP}, {g.SPARSE_CANDIDATES} x (k + 1) "
          f"candidates; k = {args.k}; n_jobs = {args.n_jobs}", flush=True)
    for n in args.sizes:
        X, y = make_text_like(n, args.d, args.nnz, seed=0)
        X = X.astype(np.float32)
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
        print(line, flush=True)
        if args.fit:
            yl = _labels(y)
            unl = yl == -1
            errs = {}
            for name in (["approx"] if args.no_exact else ["exact", "approx"]):
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
