"""The seeded text-like sparse problem of the linear benchmarks.

A module of its own (NumPy and SciPy only, no thread settings) so that a
benchmark run in a default environment can make the rows without importing a
script that pins BLAS/OpenMP threads (``bench_linear_tsvm.py`` does).
"""
import numpy as np
import scipy.sparse as sp


def make_text_like(n, d=50000, nnz=50, seed=0, noise=0.05, zipf=1.1):
    """Seeded sparse text-like binary problem (float64 CSR, labels 0/1)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(1, d + 1) + 10.0) ** zipf
    p /= p.sum()
    cdf = np.cumsum(p)
    perm = rng.permutation(d)
    lengths = np.maximum(rng.poisson(nnz, size=n), 1)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    toks = np.searchsorted(cdf, rng.random(rows.size) * cdf[-1]).clip(max=d - 1)
    key, counts = np.unique(rows * d + perm[toks], return_counts=True)
    del rows, toks
    rows = key // d
    cols = (key - rows * d).astype(np.int32)
    idf = np.log1p(1.0 / (p * nnz))[np.argsort(perm)]
    vals = (1.0 + np.log(counts)) * idf[cols]
    vals /= np.sqrt(np.bincount(rows, weights=vals * vals, minlength=n))[rows]
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    X = sp.csr_matrix((vals, cols, indptr), shape=(n, d))
    score = np.asarray(X @ rng.standard_normal(d)).ravel()
    y = (score > np.median(score)).astype(int)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y
