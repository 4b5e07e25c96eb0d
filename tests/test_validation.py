"""check_X: the fast return for already valid arrays keeps every error."""
import os
import re
import sys
import warnings

import numpy as np
import pytest
from sklearn.utils.multiclass import check_classification_targets

from semisvm._validation import check_X


@pytest.mark.parametrize("bad, match", [
    (np.array([[np.nan, 1.0]]), "NaN"),
    (np.array([[np.inf, 1.0]]), "infinity"),
    # finite, but the sum overflows: the full check runs, and the squared row
    # norms overflow too (refused: the solvers would return NaN)
    (np.full((2, 2), 1e308), "squared norm of a row"),
    (np.zeros((0, 3)), "0 sample"),
    (np.zeros((3, 0)), "0 feature"),
])
def test_check_X_fast_path_keeps_the_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        check_X(bad)


def test_check_X_returns_valid_arrays_as_they_are(dtype):
    X = np.arange(12, dtype=dtype).reshape(3, 4)
    assert check_X(X) is X
    # Fortran order and int dtype still go through check_array (converted)
    F = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    assert check_X(F).flags.c_contiguous
    assert check_X(np.arange(6).reshape(2, 3)).dtype == np.float64


@pytest.mark.parametrize("bad, match", [
    (np.nan, "NaN"), (np.inf, "infinity"), (1e300, "squared norm of a row")])
def test_check_X_csr_fast_path_keeps_the_errors(bad, match):
    # an int32 CSR skips check_array: finiteness from one sum, the scale
    # and structure checks as on the other path (int64 indices)
    import scipy.sparse as sp_
    for index in (np.int32, np.int64):
        X = sp_.csr_matrix(np.arange(1.0, 13.0).reshape(4, 3))
        X.data[4] = bad
        X.indices = X.indices.astype(index)
        X.indptr = X.indptr.astype(index)
        with pytest.raises(ValueError, match=match):
            check_X(X)


def test_check_X_csr_fast_path_returns_valid_matrices_as_they_are():
    import scipy.sparse as sp_
    X = sp_.csr_matrix(np.arange(1.0, 13.0).reshape(4, 3))
    assert X.indices.dtype == np.int32
    assert check_X(X) is X
    for other in (X.astype(np.int64), sp_.csr_array(X), X.tocoo()):
        got = check_X(other)
        assert got.format == "csr" and got.dtype.kind == "f"
        assert got.indices.dtype == got.indptr.dtype == np.int32
        np.testing.assert_array_equal(got.toarray(), X.toarray())
    with pytest.raises(ValueError, match="0 sample"):
        check_X(sp_.csr_matrix((0, 3)))


def test_check_targets_integer_fast_path_and_the_checks_it_skips():
    from semisvm._validation import check_targets
    check_targets(np.array([0, 1, 1, 2]))          # integer labels: no call
    check_targets(np.array([True, False]))
    with pytest.raises(ValueError, match="continuous"):
        check_targets(np.array([0.5, 1.0, 1.5]))    # floats: full check
    with pytest.raises(ValueError, match="continuous"):
        check_targets(np.array([[0.5], [1.5]]))    # 2-D: full check


def test_check_targets_float_fast_path_takes_integer_values_only(monkeypatch):
    # float labels holding integers (-1.0 / 1.0) skip scikit-learn's checks
    # (a small fit's time); any other float goes through them, and their
    # errors, as before
    import semisvm._validation as V
    calls = []
    monkeypatch.setattr(V, "check_classification_targets",
                        lambda y: calls.append(1) or check_classification_targets(y))
    V.check_targets(np.array([-1.0, 1.0, 1.0, 3.0]))
    V.check_targets(np.array([0.0, 1.0], dtype=np.float32))
    assert calls == []
    with pytest.raises(ValueError, match="continuous"):
        V.check_targets(np.array([0.5, 1.0]))
    for bad in ([1.0, np.nan], [1.0, np.inf], [1.0, 2.0 ** 60]):
        with warnings.catch_warnings():
            # (scikit-learn's cast of NaN / inf to int warns before it raises)
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                V.check_targets(np.array(bad))
            except ValueError:
                pass
    assert len(calls) == 4


