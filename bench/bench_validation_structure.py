#!/usr/bin/env python
"""Cost of the hostile-input checks against a LinearSVM fit.

``as_csr32`` (CSR structure: ``indptr`` monotone and consistent, one
``max`` over the indices viewed as unsigned; value scale: ``max``/``min`` over
the data) and ``check_X`` are timed on a seeded sparse text-like matrix and on
a dense one, next to ``LinearSVM().fit`` on the same data. CPU seconds
(``time.process_time``), best of ``--repeat``, one thread; the load average is
printed beside the figures.

Usage (from the repository root)::

    python bench/bench_validation_structure.py                # 200,000 x 50,000
    python bench/bench_validation_structure.py --n 50000 --d 20000
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from semisvm import LinearSVM  # noqa: E402
from semisvm._validation import (  # noqa: E402
    as_csr32,
    check_scale,
    check_sparse_structure,
    check_X,
)


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        f()
        times.append(time.process_time() - t0)
    return min(times)


def text_like(n, d, nnz, seed=0):
    rng = np.random.default_rng(seed)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int32)
    indices = np.sort(rng.zipf(1.3, size=(n, nnz)) % d, axis=1).astype(np.int32)
    data = rng.random(n * nnz)
    X = sp.csr_matrix((data, indices.ravel(), indptr), shape=(n, d))
    X.sum_duplicates()
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.1 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=50_000)
    ap.add_argument("--nnz", type=int, default=50)
    ap.add_argument("--dense-n", type=int, default=50_000)
    ap.add_argument("--dense-d", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    X, y = text_like(args.n, args.d, args.nnz)
    rows = []
    fit = best(lambda: LinearSVM(lam=0.5).fit(X, y), 2)
    for name, f in (("check_sparse_structure", lambda: check_sparse_structure(X)),
                    ("check_scale (sparse)", lambda: check_scale(X)),
                    ("as_csr32 (both)", lambda: as_csr32(X)),
                    ("check_X (sparse)", lambda: check_X(X))):
        rows.append((name, best(f, args.repeat), fit))
    rng = np.random.default_rng(1)
    D = rng.standard_normal((args.dense_n, args.dense_d))
    yd = np.where(D[:, 0] + 0.3 * rng.standard_normal(args.dense_n) > 0, 1, -1)
    fit_d = best(lambda: LinearSVM(lam=0.5).fit(D, yd), 2)
    rows.append(("check_scale (dense)", best(lambda: check_scale(D), args.repeat),
                 fit_d))
    print(f"sparse {X.shape[0]} x {X.shape[1]}, nnz {X.nnz}: LinearSVM fit "
          f"{fit:.3f} s CPU; dense {D.shape}: fit {fit_d:.3f} s CPU")
    print(f"{'check':<26}{'CPU s':>10}{'% of fit':>10}")
    for name, t, ref in rows:
        print(f"{name:<26}{t:>10.4f}{100 * t / ref:>9.2f}%")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
