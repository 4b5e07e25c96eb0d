import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from semisvm._core import _dataset
from semisvm._core._dataset import RowData


def test_rowdata_reports_dotted_module_and_pickles():
    assert RowData.__module__ == "semisvm._core._dataset"
    assert "_dataset" not in __import__("sys").modules
    X = np.arange(6.0).reshape(2, 3)
    R = pickle.loads(pickle.dumps(RowData(X)))
    assert (R.n_rows, R.n_cols, R.is_sparse) == (2, 3, False)


def test_row_helpers_match_numpy(dtype, container):
    rng = np.random.RandomState(1)
    dense = (rng.randn(7, 9) * (rng.rand(7, 9) < 0.4)).astype(dtype)
    dense[3] = 0.0  # an empty row
    R = RowData(container(dense))
    assert R.dtype == dtype
    w = rng.randn(9).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for i in range(7):
        assert _dataset._row_dot_py(R, i, w) == pytest.approx(float(dense[i] @ w), abs=tol)
        out = np.zeros(9, dtype=dtype)
        _dataset._row_axpy_py(R, i, 2.0, out)
        np.testing.assert_allclose(out, 2 * dense[i], rtol=tol, atol=tol)


def test_rowdata_rejects_wrong_inputs():
    with pytest.raises(TypeError, match="int32"):
        X = sp.csr_matrix(np.eye(3))
        X.indices = X.indices.astype(np.int64)
        RowData(X)
    with pytest.raises(TypeError, match="float32 or float64"):
        RowData(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        RowData(np.asfortranarray(np.ones((3, 2))))
    with pytest.raises(ValueError, match="match X's dtype"):
        _dataset._row_dot_py(RowData(np.ones((2, 2))), 0, np.ones(2, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nnz", [0, 1, 3, 4, 7, 8, 13])
def test_row_dot4_sums_four_partial_sums_in_order(dtype, nnz):
    # the CG product's dot: entries 0, 1, 2, 3 mod 4 of the full groups of
    # four into four sums, the tail into the first, then (s0 + s1) + (s2 + s3)
    rng = np.random.RandomState(nnz)
    d = 20
    row = np.zeros(d, dtype=dtype)
    cols = np.sort(rng.choice(d, nnz, replace=False))
    row[cols] = rng.randn(nnz) * 10.0 ** rng.randint(-6, 6, nnz)
    X = sp.csr_matrix(row[None, :])
    w = (rng.randn(d) * 10.0 ** rng.randint(-6, 6, d)).astype(dtype)
    terms = [dtype(row[c]) * dtype(w[c]) for c in cols]
    s = [dtype(0)] * 4
    full = nnz - nnz % 4
    for k in range(full):
        s[k % 4] = dtype(s[k % 4] + terms[k])
    for k in range(full, nnz):
        s[0] = dtype(s[0] + terms[k])
    want = dtype(dtype(s[0] + s[1]) + dtype(s[2] + s[3]))
    got = _dataset._row_dot4_py(RowData(X), 0, w)
    assert dtype(got) == want
    # the plain row_dot sums left to right: the same value to rounding
    assert got == pytest.approx(_dataset._row_dot_py(RowData(X), 0, w),
                                rel=1e-4 if dtype == np.float32 else 1e-12,
                                abs=1e-30)


@pytest.mark.parametrize("n", [65536, 2 * 65536 + 9])
def test_csr_scan_one_chunk_and_many(n):
    # the structure/zeros/sum-of-squares pass of the validation, on both sides
    # of its 65,536-row chunk: every chunk read, the same result on 1 or 3
    # threads, the sums against NumPy's
    import scipy.sparse as sp

    from semisvm._core._dataset import csr_scan
    X = sp.random(n, 50, density=0.04, format="csr", random_state=3)
    ip, ix = X.indptr.astype(np.int32), X.indices.astype(np.int32)
    for nt in (1, 3):
        ok, z, s = csr_scan(ip, ix, X.data, nt)
        assert ok and z == 0
        assert s == pytest.approx(float(X.data @ X.data), rel=1e-12)
    # a zero and an unsorted pair in the last row that has two entries
    row = np.flatnonzero(np.diff(ip) >= 2)[-1]
    k = ip[row]
    ix2, d2 = ix.copy(), X.data.copy()
    ix2[k], ix2[k + 1] = ix2[k + 1], ix2[k]
    d2[0] = 0.0
    for nt in (1, 3):
        assert csr_scan(ip, ix2, d2, nt)[:2] == (False, 1)
    # a duplicate column is not canonical either
    ix3 = ix.copy()
    ix3[k + 1] = ix3[k]
    assert not csr_scan(ip, ix3, X.data, 3)[0]
    # float32: the squares in float32 (inf where they overflow it)
    d32 = X.data.astype(np.float32)
    d32[5] = 1e20
    assert csr_scan(ip, ix, d32, 3)[2] == np.inf
    with pytest.raises(ValueError, match="CSR"):
        csr_scan(ip, ix[:-1], X.data, 1)


def test_csr_scan_reads_no_row_outside_its_arrays():
    # hostile index pointers: a row range past the stored entries or
    # decreasing is not read, and the scan says so (NaN sum: the full check)
    from semisvm._core._dataset import csr_scan
    ix = np.array([0, 1, 2, 0], dtype=np.int32)
    d = np.ones(4)
    for ip in ([0, 2, 99, 4], [0, 3, 1, 4], [0, -5, 2, 4]):
        ok, z, s = csr_scan(np.array(ip, dtype=np.int32), ix, d, 1)
        assert not ok and np.isnan(s)
    assert csr_scan(np.array([0, 2, 3, 4], dtype=np.int32), ix, d, 1) == (True, 0, 4.0)