# ---- hostile input: sparse structure and value scale ----

def _csr_bad(kind):
    import scipy.sparse as sp_
    X = sp_.csr_matrix(np.arange(1.0, 13.0).reshape(4, 3))
    if kind == "neg":
        X.indices[2] = -1
    elif kind == "big":
        X.indices[2] = 3
    elif kind == "indptr_dec":
        X.indptr[2] = X.indptr[3] + 1
    elif kind == "indptr_past":
        X.indptr[-1] = X.indices.size + 1
    elif kind == "indptr_start":
        X.indptr[0] = 1
    elif kind == "indptr_len":
        X.indptr = X.indptr[:-1]
    elif kind == "data_len":
        X.data = X.data[:-1]
    return X


@pytest.mark.parametrize("kind,message", [
    ("neg", "column index -1 outside [0, 3)"),
    ("big", "column index 3 outside [0, 3)"),
    ("indptr_dec", "indptr decreases at row"),
    ("indptr_past", "but there are only 12 stored indices"),
    ("indptr_start", "indptr[0] is 1"),
    ("indptr_len", "indptr has 4 entries, expected 5"),
    ("data_len", "data has shape"),
])
def test_malformed_csr_refused_naming_the_problem(kind, message):
    from semisvm._validation import as_csr32, check_sparse_structure
    X = _csr_bad(kind)
    for f in (check_sparse_structure, as_csr32, check_X):
        with pytest.raises(ValueError, match=re.escape(message)) as info:
            f(X, "Xtrain")
        assert str(info.value).startswith("Xtrain is a malformed sparse matrix")


def test_malformed_csc_coo_bsr_refused_before_conversion():
    import scipy.sparse as sp_

    from semisvm._validation import check_sparse_structure
    A = np.arange(1.0, 13.0).reshape(4, 3)
    C = sp_.csc_matrix(A)
    C.indices[0] = 4  # row index of a CSC matrix
    with pytest.raises(ValueError, match="row index 4 outside"):
        check_sparse_structure(C)
    O = sp_.coo_matrix(A)
    O.row[0] = -2
    with pytest.raises(ValueError, match="row index -2 outside"):
        check_sparse_structure(O)
    B = sp_.bsr_matrix(A, blocksize=(2, 1))
    B.indices[0] = 3
    with pytest.raises(ValueError, match="block column index 3 outside"):
        check_sparse_structure(B)


def test_int64_index_beyond_int32_refused_not_wrapped():
    import scipy.sparse as sp_

    from semisvm._validation import as_csr32
    X = sp_.csr_matrix(np.eye(3))
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    X.indices[1] = 2**32 + 1  # astype(int32) would wrap it to 1
    with pytest.raises(ValueError, match="column index 4294967297 outside"):
        as_csr32(X)


def test_stored_entries_past_indptr_are_dropped():
    import scipy.sparse as sp_

    from semisvm._validation import as_csr32
    X = sp_.csr_matrix(np.eye(3))
    X2 = sp_.csr_matrix((np.r_[X.data, 7.0], np.r_[X.indices, 99].astype(np.int32),
                         X.indptr), shape=(3, 3))
    Y = as_csr32(X2)
    assert Y.data.shape == (3,) and Y.indices.shape == (3,)
    np.testing.assert_array_equal(Y.toarray(), np.eye(3))


def test_valid_csr_passes_unchanged():
    import scipy.sparse as sp_

    from semisvm._validation import as_csr32
    X = sp_.random(50, 20, density=0.2, format="csr", random_state=0)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    Y = as_csr32(X)
    assert Y is X


