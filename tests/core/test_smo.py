"""The exact two-variable step of USMO (the paper's Table I, four cases)."""
import numpy as np
import pytest

from semisvm._core._smo import _pair_t_py


def _phi(t, si, sj, g, eta, c2):
    """Pair objective along (s_i + t, s_j - t), up to a constant."""
    def h(s):
        return np.minimum(s, c2 - s)

    return g * t + 0.5 * eta * t * t - h(si + t) - h(sj - t)


@pytest.mark.parametrize("case", range(60))
def test_pair_step_is_the_exact_minimiser(case):
    rng = np.random.RandomState(case)
    c2 = rng.uniform(0.5, 3.0)
    # s on the kink, on bounds and inside, to hit every case of Table I
    pool = [0.0, c2 / 2, c2, rng.uniform(0, c2 / 2), rng.uniform(c2 / 2, c2)]
    si = pool[rng.randint(4)] if case % 3 else rng.uniform(0, c2)
    sj = pool[1 + rng.randint(4)]
    if si >= c2 or sj <= 0:
        si, sj = c2 / 3, 2 * c2 / 3
    eta = [0.0, -1e-3, rng.uniform(0.01, 5.0)][case % 3]
    hi = min(c2 - si, sj)
    # the selection guarantees a descent direction: phi'(0+) < 0
    slope0 = (-1 if si < c2 / 2 else 1) + (1 if sj <= c2 / 2 else -1)
    g = -slope0 - rng.uniform(0.01, 3.0)
    t = _pair_t_py(si, sj, g, eta, c2)
    assert 0 <= t <= hi
    grid = np.linspace(0, hi, 20001)
    best = _phi(grid, si, sj, g, max(eta, 0.0), c2).min()
    assert _phi(t, si, sj, g, max(eta, 0.0), c2) <= best + 1e-9


def test_pair_step_stops_at_the_kink():
    # s_i below the kink; the quadratic minimiser lies beyond it, but the
    # slope jumps by +2 there, which makes the kink the minimiser
    c2 = 1.0
    t = _pair_t_py(0.2, 0.45, -1.5, 1.0, c2)
    assert t == pytest.approx(0.3)


def test_pair_step_without_curvature_goes_to_the_end():
    # duplicate points (eta = 0) and both variables away from their kinks:
    # the objective decreases linearly up to the box end
    t = _pair_t_py(0.6, 0.4, -3.0, 0.0, 1.0)
    assert t == 0.4


def test_pair_step_across_a_sub_ulp_segment_to_the_kink():
    # s_i one ulp below the kink c2/2: the first segment [0, c2/2 - s_i] is
    # narrower than an ulp of s_i, so s_i + t rounds; the step must still
    # reach the kink (it used to return 0 and USMO stopped as "stalled")
    c2 = 0.018518518518518517
    si, sj = 0.009259259259259257, 0.005555555555555555
    b1 = 0.5 * c2 - si
    assert 0 < b1 < 1e-17
    t = _pair_t_py(si, sj, -0.3101383490755749, 1.9984446409643344, c2)
    assert t == b1


# --- USMO's stopping tests pinned directly ---------------------------------

def _usmo_run(tol, max_iter):
    from semisvm._core._dataset import RowData
    from semisvm._core._kernel_cache import KERNEL_CODES, KernelCache
    from semisvm._core._smo import kernel_sums, usmo
    rng = np.random.RandomState(0)
    X = rng.randn(60, 4)
    urows = np.arange(20, 60, dtype=np.int32)
    prows = np.arange(0, 20, dtype=np.int32)
    n, n_p, prior, lam = 40, 20, 0.4, 1e-2
    c1, c2 = prior / (2 * lam * n_p), 1 / (2 * lam * n)
    cache = KernelCache(RowData(X), urows, KERNEL_CODES["rbf"], 0.5, 0.0, 3, 100.0)
    qP = kernel_sums(cache, urows, prows)
    s = np.full(n, c1 * n_p / n)          # feasible: sum s = c1 n_p, s <= c2
    assert s[0] <= c2
    return usmo(cache, urows, prows, c1, c2, s, qP, tol, max_iter, 1)


@pytest.mark.parametrize("k", [1, 5, 12])
def test_usmo_takes_exactly_max_iter_pair_steps(k):
    _, _, n_iter, status, _, viol, hist, _ = _usmo_run(0.0, k)
    assert (n_iter, status) == (k, 1)
    assert len(hist) == k + 1 and viol == hist[-1] > 0


def test_usmo_stops_at_the_first_violation_within_tol():
    *_, hist, _ = _usmo_run(0.0, 60)
    # a step whose violation is a new low: tol = that violation stops there
    # (the test is <= tol), and not before
    lows = [k for k in range(1, len(hist)) if hist[k] < hist[:k].min()]
    assert len(lows) >= 3
    for k in lows[1:4]:
        _, _, n_iter, status, _, viol, _, _ = _usmo_run(hist[k], 1000)
        assert (n_iter, status) == (k, 0) and viol == hist[k]
