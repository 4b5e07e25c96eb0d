"""
Fit time against the number of rows
===================================

The linear family's cost grows linearly with the number of stored entries of
a sparse X: each Newton step of L2-SVM-MFN is a conjugate-gradient solve over
the rows with a positive loss, and TSVM / DASVM call it a bounded number of
times with warm starts. This example times the fits (CPU seconds, one
thread) on seeded text-like CSR data (5,000 features, about 13 non-zeros per
row with a few frequent terms,
1 % of the rows labeled) of growing size and draws them on log-log axes; a
slope of 1 is linear time. ``bench/bench_linear_tsvm.py`` runs the same
curve up to 10\\ :sup:`6` rows.
"""
import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

from semisvm import DASVM, TSVM, LinearSVM


def text_like(n, d=5000, nnz=20, seed=0):
    rng = np.random.default_rng(seed)
    cols = rng.zipf(1.3, size=n * nnz) % d                  # a few frequent terms
    rows = np.repeat(np.arange(n), nnz)
    X = sp.csr_matrix((rng.random(n * nnz) + 0.1, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    w = rng.standard_normal(d)
    y = (X @ w > np.median(X @ w)).astype(int)
    return X, y


sizes = [2_000, 4_000, 8_000, 16_000, 32_000]
times = {"LinearSVM (labeled rows)": [], "TSVM": [], "DASVM": []}
for n in sizes:
    X, y = text_like(n)
    rng = np.random.default_rng(n)
    y_semi = np.where(rng.random(n) < 0.01, y, -1)
    lab = y_semi >= 0
    for name, fit in (("LinearSVM (labeled rows)", lambda: LinearSVM().fit(X[lab], y[lab])),
                      ("TSVM", lambda: TSVM().fit(X, y_semi)),
                      ("DASVM", lambda: DASVM().fit(X, y_semi))):
        t = time.process_time()
        fit()
        times[name].append(time.process_time() - t)
    print(f"n = {n:6d} ({X.nnz:7d} non-zeros): " +
          ", ".join(f"{k.split()[0]} {v[-1]:.3f} s" for k, v in times.items()))

fig, ax = plt.subplots(figsize=(6.5, 4.5))
for name, t in times.items():
    ax.loglog(sizes, t, "o-", label=name)
ax.loglog(sizes, np.array(sizes) / sizes[-1] * max(times["DASVM"][-1], 1e-3), "k:",
          label="linear time")
ax.set_xlabel("rows n (about 13 non-zeros each)")
ax.set_ylabel("CPU seconds per fit")
ax.grid(alpha=0.3, which="both")
ax.legend()
fig.tight_layout()
plt.show()
