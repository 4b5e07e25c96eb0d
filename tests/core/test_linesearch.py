import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from semisvm._core._linesearch import _line_search_py


def _phi(delta, w, wbar, lam, o, obar, cpos, cneg):
    ww = w + delta * (wbar - w)
    oo = o + delta * (obar - o)
    return (0.5 * lam * ww @ ww
            + 0.5 * np.sum(cpos * np.maximum(0, 1 - oo) ** 2)
            + 0.5 * np.sum(cneg * np.maximum(0, 1 + oo) ** 2))


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
