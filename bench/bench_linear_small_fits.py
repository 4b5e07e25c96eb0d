#!/usr/bin/env python
"""Small fits against LIBLINEAR: pcmac and adult_a9a, paired in one process.

A fit of a few milliseconds is dominated by fixed costs, and on a shared
machine its time moves with the load from one second to the next; so each
LinearSVM fit (``--lam``, default 0.5: LIBLINEAR ``-s 2 -c 1 -B 1``'s
objective times lam; one thread) is followed at once by LIBLINEAR's
``train()`` on the same rows, and the figure is the median over the pairs
of the ratio of the two CPU times (best times beside it). The training part
of ``../shared/data/<name>.npz`` (read in place), or with ``--whole`` all
its rows (``--whole --lam 1``: the small-fit figures of the RESULTS before
this script, LinearSVM's default lam against ``-c 1``). LIBLINEAR from
``pip install liblinear-official``.

``--fresh-normal`` adds a third fit per round: LinearSVM with the Cholesky
steps' normal matrix built from all active rows at every Newton step (the
former arithmetic; ``semisvm._rows.LocalRows.keep_normal = False``) instead
of kept from step to step and brought up to date for the rows that changed.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_linear_small_fits.py --pairs 40 [--fresh-normal]
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_linear_mfn import SHARED_DATA, load_shared  # noqa: E402

from semisvm import LinearSVM  # noqa: E402
from semisvm._rows import LocalRows  # noqa: E402


def whole_rows(name):
    """Rows of the file's training matrix ``X``."""
    with np.load(SHARED_DATA / f"{name}.npz") as z:
        if "X_shape" in z.files:
            return int(z["X_shape"][0])
        return int(z["X"].shape[0])


def cpu(fn):
    c = time.process_time()
    out = fn()
    return out, time.process_time() - c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["pcmac", "adult_a9a"])
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--fresh-normal", action="store_true")
    ap.add_argument("--lam", type=float, default=0.5)
    ap.add_argument("--whole", action="store_true",
                    help="all rows of the file, not its training part")
    a = ap.parse_args()
    try:
        from liblinear import liblinearutil
    except ImportError:
        sys.exit("LIBLINEAR absent (pip install liblinear-official)")
    param = liblinearutil.parameter("-s 2 -c 1 -B 1 -q")
    for name in a.datasets:
        out = load_shared(name)
        if out is None:
            print(f"{name}: not found under ../shared/data")
            continue
        X, y = out[0], out[1]
        if a.whole and X.shape[0] + out[2].shape[0] == whole_rows(name):
            # a file without a test part: load_shared split its rows 75/25
            X, y = sp.vstack([X, out[2]]).tocsr(), np.r_[y, out[3]]
        prob = liblinearutil.problem(y, X, bias=1)
        keys = ("kept", "fresh") if a.fresh_normal else ("kept",)
        pairs = {k: [] for k in keys}
        obj = {}
        for i in range(a.pairs):
            # each LinearSVM fit followed by a LIBLINEAR fit (its pair); with
            # --fresh-normal the two LinearSVM kinds take turns going first
            for key in (keys if i % 2 == 0 else keys[::-1]):
                LocalRows.keep_normal = key == "kept"
                try:
                    clf, c = cpu(lambda: LinearSVM(lam=a.lam, n_jobs=1).fit(X, y))
                finally:
                    LocalRows.keep_normal = True
                obj[key] = clf.result_.objective
                _, c_ll = cpu(lambda: liblinearutil.train(prob, param))
                pairs[key].append((c, c_ll))
        ll = np.array([p[1] for k in keys for p in pairs[k]])
        line = (f"{name} ({X.shape[0]} x {X.shape[1]}, lam {a.lam:g}, {a.pairs} pairs): "
                f"LIBLINEAR best {1e3 * ll.min():.2f} ms")
        for key in keys:
            t = np.array(pairs[key])
            line += (f" | LinearSVM{' (fresh normal matrix)' if key == 'fresh' else ''}"
                     f" best {1e3 * t[:, 0].min():.2f} ms, median ratio "
                     f"{np.median(t[:, 0] / t[:, 1]):.2f}x")
        if len(obj) == 2:
            line += f" | objectives kept/fresh {obj['kept'] / obj['fresh'] - 1:+.1e}"
        print(line + f"  load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
