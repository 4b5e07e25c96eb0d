"""Scale of LapSVM (PCG, early stopped): time and peak memory.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_manifold_scale.py \
        [--mnist] [--synthetic 20000]

- ``--mnist``: multi-class (10 one-vs-rest problems in lockstep) on all of
  ../shared/data/mnist_t10k (10,000 points, float32, pixels / 255),
  10 labels per class, default LapSVM parameters.
- ``--synthetic N``: a seeded binary problem of N points (two overlapping
  10-dimensional Gaussians, centres -0.8 and +0.8 in every coordinate),
  2 labels per class, float32.

Times ``LapSVM().fit`` end to end (wall and CPU: the machine is shared),
split into kernel + kNN graph (one pass: the kNN lists come from the Gram
matrix's inner products) and the PCG solve (one pass over K per iteration,
shared by the one-vs-rest problems), with the error on the unlabeled points
and the peak resident memory next to the size of the Gram matrix.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

import semisvm.manifold as manifold
import semisvm.solvers as solvers
from semisvm import LapSVM

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _timed(obj, name, store):
    """Wrap obj.name to record (wall, cpu) seconds of its calls in store."""
    f = getattr(obj, name)

    def g(*a, **k):
        t, c = time.perf_counter(), time.process_time()
        r = f(*a, **k)
        store[name] = (time.perf_counter() - t, time.process_time() - c)
        return r

    setattr(obj, name, g)
    return f


def _run(name, X, y, n_lab_per_class, seed=0):
    rng = np.random.RandomState(seed)
    classes = np.unique(y)
    yl = np.full_like(y, -1)
    for c in classes:
        yl[rng.choice(np.flatnonzero(y == c), n_lab_per_class, replace=False)] = c
    n = X.shape[0]
    base = _peak_mb()
    parts = {}
    orig = (_timed(manifold._LaplacianBase, "_kernel_and_laplacian", parts),
            _timed(solvers, "_lapsvm_multi", parts))
    try:
        t, c = time.perf_counter(), time.process_time()
        clf = LapSVM().fit(X, yl)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        manifold._LaplacianBase._kernel_and_laplacian = orig[0]
        solvers._lapsvm_multi = orig[1]
    res = clf.result_ if isinstance(clf.result_, list) else [clf.result_]
    unl = yl == -1
    err = 100 * np.mean(clf.transduction_[unl] != y[unl])
    gram_mb = n * n * X.dtype.itemsize / 2**20
    kg, sv = parts["_kernel_and_laplacian"], parts["_lapsvm_multi"]
    print(f"{name}: n={n}, d={X.shape[1]}, classes={classes.size}, dtype={X.dtype}, "
          f"p_={clf.p_} (intrinsic dim {clf.intrinsic_dim_:.1f})")
    print(f"  LapSVM().fit: {wall:.2f} s wall, {cpu:.2f} s CPU; kernel + kNN graph "
          f"{kg[0]:.2f} s ({kg[1]:.2f} CPU), PCG {sv[0]:.2f} s ({sv[1]:.2f} CPU), "
          f"iterations per problem {[r.n_iter for r in res]}")
    print(f"  error on unlabeled {err:.2f}%")
    print(f"  peak RSS {_peak_mb():.0f} MB (before: {base:.0f} MB); Gram matrix "
          f"{gram_mb:.0f} MB; O(n) work vectors {12 * len(res) * n * 4 / 2**20:.1f} MB")
    print(f"  load: {os.getloadavg()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist", action="store_true")
    ap.add_argument("--synthetic", type=int, default=0)
    args = ap.parse_args()
    if args.mnist:
        if not (DATA_DIR / "mnist_t10k.npz").exists():
            print("skipped mnist_t10k: ../shared/data is absent")
        else:
            sys.path.insert(0, str(DATA_DIR))
            from load import load

            d = load("mnist_t10k")
            _run("mnist_t10k", (d["X"] / 255.0).astype(np.float32), d["y"], 10)
    if args.synthetic:
        n = args.synthetic
        rng = np.random.RandomState(0)
        y = np.repeat([0, 1], n // 2)
        X = (rng.randn(y.size, 10) + 0.8 * (2 * y - 1)[:, None]).astype(np.float32)
        _run(f"synthetic{n}", X, y, 2)


if __name__ == "__main__":
    main()