@pytest.mark.parametrize("dtype,value", [(np.float64, 1e200), (np.float32, 1e19)])
def test_entries_whose_squared_norm_overflows_are_refused(dtype, value):
    import scipy.sparse as sp_
    X = np.ones((5, 4), dtype=dtype)
    X[2, 1] = value
    with pytest.raises(ValueError, match="squared norm of a row .* overflows"):
        check_X(X)
    with pytest.raises(ValueError, match="rescale the features"):
        check_X(sp_.csr_matrix(X))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_fast_path_passes_its_sum_of_squares_to_the_scale_check(dtype):
    # validate_fit_data's finiteness test is the sum of squares that
    # as_csr32's scale check needs (one pass for both): the same sum, None
    # for input that takes the full check, and the same errors through fit
    import scipy.sparse as sp_

    from semisvm import LinearSVM
    from semisvm._validation import validate_fit_data
    X = sp_.random(40, 6, density=0.5, format="csr", random_state=0, dtype=dtype)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    y = np.arange(40) % 2
    est = LinearSVM()
    Xv, yv, total = validate_fit_data(est, X, y, sumsq=True)
    # (the compiled scan's sum: chunk by chunk, in the values' precision)
    assert Xv is X and total == pytest.approx(float(np.dot(X.data, X.data)),
                                              rel=1e-6)
    assert validate_fit_data(est, X, y) == (X, y)
    for big, match in ((np.nan, "NaN"), (np.inf, "infinity"),
                       (1e200 if dtype == np.float64 else 1e20, "rescale")):
        Z = X.copy()
        Z.data[3] = big
        if np.isfinite(big):
            assert validate_fit_data(est, Z, y, sumsq=True)[2] is None
        with pytest.raises(ValueError, match=match):
            LinearSVM().fit(Z, y)
        with pytest.raises(ValueError, match=match):
            LinearSVM().fit(Z.toarray(), y)
    # a matrix made canonical (a copy) has its sum taken again
    D = sp_.csr_matrix((np.r_[X.data, dtype(1e19 if dtype == np.float32 else 1e200)],
                        np.r_[X.indices, X.indices[:1]].astype(np.int32),
                        np.r_[X.indptr[:-1], X.indptr[-1] + 1].astype(np.int32)),
                       shape=X.shape)
    with pytest.raises(ValueError, match="rescale"):
        LinearSVM().fit(D, y)


def test_large_but_safe_entries_are_accepted():
    # above the cheap bound sqrt(max / (4 d)) but with a finite squared norm
    X = np.zeros((3, 10**4))
    X[0, 0] = 1e152
    assert check_X(X) is X


# ---- memory refused up front (under resource.setrlimit) ----

_RLIMIT_SCRIPT = r"""
import resource, sys, numpy as np, scipy.sparse as sp
import semisvm
from semisvm.kernels import kernel_matrix
from semisvm._validation import memory_budget
with open("/proc/self/status") as f:
    vm = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
limit = vm + 400 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
budget, source = memory_budget()
assert source == "RLIMIT_AS limit" and budget < 500 * 2**20, (budget, source)
n = 12000                        # an n x n float64 matrix: 1.07 GiB
X = np.random.default_rng(0).standard_normal((n, 3))
y = np.full(n, -1); y[0], y[1] = 0, 1
for name, call in [
        ("LapSVM", lambda: semisvm.LapSVM(n_components=None).fit(X, y)),
        ("LapRLS", lambda: semisvm.LapRLS(solver="closed",
                                          n_components=None).fit(X, y)),
        ("TVRLS", lambda: semisvm.TVRLS(n_components=None).fit(X, y)),
        ("CheegerSVM", lambda: semisvm.CheegerSVM(n_components=None).fit(X, y)),
        ("kernel_matrix", lambda: kernel_matrix(X, kernel="rbf")),
        ("LinearSVM", lambda: semisvm.LinearSVM().fit(
            sp.csr_matrix(([1.0, 1.0], ([0, 1], [0, 2**26 - 1])),
                          shape=(2, 2**26)), [0, 1]))]:
    try:
        call()
    except MemoryError as exc:
        assert isinstance(exc, ValueError), name
        print(name, "|", exc)
    else:
        print(name, "| FITTED")
"""


