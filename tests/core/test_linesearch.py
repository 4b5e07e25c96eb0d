import numpy as np
import pytest
from _reference import mfn_ray_objective
from scipy.optimize import minimize_scalar

from semisvm._core._linesearch import _line_search_py

_phi = mfn_ray_objective


@pytest.mark.parametrize("two_sided", [False, True])
def test_line_search_is_the_exact_minimiser(seed, two_sided):
    rng = np.random.RandomState(seed)
    n, D, lam = 60, 8, 0.05
    w, wbar = rng.randn(D), rng.randn(D)
    o, obar = 2 * rng.randn(n), 2 * rng.randn(n)
    c = rng.rand(n)
    if two_sided:          # DA-style probabilistic labels on every row
        p = rng.rand(n)
        cpos, cneg = c * p, c * (1 - p)
    else:                  # supervised labels
        y = np.sign(rng.randn(n))
        cpos, cneg = np.where(y > 0, c, 0.0), np.where(y < 0, c, 0.0)
    args = (w, wbar, lam, o, obar, cpos, cneg)
    delta = _line_search_py(*args)
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 50), method="bounded",
                          options=dict(xatol=1e-12))
    assert delta >= 0
    assert _phi(delta, *args) <= ref.fun + 1e-10
    assert delta == pytest.approx(ref.x, abs=1e-5)


def test_line_search_returns_zero_when_no_descent():
    # phi'(0) > 0 along the ray: moving away from the minimiser w = 0
    w, wbar = np.zeros(2), np.ones(2)
    o = obar = np.array([5.0, -5.0])
    delta = _line_search_py(w, wbar, 1.0, o, obar, np.array([1.0, 0]), np.array([0, 1.0]))
    assert delta == 0.0


def test_line_search_finds_a_root_beyond_the_newton_point():
    # one active example moving towards its margin: the minimiser is delta = 6 > 1
    w = wbar = np.zeros(3)
    o, obar = np.array([-2.0, 5.0]), np.array([-1.5, 5.0])
    delta = _line_search_py(w, wbar, 1.0, o, obar, np.array([1.0, 0.0]),
                            np.array([0.0, 1.0]))
    assert delta == pytest.approx(6.0, rel=1e-12)


# --- the scan itself, pinned on hand-made rays ------------------------------
# Two active rows and lam = 1, w = 0, wbar = 1 (D = 1): row A (o 0 -> 4) leaves
# its margin at delta = 1/4, row B (o -2 -> -1.5) at delta = 6. The slope is
# -5.5 + 17.25 delta before A leaves (root 0.319 > 1/4), -1.5 + 1.25 delta
# after: the minimiser 1.2 lies past the last break point below it.
_RAY = dict(w=np.zeros(1), wbar=np.ones(1), lam=1.0, o=np.array([0.0, -2.0]),
            obar=np.array([4.0, -1.5]), cpos=np.ones(2), cneg=np.zeros(2))


def _ray_args(**kw):
    r = dict(_RAY, **kw)
    return r["w"], r["wbar"], r["lam"], r["o"], r["obar"], r["cpos"], r["cneg"]


def test_line_search_root_past_the_last_break_point(dtype):
    args = [a.astype(dtype) if isinstance(a, np.ndarray) else a for a in _ray_args()]
    delta = _line_search_py(*args)
    assert delta == pytest.approx(1.2, rel=1e-6 if dtype == np.float32 else 1e-14)
    ref = minimize_scalar(lambda t: _phi(t, *_ray_args()), bounds=(0, 10),
                          method="bounded", options=dict(xatol=1e-12))
    assert delta == pytest.approx(ref.x, abs=1e-6)


def test_line_search_root_before_the_first_break_point():
    # row A alone with a strong regulariser: root (4 / 26) before A leaves (1/4)
    args = _ray_args(lam=10.0, o=np.array([0.0]), obar=np.array([4.0]),
                     cpos=np.ones(1), cneg=np.zeros(1))
    assert _line_search_py(*args) == pytest.approx(4 / 26, rel=1e-14)


def test_line_search_root_between_break_points():
    # three rows leaving at 1/4, 1/2 and 20: the root (2.2 / 5.01) lies
    # between the first two, so the scan must stop there
    o = np.array([0.0, 0.0, -1.0])
    obar = np.array([4.0, 2.0, -0.9])
    args = _ray_args(lam=1.0, o=o, obar=obar, cpos=np.ones(3), cneg=np.zeros(3))
    delta = _line_search_py(*args)
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 10), method="bounded",
                          options=dict(xatol=1e-13))
    assert delta == pytest.approx(ref.x, abs=1e-7)
    assert delta == pytest.approx(2.2 / 5.01, rel=1e-14)


def test_line_search_break_points_far_beyond_the_newton_point():
    # the slope at 1, 2 and 4 is still negative: the bracket doubles to 8,
    # the break point at 3 (row A leaving) is scanned and the root 2 / 0.251
    # lies just before row B leaves (delta = 8)
    o = np.array([-2.0, -3.0])
    obar = np.array([-1.0, -2.5])
    args = _ray_args(lam=1e-3, o=o, obar=obar, cpos=np.ones(2), cneg=np.zeros(2))
    delta = _line_search_py(*args)
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 20), method="bounded",
                          options=dict(xatol=1e-13))
    assert delta == pytest.approx(ref.x, abs=1e-7)
    assert delta == pytest.approx(2 / 0.251, rel=1e-14)


