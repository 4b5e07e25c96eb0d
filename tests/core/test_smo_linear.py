"""usmo_linear: explicit-w USMO through the RowData row kernels."""
import numpy as np
import pytest

from semisvm._core._dataset import RowData
from semisvm._core._smo_linear import usmo_linear


@pytest.mark.parametrize("seed", range(3))
def test_usmo_linear_w_and_function_cache_are_consistent(seed, dtype, container):
    rng = np.random.RandomState(seed)
    X = rng.randn(60, 7)
    X[rng.rand(60, 7) < 0.3] = 0.0
    X[:20] += 1.0
    Xc = container(X.astype(dtype))
    prows = np.arange(8, dtype=np.int32)
    urows = np.arange(8, 60, dtype=np.int32)
    prior, lam = 0.3, 0.05
    c1 = prior / (2 * lam * prows.size)
    c2 = 1.0 / (2 * lam * urows.size)
    s = np.full(urows.size, prior * c2)
    w, F, G, n_iter, n_pass, status, bias, viol, hist = usmo_linear(
        RowData(Xc), urows, prows, c1, c2, s, 1e-8, 100000)
    assert status == 0 and viol <= 1e-8 and n_iter > 0
    X32 = X.astype(dtype).astype(np.float64)
    w_ref = c1 * X32[prows].sum(0) - s @ X32[urows]
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(w, w_ref, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(F, X32[urows] @ w, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(G, X32[prows] @ w, rtol=rtol, atol=rtol)
    assert s.sum() == pytest.approx(c1 * prows.size, rel=1e-12)
    assert np.all((s >= 0) & (s <= c2))


def test_usmo_linear_rejects_bad_rows():
    X = np.zeros((5, 2))
    s = np.zeros(2)
    with pytest.raises(IndexError):
        usmo_linear(RowData(X), np.array([0, 9], dtype=np.int32),
                    np.array([1], dtype=np.int32), 1.0, 1.0, s, 1e-3, 10)