@pytest.mark.slow
def test_n_by_n_allocations_refused_under_rlimit_as():
    import subprocess
    import sys
    resource = pytest.importorskip("resource")
    del resource
    import tempfile
    # cwd: not a source checkout, whose semisvm/ would shadow the install
    proc = subprocess.run([sys.executable, "-c", _RLIMIT_SCRIPT], capture_output=True,
                          text=True, timeout=300, cwd=tempfile.gettempdir(),
                          env={**__import__("os").environ, "OMP_NUM_THREADS": "1",
                               "OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = dict(line.split(" | ", 1) for line in proc.stdout.strip().splitlines())
    assert set(out) == {"LapSVM", "LapRLS", "TVRLS", "CheegerSVM", "kernel_matrix",
                        "LinearSVM"}
    for name, msg in out.items():
        assert msg.startswith("not enough memory: needs "), (name, msg)
        assert "RLIMIT_AS limit" in msg, msg
    assert "LapSVM on n=12000 samples: the 12000 x 12000 float64 kernel matrix" \
        in out["LapSVM"]
    assert "1152000000 bytes" in out["LapSVM"]          # 12000^2 x 8
    assert "2304000000 bytes" in out["LapRLS"]          # and its linear system
    assert "TVRLS on n=12000" in out["TVRLS"] and "CheegerSVM on n=12000" \
        in out["CheegerSVM"]
    assert "kernel_matrix: the 12000 x 12000" in out["kernel_matrix"]
    assert "L2-SVM-MFN solver on 2 rows x 67108864 features" in out["LinearSVM"]


def test_check_memory_message():
    from semisvm._validation import NotEnoughMemoryError, check_memory
    with pytest.raises(NotEnoughMemoryError,
                       match=r"not enough memory: needs 1024\.0 GiB \(1099511627776 "
                             r"bytes\) for Foo on n=1: the thing;"):
        check_memory(2**40, "Foo on n=1: the thing")
    check_memory(1024, "a kilobyte")  # fits


# ---- consistency and no silent NaN ----

_ALL = ["LinearSVM", "TSVM", "DASVM", "LapSVM", "LapRLS", "PUSVM", "TVRLS", "TVSVM",
        "CheegerRLS", "CheegerSVM"]


@pytest.mark.parametrize("name", _ALL)
def test_y_mixing_strings_and_minus_one_names_y(name):
    import semisvm
    X = np.random.default_rng(0).standard_normal((20, 3))
    y = np.array(["a", "b"] + [-1] * 18, dtype=object)
    kw = {"prior": 0.5} if name == "PUSVM" else {}
    with pytest.raises(TypeError, match="^y mixes labels of types int, str"):
        getattr(semisvm, name)(**kw).fit(X, y)


@pytest.mark.parametrize("name", ["LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS",
                                  "CheegerSVM"])
def test_n_neighbors_not_below_n_samples_refused_by_every_graph_estimator(name):
    import semisvm
    X = np.random.default_rng(0).standard_normal((8, 2))
    y = np.array([0, 1] + [-1] * 6)
    with pytest.raises(ValueError, match="n_neighbors=8 must be smaller than the "
                                         "number of training samples n=8"):
        getattr(semisvm, name)(n_neighbors=8).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_pusvm_tiny_lam_refused_not_nan():
    import semisvm
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[::2] = -1
    with pytest.raises(ValueError, match=r"lam=5e-324 is too small"):
        semisvm.PUSVM(prior=0.5, lam=5e-324).fit(X, y)
    assert np.all(np.isfinite(semisvm.PUSVM(prior=0.5, lam=1e-100, max_iter=1000).fit(X, y)
                              .decision_function(X)))


def test_int32_csr_fast_path_keeps_contiguity_and_shape_checks():
    import scipy.sparse as sp

    from semisvm import TSVM
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(60, 8)) * (rng.random((60, 8)) < 0.5)
    A = sp.csr_matrix(dense)
    big = np.zeros(2 * A.nnz)
    big[::2] = A.data
    # strided values (a view): the compiled kernels need contiguous arrays
    X = sp.csr_matrix((big[::2], A.indices.astype(np.int32),
                       A.indptr.astype(np.int32)), shape=A.shape)
    assert not X.data.flags.c_contiguous
    out = check_X(X)
    assert out.data.flags.c_contiguous
    y = np.full(60, -1)
    y[:10] = np.arange(10) % 2
    a = TSVM().fit(X, y).decision_function(A)
    b = TSVM().fit(A, y).decision_function(A)
    np.testing.assert_array_equal(a, b)
    # a 1-D sparse array: the ValueError naming X, not an IndexError
    if hasattr(sp, "csr_array"):
        with pytest.raises(ValueError, match="X"):
            check_X(sp.csr_array(np.array([1.0, 2.0, 0.0])))


@pytest.mark.parametrize("y", [
    np.array([3, 1, 3, 7, 1], dtype=np.int8),
    np.array([-1, 1, 1, -1], dtype=np.int64),
    np.array([5, 5, 5], dtype=np.uint16),
    np.array([0, 1] * 10, dtype=np.int32),
    # a range wider than 4 n + 1024: the sort (np.unique) side of the switch
    np.array([0, 10**12, 7, 10**12], dtype=np.int64),
    np.array([2**63 + 5, 2**63 + 1], dtype=np.uint64),
    np.array([0.5, -1.0, 0.5]),
    np.array(["b", "a", "b"]),
    np.array([True, False, True]),
])
def test_unique_inverse_is_numpys(y):
    # integer labels in a narrow range are counted (bincount), others sorted:
    # both give np.unique's classes (same dtype) and inverse
    from semisvm._validation import unique_inverse
    classes, idx = unique_inverse(y)
    ref_c, ref_i = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, ref_c)
    assert classes.dtype == ref_c.dtype
    np.testing.assert_array_equal(idx, ref_i.ravel())
    assert idx.dtype == np.intp and idx.ndim == 1


