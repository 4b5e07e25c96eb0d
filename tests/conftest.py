"""Shared fixtures: dtype x container x seed, and the path of ../shared/data."""
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

try:
    import semisvm._core  # noqa: F401
    from semisvm._core import _mfn  # noqa: F401
except ImportError as exc:  # pragma: no cover
    raise ImportError(
        "semisvm's compiled extensions are not importable: install the package "
        "(pip install .) and run plain `pytest`, not the bare source tree"
    ) from exc

DATA_DIR = Path(
    os.environ.get("SEMISVM_SHARED_DATA",
                   Path(__file__).resolve().parents[1].parent / "shared" / "data")
)


def load_shared(name):
    """Load ../shared/data/NAME.npz (as its load.py does), or skip with a reason."""
    path = DATA_DIR / f"{name}.npz"
    if not path.exists():
        pytest.skip(f"shared data set {name!r} not found at {path} "
                    "(../shared/data is absent in a user's clone)")
    with np.load(path, allow_pickle=False) as z:
        raw = {k: z[k] for k in z.files}
    out = {}
    for key in list(raw):
        if key.endswith("_shape") and key[:-6] + "_indptr" in raw:
            base = key[:-6]
            out[base] = sp.csr_matrix(
                (raw[base + "_data"], raw[base + "_indices"], raw[base + "_indptr"]),
                shape=tuple(int(s) for s in raw[key]))
    parts = ("_data", "_indices", "_indptr", "_shape")
    for key, val in raw.items():
        if not any(key.endswith(p) and key[: -len(p)] in out for p in parts):
            out[key] = val
    return out


@pytest.fixture(params=[np.float64, np.float32], ids=["float64", "float32"])
def dtype(request):
    return request.param


@pytest.fixture(params=["dense", "csr_matrix", "csr_array"])
def container(request):
    kind = request.param
    if kind == "dense":
        return np.ascontiguousarray
    if kind == "csr_matrix":
        return sp.csr_matrix
    return sp.csr_array


@pytest.fixture(params=[0, 1, 42])
def seed(request):
    return request.param
