"""kernel_matrix against scikit-learn's pairwise kernels (independent reference)."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from semisvm.kernels import kernel_matrix, scale_gamma


def _data(dtype, container, n=23, m=7, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[X < -0.5] = 0  # some sparsity
    Y = rng.randn(m, d)
    return container(X.astype(dtype)), container(Y.astype(dtype)), X, Y


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_kernel_matrix_matches_sklearn(kernel, dtype, container):
    Xc, Yc, X, Y = _data(dtype, container)
    ref = {"linear": lambda A, B: linear_kernel(A, B),
           "rbf": lambda A, B: rbf_kernel(A, B, gamma=0.3),
           "poly": lambda A, B: polynomial_kernel(A, B, degree=3, gamma=0.3,
                                                  coef0=1.0)}[kernel]
    K = kernel_matrix(Xc, Yc, kernel=kernel, gamma=0.3, degree=3, coef0=1.0,
                      block_size=4)
    assert K.dtype == dtype and K.flags.c_contiguous and K.shape == (23, 7)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(K, ref(X, Y), rtol=rtol, atol=rtol)


def test_kernel_matrix_symmetric_rbf_unit_diagonal():
    _, _, X, _ = _data(np.float64, np.asarray)
    K = kernel_matrix(X, kernel="rbf", block_size=5)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=scale_gamma(X)), atol=1e-12)


def test_scale_gamma_sparse_equals_dense():
    _, _, X, _ = _data(np.float64, np.asarray)
    assert scale_gamma(X) == pytest.approx(1.0 / (X.shape[1] * X.var()))
    assert scale_gamma(sp.csr_matrix(X)) == pytest.approx(scale_gamma(X))


def test_kernel_matrix_callable_and_precomputed():
    _, _, X, Y = _data(np.float64, np.asarray)
    K = kernel_matrix(X, Y, kernel=lambda A, B: (A @ B.T) ** 2, block_size=3)
    np.testing.assert_allclose(K, (X @ Y.T) ** 2)
    G = X @ X.T
    np.testing.assert_array_equal(kernel_matrix(G, kernel="precomputed"), G)


def test_kernel_matrix_errors():
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_matrix(X, kernel="sigmoid")
    with pytest.raises(ValueError, match="gamma"):
        kernel_matrix(X, kernel="rbf", gamma=-1.0)
    with pytest.raises(ValueError, match="features"):
        kernel_matrix(X, np.ones((3, 3)))
    with pytest.raises(ValueError, match="degree"):
        kernel_matrix(X, kernel="poly", degree=0)
    with pytest.raises(ValueError, match="callable returned shape"):
        kernel_matrix(X, kernel=lambda A, B: np.ones((1, 1)))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kernel_matrix(X)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_kernel_matrix_knn_matches_sklearn(kernel, container):
    from sklearn.neighbors import NearestNeighbors

    X = np.random.RandomState(3).randn(70, 4)
    K, dist, ind = kernel_matrix(container(X), kernel=kernel, gamma=0.5,
                                 n_neighbors=6, block_size=16)
    np.testing.assert_allclose(K, kernel_matrix(X, kernel=kernel, gamma=0.5),
                               rtol=1e-12)
    d_ref, i_ref = NearestNeighbors(n_neighbors=6).fit(X).kneighbors()
    np.testing.assert_array_equal(ind, i_ref)
    np.testing.assert_allclose(dist, d_ref, rtol=1e-7)
    # against another set of points: the point itself is not excluded
    _, d2, i2 = kernel_matrix(X[:5], X, n_neighbors=1)
    np.testing.assert_array_equal(i2[:, 0], np.arange(5))
    assert np.all(d2 < 1e-6)  # |x|^2 + |x|^2 - 2 x.x: rounding only
    with pytest.raises(ValueError, match="n_neighbors=70"):
        kernel_matrix(X, n_neighbors=70)


def _bits(a):
    return a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("same", [False, True])
def test_kernel_matrix_products_written_in_place_same_bits(dtype, same):
    # the dense inner products go straight into K's blocks (np.matmul with
    # out=): the same bits as each block's product as a new array (X_b @ Y'),
    # the former form, for one block (Y is X: NumPy's syrk case) and several
    # (a short last block), and the same bits through out=
    from semisvm.kernels import _kernel_matrix
    rng = np.random.default_rng(3)
    X = rng.standard_normal((301, 17)).astype(dtype)
    Y = X if same else rng.standard_normal((97, 17)).astype(dtype)
    for bs in (None, 64, 1):
        K = kernel_matrix(X, None if same else Y, kernel="linear", block_size=bs)
        step = X.shape[0] if bs is None else bs
        ref = np.concatenate([X[a:a + step] @ Y.T for a in range(0, X.shape[0], step)])
        assert _bits(K) == _bits(ref)
        out = np.full(ref.shape, np.nan, dtype=dtype)
        got = _kernel_matrix(X, None if same else Y, kernel="rbf", gamma=0.1,
                             block_size=bs, out=out)
        assert got is out
        assert _bits(got) == _bits(kernel_matrix(X, None if same else Y,
                                                 kernel="rbf", gamma=0.1,
                                                 block_size=bs))


def test_kernel_matrix_out_checked():
    from semisvm.kernels import _kernel_matrix
    X = np.ones((4, 2))
    for bad in (np.empty((4, 3)), np.empty((4, 4), dtype=np.float32),
                np.empty((4, 8))[:, ::2], [[0.0] * 4] * 4):
        with pytest.raises(ValueError, match="out must be"):
            _kernel_matrix(X, kernel="linear", out=bad)
    out = np.empty((4, 4))
    assert _kernel_matrix(np.eye(4), kernel="precomputed", out=out) is out
    assert np.array_equal(out, np.eye(4))
