"""Scale of LapSVM (PCG, early stopped): time and peak memory.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/lapsvm_scale.py \
        [--mnist] [--synthetic 20000]

- ``--mnist``: multi-class (10 one-vs-rest problems in lockstep) on all of
  ../shared/data/mnist_t10k (10,000 points, float32, pixels / 255),
  10 labels per class, default LapSVM parameters.
- ``--synthetic N``: a seeded binary problem of N points (two overlapping
  10-dimensional Gaussians, centres -0.8 and +0.8 in every coordinate),
  2 labels per class, float32.

Prints kernel / graph / solver times, iterations, error on the unlabeled
points and the peak resident memory next to the size of the Gram matrix.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

from semisvm import LapSVM
from semisvm.graph import graph_laplacian
from semisvm.kernels import kernel_matrix
from semisvm.solvers import _lapsvm_multi

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _run(name, X, y, n_lab_per_class, seed=0):
    rng = np.random.RandomState(seed)
    classes = np.unique(y)
    yl = np.full_like(y, -1)
    for c in classes:
        yl[rng.choice(np.flatnonzero(y == c), n_lab_per_class, replace=False)] = c
    n = X.shape[0]
    base = _peak_mb()
    t0 = time.perf_counter()
    K = kernel_matrix(X)
    t1 = time.perf_counter()
    L = graph_laplacian(X, n_neighbors=10)
    t2 = time.perf_counter()
    probs = [classes[1]] if classes.size == 2 else list(classes)
    ys = [np.where(yl == -1, 0.0, np.where(yl == c, 1.0, -1.0)) for c in probs]
    est = LapSVM()
    res = _lapsvm_multi(K, L, ys, gamma_A=est.gamma_A, gamma_I=est.gamma_I,
                        loss="squared_hinge", solver="pcg", fit_intercept=True,
                        stop="stability", tol=None, max_iter=None, check_every=None,
                        eta=0.015)
    t3 = time.perf_counter()
    F = np.column_stack([r.outputs for r in res])
    pred = classes[(F[:, 0] > 0).astype(int)] if F.shape[1] == 1 else \
        classes[F.argmax(1)]
    unl = yl == -1
    err = 100 * np.mean(pred[unl] != y[unl])
    gram_mb = K.nbytes / 2**20
    print(f"{name}: n={n}, d={X.shape[1]}, classes={classes.size}, dtype={K.dtype}")
    print(f"  kernel {t1 - t0:.2f} s, graph {t2 - t1:.2f} s, PCG {t3 - t2:.2f} s "
          f"(iterations per problem {[r.n_iter for r in res]}), "
          f"total {t3 - t0:.2f} s")
    print(f"  error on unlabeled {err:.2f}%")
    print(f"  peak RSS {_peak_mb():.0f} MB (before: {base:.0f} MB); Gram matrix "
          f"{gram_mb:.0f} MB; O(n) work vectors {12 * len(res) * n * 4 / 2**20:.1f} MB")
    if n <= 10000:
        # one fit through the estimator too (kernel + graph + solve)
        t = time.perf_counter()
        LapSVM().fit(X, yl)
        print(f"  LapSVM().fit end to end: {time.perf_counter() - t:.2f} s")


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