@pytest.mark.parametrize("y", [
    np.array([-1.0, 1.0, 1.0, -1.0]),
    np.array([1, 0, 1], dtype=np.float32),
    np.array([3, -7, 3], dtype=np.int8),
    np.array([2**40, 5, 5], dtype=np.uint64),
    np.array([0.0, -0.0, 1.0]),          # a signed zero: the general path
    np.array([-0.0, 1.0]),
    np.array([1.0, 2.0**60]),            # beyond 2^53: the general path
    np.array([0, 1, 2, 1]),              # three labels: the general path
    np.array([True, False]),
    np.array([0.5, 1.5]),                # fractional: "continuous", an error
    np.array([1.0, np.nan]),
    np.array([2.0, 2.0]),                # one class, an error
])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # (NaN's cast)
def test_encode_classes_two_labels_shortcut_is_the_general_path(y):
    # two integer (or integer-valued float) labels take a min/max shortcut:
    # the same classes (values, dtype, zero sign) and indices as the checks
    # and the count it skips, and the same errors for anything else
    from semisvm._validation import (
        _two_labels,
        check_targets,
        encode_classes,
        unique_inverse,
    )

    def general(y):
        check_targets(y)
        c, i = unique_inverse(y)
        if c.shape[0] < 2:
            raise ValueError("needs 2 classes")
        return c, i
    try:
        ref = general(y)
    except ValueError:
        with pytest.raises(ValueError):
            encode_classes(y)
        return
    c, i = encode_classes(y)
    assert c.dtype == ref[0].dtype and c.tobytes() == ref[0].tobytes()
    np.testing.assert_array_equal(i, ref[1])
    assert i.dtype == np.intp
    two = _two_labels(y)
    assert (two is not None) == (
        y.size and y.dtype.kind in "iuf" and ref[0].shape[0] == 2
        and not np.signbit(y[y == 0]).any() and np.abs(y).max() <= 2.0**53)


