"""Cython kernels of LapSVM: exact line search and the BLAS gemv shim."""
import numpy as np
import pytest

from semisvm._core import _blas, _lapsvm


def _phi(s, y, lab, f, df, left, right, hinge):
    """Objective along the ray at the steps ``s`` (vectorised reference)."""
    o = f[lab][None] + s[:, None] * df[lab][None]
    r = o - y[lab][None]
    if hinge:
        r = np.where(y[lab][None] * o < 1, r, 0.0)
    return 0.5 * (r * r).sum(1) + left * s + 0.5 * right * s * s


@pytest.mark.parametrize("hinge", [True, False])
def test_line_search_is_exact_minimiser(hinge, dtype, seed):
    rng = np.random.RandomState(seed)
    n = 50
    y = np.where(rng.rand(n) > 0.5, 1.0, -1.0).astype(dtype)
    lab = np.arange(0, n, 2, dtype=np.int32)
    f = rng.randn(n).astype(dtype)
    df = rng.randn(n).astype(dtype)
    left, right = -0.5, 0.3
    s = _lapsvm.line_search(y, lab, f, df, left, right, hinge)
    grid = np.linspace(0, max(3 * s, 1.0), 20001)
    vals = _phi(grid, y.astype(float), lab, f.astype(float), df.astype(float),
                left, right, hinge)
    best = grid[int(np.argmin(vals))]
    assert s >= 0
    slack = 1e-3 if dtype == np.float32 else 0.0
    assert abs(s - best) <= 2 * (grid[1] - grid[0]) + slack


def test_line_search_no_descent_returns_zero():
    y = np.array([1.0, -1.0])
    lab = np.array([0, 1], dtype=np.int32)
    f = np.array([2.0, -2.0])  # both outside the margin
    df = np.array([1.0, -1.0])  # moving further out: only the regulariser
    assert _lapsvm.line_search(y, lab, f, df, 0.1, 1.0, True) == 0.0


def test_gemv_rowmajor(dtype):
    rng = np.random.RandomState(0)
    A = rng.rand(7, 5).astype(dtype)
    x = rng.rand(5).astype(dtype)
    np.testing.assert_allclose(_blas._gemv_py(A, x), A @ x, rtol=1e-5)


def test_pcg_rejects_bad_indices():
    K = np.eye(3)
    L = np.zeros(3)
    with pytest.raises(ValueError, match="lab has indices out of range"):
        _lapsvm.pcg(K, np.zeros(4, np.int32), np.zeros(0, np.int32), np.zeros(0),
                    np.zeros((0, 0)), np.ones((1, 3)), np.array([5], np.int32), np.zeros(0, np.int32),
                    np.zeros((0, 3)), np.zeros((1, 0)), 1.0, 1.0, True, True,
                    np.zeros((1, 3)), np.zeros(1), 10, 0, 1e-8, 1, 0.015)
    del L


def test_gemm_rowmajor(dtype):
    rng = np.random.RandomState(1)
    A = rng.rand(3, 6).astype(dtype)
    B = rng.rand(6, 4).astype(dtype)
    np.testing.assert_allclose(_blas._gemm_py(A, B), A @ B, rtol=1e-5)


def test_module_name():
    assert _lapsvm.__name__ == "semisvm._core._lapsvm"
