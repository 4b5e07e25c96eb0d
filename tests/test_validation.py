"""check_X: the fast return for already valid arrays keeps every error."""
import numpy as np
import pytest

from semisvm._validation import check_X


@pytest.mark.parametrize("bad, match", [
    (np.array([[np.nan, 1.0]]), "NaN"),
    (np.array([[np.inf, 1.0]]), "infinity"),
    (np.full((2, 2), 1e308), None),       # finite, but the sum overflows
    (np.zeros((0, 3)), "0 sample"),
    (np.zeros((3, 0)), "0 feature"),
])
def test_check_X_fast_path_keeps_the_errors(bad, match):
    if match is None:
        # the full check runs and accepts it
        assert check_X(bad) is bad
        return
    with pytest.raises(ValueError, match=match):
        check_X(bad)


def test_check_X_returns_valid_arrays_as_they_are(dtype):
    X = np.arange(12, dtype=dtype).reshape(3, 4)
    assert check_X(X) is X
    # Fortran order and int dtype still go through check_array (converted)
    F = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    assert check_X(F).flags.c_contiguous
    assert check_X(np.arange(6).reshape(2, 3)).dtype == np.float64