def test_validate_fit_data_fast_path_sets_what_validate_data_sets():
    # clean input (int32 CSR or C-contiguous float rows, finite, integer 1-D
    # labels) skips check_X_y: the same arrays back and the same fitted
    # attributes as scikit-learn's validate_data; anything else takes it
    import pandas as pd
    from sklearn.utils.validation import validate_data

    from semisvm import LinearSVM
    from semisvm._validation import validate_fit_data
    rng = np.random.RandomState(0)
    Xd = rng.rand(20, 3)
    y = np.arange(20) % 2
    import scipy.sparse as sp
    Xs = sp.csr_matrix(Xd * (Xd > 0.5))
    for X in (Xd, Xs, Xd.astype(np.float32)):
        fast, ref = LinearSVM(), LinearSVM()
        # a previous fit on named columns leaves feature_names_in_: both drop it
        for est in (fast, ref):
            est.fit(pd.DataFrame(Xd, columns=list("abc")), y)
            assert hasattr(est, "feature_names_in_")
        Xf, yf = validate_fit_data(fast, X, y)
        Xr, yr = validate_data(ref, X, y, accept_sparse="csr",
                               dtype=[np.float64, np.float32], order="C",
                               accept_large_sparse=True)
        assert Xf is X and yf is y
        assert type(Xr) is type(X)
        assert fast.n_features_in_ == ref.n_features_in_ == 3
        assert not hasattr(fast, "feature_names_in_")
        assert not hasattr(ref, "feature_names_in_")
    # not clean: the full check (its message)
    bad = Xd.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        validate_fit_data(LinearSVM(), bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        validate_fit_data(LinearSVM(), Xd, y[:-1])
    Xf, _ = validate_fit_data(LinearSVM(), np.asfortranarray(Xd), y)
    assert Xf.flags.c_contiguous
    # finite float labels (-1.0 / 1.0) take the fast path too; NaN ones the
    # full check and its message
    yf = np.where(y > 0, 1.0, -1.0)
    Xl, yl = validate_fit_data(LinearSVM(), Xd, yf)
    assert Xl is Xd and yl is yf
    yf[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        validate_fit_data(LinearSVM(), Xd, yf)


@pytest.mark.parametrize("name", ["LinearSVM", "TSVM", "DASVM"])
def test_np_matrix_is_refused_with_a_type_error(name):
    """np.matrix is an ndarray subclass: the fast validation path must not take
    it (it used to crash later with a shape error)."""
    import semisvm

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    if name != "LinearSVM":
        y[10:] = -1
        y[:2] = [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        Xm = np.asmatrix(X)
    with pytest.raises(TypeError, match="np.matrix"):
        getattr(semisvm, name)().fit(Xm, y)


@pytest.mark.parametrize("X", [np.array(1.0), np.float64(2.0)])
def test_fit_fast_path_refuses_a_scalar_x_as_the_full_check(X):
    # a 0-d X falls through the fast path to scikit-learn's message (it
    # once raised an IndexError comparing the lengths first)
    from semisvm import TSVM, LinearSVM
    for est in (LinearSVM(), TSVM()):
        with pytest.raises(ValueError, match="2D array"):
            est.fit(X, np.array([0, 1]))


def test_two_labels_shortcut_leaves_masked_labels_to_the_general_path():
    # masked min / max ignore masked entries: a masked y is encoded as the
    # general path encodes it (every entry counted), not by the shortcut
    from semisvm._validation import _two_labels, encode_classes
    y = np.ma.array([0, 1, 0, 1, 5, 5], mask=[0, 0, 0, 0, 1, 1])
    assert _two_labels(y) is None
    classes, _ = encode_classes(y)
    np.testing.assert_array_equal(classes, [0, 1, 5])


def test_compiled_csr_scan_takes_strided_and_refuses_malformed_input():
    # the compiled validation pass reads only contiguous, well-shaped int32
    # arrays; strided ones take the former passes (accepted as before), and
    # malformed ones the structure check (a ValueError naming X)
    import scipy.sparse as sp_

    from semisvm import LinearSVM
    from semisvm._validation import check_X
    rng = np.random.default_rng(0)
    A = sp_.random(30, 8, density=0.4, format="csr", random_state=1)
    big_ix = np.repeat(A.indices.astype(np.int32), 2)
    big_ip = np.repeat(A.indptr.astype(np.int32), 2)
    S = sp_.csr_matrix((A.data, big_ix[::2], A.indptr.astype(np.int32)), shape=A.shape)
    assert not S.indices.flags.c_contiguous
    S2 = sp_.csr_matrix((A.data, A.indices.astype(np.int32), big_ip[::2]), shape=A.shape)
    assert not S2.indptr.flags.c_contiguous
    y = rng.integers(0, 2, 30)
    for M in (S, S2):
        out = check_X(M)
        np.testing.assert_array_equal(out.toarray(), A.toarray())
        LinearSVM().fit(M, y)
    bad = sp_.csr_matrix(A.shape)
    bad.indptr = np.zeros(0, dtype=np.int32)
    with pytest.raises(ValueError, match="X"):
        check_X(bad)
    short = A.copy()
    short.indices = short.indices[:-2].astype(np.int32)
    short.indptr = short.indptr.astype(np.int32)
    with pytest.raises(ValueError, match="X"):
        check_X(short)


# --- warnings name the caller's line, not a line of the library ------------

_UNCONVERGED = ["LinearSVM", "TSVM", "DASVM", "LapSVM", "TVRLS", "TVSVM",
                "CheegerRLS", "CheegerSVM", "PUSVM"]


@pytest.mark.parametrize("name", _UNCONVERGED)
def test_convergence_warning_points_at_the_callers_line(name):
    # every estimator's fit goes through a wrapper and helpers before it
    # warns: a fixed stacklevel named semisvm/_validation.py or a solver
    # module; the warning must name this file's fit line
    from sklearn.datasets import make_moons
    from sklearn.exceptions import ConvergenceWarning

    import semisvm
    X, y = make_moons(300, noise=0.1, random_state=0)
    y_semi = np.full_like(y, -1)
    y_semi[:10] = y[:10]
    cls = getattr(semisvm, name)
    if name == "LinearSVM":
        target = y
    elif name == "PUSVM":
        target = np.where(y_semi == 1, 1, 0)
    else:
        target = y_semi
    params = {"max_iter": 1}
    if "safe" in cls().get_params():
        params["safe"] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        cls(**params).fit(X, target)
    conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert conv, f"{name} with max_iter=1 raised no ConvergenceWarning"
    assert {(w.filename, w.lineno) for w in conv} == {(__file__, line)}


def test_warn_user_skips_every_library_frame(monkeypatch):
    # the warning names the first frame outside the package: here inner's
    # call; with this file's directory counted as the package (faked) every
    # frame of this file is skipped too, and it names pytest's caller
    import semisvm._validation as v
    lines = []

    def inner():
        lines.append(sys._getframe().f_lineno + 1)
        v.warn_user("deep", UserWarning)

    def outer():
        inner()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outer()
    assert (caught[0].filename, caught[0].lineno) == (__file__, lines[0])
    monkeypatch.setattr(v, "_PACKAGE_DIR", os.path.dirname(__file__) + os.sep)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outer()
    assert not caught[0].filename.startswith(os.path.dirname(__file__) + os.sep)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_of_squares_takes_no_blas_dot(dtype, monkeypatch):
    # the sum of squares of the fit's input scale check runs before the fit
    # holds BLAS at one thread: NumPy's own loop (einsum), not a (threaded)
    # BLAS dot, whose idle thread then spins on the second core; the same
    # sum up to rounding, inf where it overflows, NaN through a NaN
    from semisvm._validation import _sumsq, check_scale
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5000, 10)).astype(dtype)
    ref = float(np.dot(X.ravel().astype(np.float64), X.ravel().astype(np.float64)))

    def no_dot(*a, **k):
        raise AssertionError("np.dot called")

    monkeypatch.setattr(np, "dot", no_dot)
    assert _sumsq(X.ravel()) == pytest.approx(ref, rel=1e-5 if dtype == np.float32 else 1e-12)
    assert check_scale(X) is X
    big = np.full(8, 1e20 if dtype == np.float32 else 1e160, dtype=dtype)
    assert _sumsq(big) == np.inf
    big[3] = np.nan
    assert np.isnan(_sumsq(big))
