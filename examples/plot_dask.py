"""
TSVM on a Dask cluster
======================

:class:`~semisvm.LinearSVM`, :class:`~semisvm.TSVM` and :class:`~semisvm.DASVM`
fit on a ``dask.array`` whose chunks are row blocks (all columns in one chunk)
of dense arrays or CSR matrices. The blocks stay on the workers; only
d-length vectors travel, and the fit equals the in-memory one.

A ``LocalCluster`` starts worker processes, so the script is guarded by
``if __name__ == "__main__":`` (needs ``pip install "semisvm[dask]"``). The
plot compares the distributed decision values with the in-memory ones.
"""
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp


def main():
    import dask.array as da
    from distributed import Client, LocalCluster

    from semisvm import TSVM

    rng = np.random.default_rng(0)
    n, d = 10_000, 100
    X = sp.random(n, d, density=0.05, format="csr", random_state=0)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, 0)
    y_semi = np.where(rng.random(n) < 0.02, y, -1)     # 2 % labeled

    local = TSVM().fit(X, y_semi)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) \
            as cluster, Client(cluster):
        Xd = da.from_array(X, chunks=(2_500, d), asarray=False)   # 4 row blocks
        dist = TSVM().fit(Xd, y_semi)
        scores = dist.decision_function(Xd).compute()
        labels = dist.transduction_.compute()
    unl = y_semi == -1
    print(f"in memory: objective {local.result_.objective:.6f}; on 2 workers: "
          f"{dist.result_.objective:.6f}; same labels: "
          f"{np.array_equal(labels, local.transduction_)}; error on the "
          f"unlabeled rows {100 * np.mean(labels[unl] != y[unl]):.1f}%")

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(local.decision_function(X), scores, s=2, alpha=0.3)
    ax.set_xlabel("decision value, in-memory fit")
    ax.set_ylabel("decision value, Dask fit (2 workers)")
    ax.set_title("The distributed fit equals the in-memory fit")
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
