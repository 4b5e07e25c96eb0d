"""semisvm._core._mfn: the MFN kernels' termination and stopping tests, pinned
directly (not only through the final objective): ``same_state`` (finite
termination), the loss-term activity at the margin, and ``mfn_run``'s
relative-decrease stop and its loose-start restart."""
import numpy as np
import pytest

from semisvm._core import _mfn
from semisvm._core._dataset import RowData

N = 7


def _inside():
    # every row strictly inside both margins: both terms active where costed
    return np.zeros(N), np.ones(N), np.ones(N)


@pytest.mark.parametrize("row", [0, 3, N - 1], ids=["first", "middle", "last"])
@pytest.mark.parametrize("term", ["cpos", "cneg"])
def test_same_state_sees_a_change_in_any_row(row, term, dtype):
    o, cpos, cneg = _inside()
    obar = o.copy()
    # cpos's term leaves at o >= 1, cneg's at o <= -1
    obar[row] = 2.0 if term == "cpos" else -2.0
    args = [a.astype(dtype) for a in (o, obar, cpos, cneg)]
    assert _mfn.same_state(*args) is False
    # and the change seen from the other side (the term enters)
    assert _mfn.same_state(args[1], args[0], args[2], args[3]) is False


@pytest.mark.parametrize("row", [0, 3, N - 1], ids=["first", "middle", "last"])
def test_same_state_ignores_moves_that_keep_every_term(row, dtype):
    o, cpos, cneg = _inside()
    obar = o.copy()
    obar[row] = 0.9                   # still inside both margins
    args = [a.astype(dtype) for a in (o, obar, cpos, cneg)]
    assert _mfn.same_state(*args) is True
    # a term with zero cost is never active: crossing its margin is no change
    cpos2 = cpos.copy()
    cpos2[row] = 0
    obar[row] = 5.0                   # crosses 1 (cpos, zero cost), not -1
    assert _mfn.same_state(o.astype(dtype), obar.astype(dtype),
                           cpos2.astype(dtype), cneg.astype(dtype)) is True


def test_same_state_margin_is_strict():
    # o = 1 exactly: the cpos term max(0, 1 - o)^2 is inactive (o < 1 is false)
    o = np.array([0.5, 0.0])
    obar = np.array([1.0, 0.0])
    c1, c0 = np.ones(2), np.zeros(2)
    assert _mfn.same_state(o, obar, c1, c0) is False
    assert _mfn.same_state(np.array([1.0, 0.0]), np.array([3.0, 0.0]), c1, c0) is True
    # o = -1 exactly: the cneg term max(0, 1 + o)^2 is inactive
    assert _mfn.same_state(np.array([-0.5, 0.0]), np.array([-1.0, 0.0]), c0, c1) is False
    assert _mfn.same_state(np.array([-1.0, 0.0]), np.array([-3.0, 0.0]), c0, c1) is True


def test_activate_counts_rows_at_the_margin_as_inactive():
    o = np.array([1.0, 0.999, -1.0, -0.999, 3.0])
    cpos = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    cneg = np.array([0.0, 0.0, 1.0, 1.0, 0.0])
    a, t = np.zeros(5), np.zeros(5)
    active = np.zeros(5, np.int32)
    n_act = _mfn.activate(o, cpos, cneg, a, t, active)
    assert n_act == 2
    np.testing.assert_array_equal(active[:2], [1, 3])


def _problem(seed=0, n=60, d=8):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = np.sign(X @ rng.randn(d) + 0.3 * rng.randn(n))
    return X, np.where(y > 0, 1.0, 0.0), np.where(y < 0, 1.0, 0.0)


