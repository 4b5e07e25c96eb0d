"""The TV / Cheeger solvers' paths for large graphs, each against the small path.

Every switch chosen by size is run on both sides with its threshold shrunk:
the graph ROF solver's band ordering of the rows (the same iterates as the
data's order, to rounding; the same bits for any thread count).
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import semisvm._tv_solvers as ts
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm.graph import knn_affinity

ESTIMATORS = [TVRLS, TVSVM, CheegerRLS, CheegerSVM]


def _blobs(n=90, n_classes=3, per_class=4, seed=0):
    X, yt = make_blobs(n, centers=n_classes, cluster_std=2.0, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


def test_rof_band_order_both_sides(monkeypatch):
    # at and above ROF_REORDER_MIN_SAMPLES the solver runs on the rows in
    # reverse Cuthill-McKee order; below, in the data's order: the same
    # iterates to rounding (the sums of the divergence in another order),
    # inputs and outputs in the caller's order, warm starts carried over
    X, _, _ = _blobs(n=200)
    W = knn_affinity(X, 6, weight="self-tuning")
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((200, 3))
    rho = np.array([1.0, 2.0, 0.5])
    out = {}
    for thr, ordered in ((201, False), (200, True)):
        monkeypatch.setattr(ts, "ROF_REORDER_MIN_SAMPLES", thr)
        rof = ts._ROF(W, 3, 1e-9, 400)
        assert (rof.perm is not None) == ordered
        G1 = rof.solve(Z, 0.3, rho, np.zeros((200, 3)))
        G2 = rof.solve(1.5 * Z, 0.3, 1.0, G1)       # warm start from G1 and p
        out[ordered] = (G1, G2, rof.tv(G2[:, 0]), rof.n_iter)
    assert not np.array_equal(rof.perm, np.arange(200))    # a real reordering
    np.testing.assert_allclose(out[True][0], out[False][0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(out[True][1], out[False][1], rtol=0, atol=1e-10)
    assert out[True][2] == pytest.approx(out[False][2], rel=1e-12)
    assert out[True][3] == out[False][3]
    # the ordered path against an independent minimiser of the ROF objective
    # (the gap closed to 1e-9: the objective to 1e-8 relative)
    src, dst, w = ts._edges(W)

    def objective(g, z, r):
        return 0.3 * np.sum(w * np.abs(g[dst] - g[src])) + 0.5 * r * np.sum((g - z) ** 2)
    for k in range(3):
        got = objective(out[True][0][:, k], Z[:, k], rho[k])
        for _ in range(20):
            g = out[True][0][:, k] + 1e-3 * rng.standard_normal(200)
            assert objective(g, Z[:, k], rho[k]) >= got * (1 - 1e-8)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_rof_band_order_same_bits_for_any_thread_count(Est, monkeypatch):
    monkeypatch.setattr(ts, "ROF_REORDER_MIN_SAMPLES", 50)
    X, y, _ = _blobs()
    fits = []
    for n_jobs in (None, 2, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = Est(safe=False, n_jobs=n_jobs, max_iter=15).fit(X, y)
        fits.append((est.transduction_.tobytes(), np.asarray(est.alpha_).tobytes(),
                     np.asarray(est.result_.decision).tobytes(), est.n_iter_))
    assert fits[0] == fits[1] == fits[2]
