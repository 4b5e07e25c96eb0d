"""The extra memory of ``feature_scaling``'s sparse quartiles.

``semisvm._feature_scale.column_quartiles`` on a CSR X (the rule's spread
ratio, run at every fit of the six graph / kernel estimators, fired or not),
against the earlier form kept here as the reference (``tocsc()``, then a
cumulative sum of the negatives over every stored value: about three
copies of X). Peak extra bytes by ``tracemalloc`` (NumPy's buffers are
traced), the two side by side in one run, their quartiles compared to the
bit, and CPU seconds (time.process_time).

    python bench/bench_feature_scale_memory.py
    python bench/bench_feature_scale_memory.py --rows 200000 --density 0.5

Three cases: ``sparse`` (5 % stored, values in [0, 1): every quartile among
the implicit zeros, no column's values read) and ``dense-ish`` (90 %
stored, normal values: every column's quartiles among its stored values,
each column gathered), and bench_feature_scale.py's ``100k-csr`` (float64,
0.5 % random and 100 full columns, whose values are gathered).
"""
import argparse
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from semisvm import _feature_scale as fs


def old_quartiles(X):
    """The former ``_sparse_quartiles`` (a CSC copy of X, a cumulative sum
    over all stored values)."""
    X = X.tocsc()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    data, indptr = X.data, X.indptr
    nnz = np.diff(indptr).astype(np.int64)
    neg_cum = np.concatenate(([0], np.cumsum(data < 0, dtype=np.int64)))
    n_neg = neg_cum[indptr[1:]] - neg_cum[indptr[:-1]]
    n_zero = n - nnz
    zero = np.zeros(1, dtype=data.dtype)[0]
    plan = [fs._ranks(n, q) for q in fs._QUARTILES]
    ranks = sorted({r for p, nx, _ in plan for r in (p, nx)})
    pos = {}
    for r in ranks:
        k = np.where(r < n_neg, r, r - n_zero)
        k[(r >= n_neg) & (r < n_neg + n_zero)] = -1
        pos[r] = k
    values = {r: np.full(d, zero, dtype=data.dtype) for r in ranks}
    stack = np.stack([pos[r] for r in ranks])
    for j in np.flatnonzero((stack >= 0).any(axis=0)):
        ks = stack[:, j]
        seg = np.partition(data[indptr[j]:indptr[j + 1]], np.unique(ks[ks >= 0]))
        for i, r in enumerate(ranks):
            if ks[i] >= 0:
                values[r][j] = seg[ks[i]]
    return np.stack([fs._lerp(values[p], values[nx], g) for p, nx, g in plan])


def measure(f, X):
    tracemalloc.start()
    t = time.process_time()
    q = f(X)
    t = time.process_time() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return q, peak, t


def case(name, n, d, density, signed, seed=0):
    rng = np.random.default_rng(seed)
    if density > 0.3:
        # distinct positions (drawn with repeats, dense columns would lose
        # their stored share to the summed duplicates)
        rows, cols = np.nonzero(rng.random((n, d), dtype=np.float32) < density)
        nnz = rows.size
    else:
        nnz = int(n * d * density)
        rows = np.sort(rng.integers(0, n, nnz))
        cols = rng.integers(0, d, nnz)
    vals = (rng.normal(size=nnz) if signed else rng.random(nnz)).astype(np.float32)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    compare(name, X)


def compare(name, X):
    n, d = X.shape
    xb = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    q_new, p_new, t_new = measure(fs.column_quartiles, X)
    q_old, p_old, t_old = measure(old_quartiles, X)
    same = np.array_equal(q_new, q_old)
    print(f"{name:10s} {n:>9,d} {d:>4d} {X.nnz:>12,d} {xb / 1e6:8.0f} "
          f"{p_old / 1e6:9.0f} {p_new / 1e6:9.0f} {p_new / p_old:7.3f} "
          f"{t_old:7.2f} {t_new:7.2f} {same}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=200)
    ap.add_argument("--density", type=float, default=None)
    args = ap.parse_args()
    print(f"{'case':10s} {'n':>9s} {'d':>4s} {'nnz':>12s} {'X MB':>8s} "
          f"{'old MB':>9s} {'new MB':>9s} {'new/old':>7s} {'old s':>7s} "
          f"{'new s':>7s} same")
    if args.density is not None:
        case("custom", args.rows, args.cols, args.density, True)
        return
    case("sparse", args.rows, args.cols, 0.05, False)
    case("dense-ish", args.rows // 10, args.cols, 0.9, True)
    # bench_feature_scale.py's 100k-csr (float64, 0.5 % random + 100 full
    # columns)
    from bench_feature_scale import CASES, _data
    compare("100k-csr", _data(*CASES["100k-csr"], 0.005))


if __name__ == "__main__":
    main()