def _run(X, cpos, cneg, lam=0.1, *, max_iter=50, cg_max_iter=200, cold=False,
         rel_tol=1e-12, eta=0.0, w0=None, tol=1e-12, direct=False):
    n, D = X.shape[0], X.shape[1] + 1
    w = np.zeros(D) if w0 is None else w0.copy()
    Xr = RowData(X)
    o = X @ w[:-1] + w[-1]
    z = lambda k: np.zeros(k)  # noqa: E731
    hobj, hcg, hact = z(max_iter + 1), np.zeros(max_iter, np.int32), np.zeros(max_iter, np.int32)
    obar, wbar = z(n), z(D)
    out = _mfn.mfn_run(Xr, 1.0, w, lam, cpos, cneg, o, obar, wbar, z(n), z(n),
                       np.zeros(n, np.int32), z(n), z(n), z(D), z(D), z(D), z(D),
                       z(D), z(D * D), z(D), None, tol, max_iter, cg_max_iter, cold,
                       rel_tol, eta, direct, hobj, hcg, hact)
    n_iter, status, F, swapped, _ = out
    return w, n_iter, status, F, hobj[:n_iter + 1], hcg[:n_iter], hact[:n_iter]


def _objective(X, w, cpos, cneg, lam):
    o = X @ w[:-1] + w[-1]
    return (0.5 * lam * w @ w + 0.5 * np.sum(cpos * np.maximum(0, 1 - o) ** 2)
            + 0.5 * np.sum(cneg * np.maximum(0, 1 + o) ** 2))


def test_mfn_run_stops_on_finite_termination_with_status_0():
    X, cpos, cneg = _problem()
    w, n_iter, status, F, hobj, hcg, hact = _run(X, cpos, cneg)
    assert status == 0                      # the active set repeated
    assert F == pytest.approx(_objective(X, w, cpos, cneg, 0.1), rel=1e-12)
    # the last iteration's active set is the one at w
    o = X @ w[:-1] + w[-1]
    act = ((cpos > 0) & (o < 1)) | ((cneg > 0) & (o > -1))
    assert hact[-1] == act.sum()
    # the objective decreases monotonically
    assert np.all(np.diff(hobj) <= 1e-12 * hobj[0])


def test_mfn_run_relative_decrease_stop_is_pinned():
    # a loose relative tolerance stops on the first iteration whose decrease
    # F_prev - F_new is at most rel_tol |F_new| (status 1); pin the stop at
    # exactly that iteration by choosing rel_tol between two consecutive ratios
    X, cpos, cneg = _problem(3, n=200, d=20)
    *_, hobj, _, _ = _run(X, cpos, cneg, lam=1e-3, cg_max_iter=3, eta=0.0,
                          max_iter=50, rel_tol=0.0)
    ratios = -np.diff(hobj) / np.abs(hobj[1:])
    k = int(np.argmax(ratios < 0.5 * ratios[0]))      # some iteration well inside
    assert 0 < k < len(ratios) - 1 and ratios[k] > 0
    rel = float(np.sqrt(ratios[k] * max(ratios[k - 1], ratios[k])))
    rel = min(rel, 0.999 * min(ratios[:k])) if k else rel
    rel = max(rel, 1.001 * ratios[k])
    assert rel < min(ratios[:k])
    _, n_iter, status, *_ = _run(X, cpos, cneg, lam=1e-3, cg_max_iter=3,
                                 eta=0.0, max_iter=50, rel_tol=rel)
    assert status == 1 and n_iter == k + 1


def test_mfn_run_loose_start_takes_one_more_iteration():
    # a cold start (loose CG) may not stop on its first small decrease: it
    # tightens the CG and goes on; a warm start stops there
    X, cpos, cneg = _problem(3, n=200, d=20)
    huge = 1e6        # every decrease counts as small
    _, n_warm, st_warm, *_ = _run(X, cpos, cneg, lam=1e-3, cg_max_iter=3, rel_tol=huge)
    _, n_cold, st_cold, *_ = _run(X, cpos, cneg, lam=1e-3, cg_max_iter=3, rel_tol=huge,
                                  cold=True, eta=0.1)
    assert (n_warm, st_warm) == (1, 1)
    assert n_cold == 2 and st_cold == 1


def test_mfn_run_max_iter_is_exact():
    X, cpos, cneg = _problem(3, n=200, d=20)
    for m in (1, 2, 3):
        _, n_iter, status, *_ = _run(X, cpos, cneg, lam=1e-3, cg_max_iter=2,
                                     max_iter=m, rel_tol=0.0)
        assert (n_iter, status) == (m, 2)
