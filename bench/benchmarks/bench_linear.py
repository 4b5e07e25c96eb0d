"""asv benchmarks of LinearSVM (L2-SVM-MFN) on small seeded sparse problems.

Run from ``bench/``: ``asv run --python=same --quick``; or as a plain script:
``python bench/benchmarks/bench_linear.py`` (one pass over all parameters).
The full side-by-side comparison with LIBLINEAR is ``bench/bench_linear_mfn.py``.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402


def make_sparse_problem(n_samples, n_features, density, dtype, seed=0, noise=0.05):
    """Seeded text-like CSR problem: Zipf column popularity, L2-normalised rows,
    planted separator, ``noise`` labels flipped. Labels in {-1, +1}."""
    rng = np.random.default_rng(seed)
    nnz = max(1, int(round(density * n_features)))
    p = 1.0 / (np.arange(1, n_features + 1) + 10.0) ** 1.1
    p /= p.sum()
    cdf = np.cumsum(p)
    rows = np.repeat(np.arange(n_samples, dtype=np.int64), nnz)
    cols = rng.permutation(n_features)[
        np.searchsorted(cdf, rng.random(rows.size) * cdf[-1]).clip(max=n_features - 1)]
    key, counts = np.unique(rows * n_features + cols, return_counts=True)
    r = key // n_features
    c = (key - r * n_features).astype(np.int32)
    v = 1.0 + np.log(counts)
    v /= np.sqrt(np.bincount(r, weights=v * v, minlength=n_samples))[r]
    indptr = np.zeros(n_samples + 1, dtype=np.int32)
    np.cumsum(np.bincount(r, minlength=n_samples), out=indptr[1:])
    X = sp.csr_matrix((v.astype(dtype), c, indptr), shape=(n_samples, n_features))
    s = np.asarray(X @ rng.standard_normal(n_features)).ravel()
    y = np.where(s > np.median(s), 1.0, -1.0)
    flip = rng.random(n_samples) < noise
    y[flip] = -y[flip]
    return X, y


def primal_objective(X, y, w, b, lam):
    """lam/2 (||w||^2 + b^2) + 1/2 sum max(0, 1 - y (X w + b))^2 in float64."""
    w = np.asarray(w, dtype=np.float64)
    m = np.maximum(1.0 - y * (np.asarray(X.astype(np.float64) @ w).ravel() + b), 0)
    return 0.5 * lam * (w @ w + b * b) + 0.5 * (m @ m)


class LinearSVMSparse:
    """LinearSVM.fit on a seeded sparse problem (n_features = n_samples / 4)."""

    params = ([2_000, 20_000], [0.01], ["float64", "float32"])
    param_names = ["n_samples", "density", "dtype"]
    timeout = 120

    def setup(self, n_samples, density, dtype):
        from semisvm import LinearSVM
        self.X, self.y = make_sparse_problem(n_samples, n_samples // 4, density,
                                             np.dtype(dtype), seed=0)
        self.lam = 0.5
        self.est = LinearSVM(lam=self.lam)

    def time_fit(self, n_samples, density, dtype):
        self.est.fit(self.X, self.y)

    def peakmem_fit(self, n_samples, density, dtype):
        self.est.fit(self.X, self.y)

    def track_objective(self, n_samples, density, dtype):
        self.est.fit(self.X, self.y)
        return float(primal_objective(self.X, self.y, self.est.coef_,
                                      self.est.intercept_, self.lam))

    track_objective.unit = "objective"

    def track_cg_iterations(self, n_samples, density, dtype):
        self.est.fit(self.X, self.y)
        return int(self.est.result_.n_cg_iter)

    track_cg_iterations.unit = "iterations"


if __name__ == "__main__":
    import itertools
    import time
    bench = LinearSVMSparse()
    for args in itertools.product(*LinearSVMSparse.params):
        bench.setup(*args)
        t0 = time.perf_counter()
        bench.time_fit(*args)
        t = time.perf_counter() - t0
        print(f"{dict(zip(LinearSVMSparse.param_names, args))}: fit {t:.4f} s, "
              f"objective {bench.track_objective(*args):.8f}, "
              f"CG iterations {bench.track_cg_iterations(*args)}")