def test_line_search_cneg_terms_enter_and_leave():
    # cneg (y = -1) rows: one enters its margin (o rises above -1), one leaves
    o = np.array([-3.0, 0.5])
    obar = np.array([1.0, -3.5])
    args = _ray_args(lam=0.5, w=np.zeros(2), wbar=np.array([1.0, -1.0]), o=o,
                     obar=obar, cpos=np.zeros(2), cneg=np.array([1.0, 2.0]))
    delta = _line_search_py(*args)
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 20), method="bounded",
                          options=dict(xatol=1e-13))
    assert delta == pytest.approx(ref.x, abs=1e-7)


def test_line_search_equal_break_points_in_any_row_order():
    # two rows leaving at the same delta: the tie order (by key) must not
    # change the answer, and permuting the rows gives the same bits
    o = np.array([0.0, 0.0, -2.0])
    obar = np.array([4.0, 4.0, -1.5])
    args = _ray_args(o=o, obar=obar, cpos=np.ones(3), cneg=np.zeros(3))
    d1 = _line_search_py(*args)
    perm = [2, 1, 0]
    args2 = _ray_args(o=o[perm], obar=obar[perm], cpos=np.ones(3), cneg=np.zeros(3))
    ref = minimize_scalar(lambda t: _phi(t, *args), bounds=(0, 10), method="bounded",
                          options=dict(xatol=1e-13))
    assert d1 == pytest.approx(ref.x, abs=1e-7)
    assert _line_search_py(*args2) == pytest.approx(d1, rel=1e-15)


def test_mfn_entry_point_is_the_same_scan():
    from semisvm._core import _mfn
    args = _ray_args()
    ev = np.empty(2 * 2 * 32, np.uint8)
    assert _mfn.line_search(*args, ev) == _line_search_py(*args) == pytest.approx(1.2)
    with pytest.raises(ValueError, match="events buffer too small"):
        _mfn.line_search(*args, np.empty(8, np.uint8))


@pytest.mark.parametrize("gap", [1e-3, 1e-6, 1e-10])
def test_line_search_root_just_before_a_break_point(gap):
    # row A (o 0 -> 4) leaves at delta = 1/4; lam puts the root 4 / (16 + lam)
    # `gap` before it: the scan must stop there, not pass the break point
    lam = 4.0 / (0.25 - gap) - 16.0
    args = _ray_args(lam=lam, o=np.array([0.0]), obar=np.array([4.0]),
                     cpos=np.ones(1), cneg=np.zeros(1))
    assert _line_search_py(*args) == pytest.approx(4.0 / (16.0 + lam), rel=1e-12)
    from semisvm._core import _lapsvm
    # the same ray for LapSVM's search: one labeled point, y = 1, f 0 -> 4
    s = _lapsvm.line_search(np.ones(1), np.zeros(1, np.int32), np.zeros(1),
                            np.full(1, 4.0), 0.0, lam, True)
    assert s == pytest.approx(4.0 / (16.0 + lam), rel=1e-12)


@pytest.mark.parametrize("eps", [1e-4, 1e-9])
def test_line_search_tiny_ascent_returns_exactly_zero(eps):
    # phi'(0) = eps (1 - eps) > 0, barely: the ray goes uphill from the start,
    # so the step is 0 -- never the negative root of the first piece
    args = _ray_args(w=np.zeros(1), wbar=np.zeros(1), o=np.array([1.0 - eps]),
                     obar=np.array([0.0]), cpos=np.ones(1), cneg=np.zeros(1))
    delta = _line_search_py(*args)
    assert delta == 0.0 and not np.signbit(delta)


@pytest.mark.parametrize("m", [0, 1, 2, 16, 17, 18, 300, 20000])
@pytest.mark.parametrize("kind", ["random", "ties", "sorted", "reversed",
                                  "equal", "organ_pipe"])
def test_break_points_sort_in_the_one_total_order(m, kind):
    # the inlined introsort (insertion sort below 17 entries, heapsort past
    # its depth) gives the order of (delta, key): the one qsort gave, so the
    # line searches and TSVM's switching keep their bits
    from semisvm._core._linesearch import _sort_events_py

    rng = np.random.default_rng(m)
    d = {"random": rng.random(m),
         "ties": rng.integers(0, 4, m).astype(float),
         "sorted": np.arange(m, dtype=float),
         "reversed": np.arange(m, dtype=float)[::-1].copy(),
         "equal": np.ones(m),
         "organ_pipe": np.r_[np.arange(m // 2), np.arange(m - m // 2)[::-1]]
         .astype(float)}[kind]
    key = rng.permutation(m).astype(np.intp)
    ref = key[np.lexsort((key, d))]
    np.testing.assert_array_equal(_sort_events_py(d, key), ref)
    # heapsort (the introsort's fallback past its depth) and one level
    for depth in (0, 1):
        np.testing.assert_array_equal(_sort_events_py(d, key, depth), ref)
