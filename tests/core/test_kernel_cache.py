"""KernelCache: kernel columns from the data, LRU eviction under a budget."""
import pickle

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

from semisvm._core._dataset import RowData
from semisvm._core._kernel_cache import KERNEL_CODES, KernelCache


def _data(dtype, container, seed=0, n=25, d=6):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.4] = 0.0
    X[3] = 0.0                       # an empty row
    return X, container(X.astype(dtype))


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_kernel_cache_columns_match_sklearn(kernel, dtype, container):
    X, Xc = _data(dtype, container)
    rows = np.array([0, 3, 5, 7, 11, 24], dtype=np.int32)
    cache = KernelCache(RowData(Xc), rows, KERNEL_CODES[kernel], 0.3, 1.5, 3, 200)
    K = pairwise_kernels(X[rows], X[rows], metric=kernel, gamma=0.3,
                         degree=3, coef0=1.5, filter_params=True)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    for j in range(rows.shape[0]):
        np.testing.assert_allclose(cache._get_col_py(j), K[:, j], rtol=rtol,
                                   atol=rtol)


def test_kernel_cache_precomputed_reads_the_gram_matrix(container):
    X, _ = _data(np.float64, np.asarray)
    K = X @ X.T
    rows = np.array([1, 4, 9], dtype=np.int32)
    cache = KernelCache(RowData(container(K)), rows, KERNEL_CODES["precomputed"],
                        1.0, 0.0, 3, 200)
    for j in range(3):
        np.testing.assert_array_equal(cache._get_col_py(j), K[rows, rows[j]])


def test_kernel_cache_row_against_other_rows(container):
    X, Xc = _data(np.float64, container)
    cache = KernelCache(RowData(Xc), np.arange(4, dtype=np.int32),
                        KERNEL_CODES["rbf"], 0.5, 0.0, 3, 200)
    targets = np.array([20, 3, 2], dtype=np.int32)
    expected = pairwise_kernels(X[[10]], X[targets], metric="rbf", gamma=0.5)[0]
    np.testing.assert_allclose(cache._kernel_row_py(10, targets), expected,
                               rtol=1e-12)


def test_kernel_cache_lru_eviction_and_counts():
    X, _ = _data(np.float64, np.asarray)
    rows = np.arange(20, dtype=np.int32)
    # a budget below two columns still keeps two slots
    cache = KernelCache(RowData(X), rows, KERNEL_CODES["linear"], 1.0, 0.0, 3, 1e-9)
    assert cache.n_slots == 2
    c0 = cache._get_col_py(0)
    cache._get_col_py(1)
    cache._get_col_py(0)             # hit; 1 becomes least recently used
    assert (cache.hits, cache.misses) == (1, 2)
    cache._get_col_py(2)             # evicts 1
    np.testing.assert_array_equal(cache._get_col_py(0), c0)   # still cached
    assert (cache.hits, cache.misses) == (2, 3)
    cache._get_col_py(1)             # was evicted: computed again
    assert cache.misses == 4


def test_kernel_cache_budget_sets_the_number_of_columns():
    X = np.zeros((1000, 2))
    rows = np.arange(1000, dtype=np.int32)
    cache = KernelCache(RowData(X), rows, KERNEL_CODES["linear"], 1.0, 0.0, 3, 0.5)
    assert cache.n_slots == int(0.5 * 2**20 // (8 * 1000))
    big = KernelCache(RowData(X), rows, KERNEL_CODES["linear"], 1.0, 0.0, 3, 1e6)
    assert big.n_slots == 1000       # never more than the number of columns


def test_kernel_cache_rejects_bad_arguments():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="rows must index"):
        KernelCache(RowData(X), np.array([0, 5], dtype=np.int32), 0, 1.0, 0.0, 3, 1)
    with pytest.raises(ValueError, match="square"):
        KernelCache(RowData(X), np.array([0], dtype=np.int32),
                    KERNEL_CODES["precomputed"], 1.0, 0.0, 3, 1)
    with pytest.raises(ValueError, match="unknown kernel"):
        KernelCache(RowData(X), np.array([0], dtype=np.int32), 9, 1.0, 0.0, 3, 1)


def test_kernel_cache_module_names():
    from semisvm._core import _smo, _smo_linear

    assert KernelCache.__module__ == "semisvm._core._kernel_cache"
    assert _smo.usmo.__module__ == "semisvm._core._smo"
    assert _smo_linear.usmo_linear.__module__ == "semisvm._core._smo_linear"
    assert pickle.loads(pickle.dumps(KERNEL_CODES)) == KERNEL_CODES


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_kernel_cache_active_set_columns(kernel, dtype, container):
    X, Xc = _data(dtype, container)
    rows = np.arange(25, dtype=np.int32)
    cache = KernelCache(RowData(Xc), rows, KERNEL_CODES[kernel], 0.3, 1.5, 3, 200)
    K = pairwise_kernels(X, X, metric=kernel, gamma=0.3, degree=3, coef0=1.5,
                         filter_params=True)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    act = np.array([1, 2, 5, 9, 20], dtype=np.int32)
    full0 = cache._get_col_py(0)
    cache._set_active_py(act)
    c7 = cache._get_col_py(7)            # computed on the active entries only
    np.testing.assert_allclose(c7[act], K[act, 7], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(cache._get_col_py(0)[act], full0[act])
    assert cache.n_act == 5
    cache._unshrink_py()                 # every column is recomputed in full
    misses = cache.misses
    np.testing.assert_allclose(cache._get_col_py(7), K[:, 7], rtol=rtol, atol=rtol)
    assert cache.misses == misses + 1 and cache.n_act == 25
