import numpy as np
import pytest

from semisvm._core import _blas


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blas_dot_and_nrm2_match_numpy(dtype):
    rng = np.random.RandomState(0)
    x, y = rng.randn(37).astype(dtype), rng.randn(37).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert _blas._dot_py(x, y) == pytest.approx(float(x @ y), rel=tol)
    assert _blas._nrm2_py(x) == pytest.approx(float(np.linalg.norm(x)), rel=tol)
