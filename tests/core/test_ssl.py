"""semisvm._core._ssl: TSVM pair switching and DA's balance root finder."""
import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit, xlogy

from semisvm._core import _ssl


def _h(o):
    """Loss change of switching one row's label from +1 to -1."""
    return np.maximum(0, 1 + o) ** 2 - np.maximum(0, 1 - o) ** 2


@pytest.mark.parametrize("T", [10.0, 1.0, 1e-2, 1e-4])
@pytest.mark.parametrize("r", [0.0517, 0.3037, 0.5009, 0.9003])
def test_balance_root_matches_brentq(T, r, seed):
    # r u is not an integer, so the root is unique even when T is so small
    # that mean(p) is nearly a step function of nu
    g = np.random.default_rng(seed).normal(scale=2.0, size=500)
    nu, resid, _n_iter, status = _ssl._balance_py(g, T, r)
    assert status in (0, 1)
    mean_p = np.mean(expit((nu - g) / T))
    assert abs(mean_p - r) < 1e-10
    assert abs(resid) < 1e-10

    def f(v):
        return np.mean(expit((v - g) / T)) - r

    ref = brentq(f, g.min() - 50 * T, g.max() + 50 * T, xtol=1e-15, rtol=1e-15)
    assert nu == pytest.approx(ref, abs=1e-9 * max(1.0, T))


def test_balance_root_from_bad_start_and_ties():
    # all g equal: p_j = r for every j at nu = g + T logit(r)
    g = np.full(7, 0.3)
    nu, _resid, _, status = _ssl._balance_py(g, 0.5, 0.2, nu0=1e6)
    assert status in (0, 1)
    assert nu == pytest.approx(0.3 + 0.5 * np.log(0.2 / 0.8), abs=1e-12)


def test_balance_rejects_bad_arguments():
    with pytest.raises(ValueError):
        _ssl._balance_py(np.zeros(3), 1.0, 1.0)
    with pytest.raises(ValueError):
        _ssl._balance_py(np.zeros(3), 0.0, 0.5)


def test_da_pstep_probabilities_kl_entropy(dtype):
    rng = np.random.default_rng(3)
    n, u, lam_u, T, r = 40, 25, 0.7, 1.0, 0.4
    o = rng.normal(size=n).astype(dtype)
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    z_old = rng.normal(size=u)
    q = expit(-z_old)
    z, p = z_old.copy(), np.zeros(u)
    cpos, cneg = np.zeros(n, dtype), np.zeros(n, dtype)
    cu = lam_u / u
    nu, kl, ent, resid, _, status = _ssl.da_pstep(
        o, idx_u, lam_u, T, r, z, p, cu, cpos, cneg)
    assert status in (0, 1)
    ou = o[idx_u].astype(np.float64)
    g = lam_u * (np.maximum(0, 1 - ou) ** 2 - np.maximum(0, 1 + ou) ** 2)
    np.testing.assert_allclose(p, 1 / (1 + np.exp((g - nu) / T)), rtol=1e-12)
    assert abs(p.mean() - r) < 1e-10 and abs(resid) < 1e-10
    kl_ref = np.mean(xlogy(p, p / q) + xlogy(1 - p, (1 - p) / (1 - q)))
    ent_ref = -np.mean(xlogy(p, p) + xlogy(1 - p, 1 - p))
    assert kl == pytest.approx(kl_ref, rel=1e-9)
    assert ent == pytest.approx(ent_ref, rel=1e-9)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(cpos[idx_u], cu * p, rtol=rtol)
    np.testing.assert_allclose(cneg[idx_u], cu * (1 - p), rtol=rtol)
    mask = np.ones(n, bool)
    mask[idx_u] = False
    assert not cpos[mask].any() and not cneg[mask].any()


def test_da_pstep_saturated_probabilities_stay_finite():
    o = np.array([5.0, -5.0, 0.0, 0.01])
    idx_u = np.arange(4, dtype=np.int32)
    z, p = np.zeros(4), np.zeros(4)
    c = np.zeros(4)
    _, kl, ent, _resid, _, _ = _ssl.da_pstep(o, idx_u, 1.0, 1e-6, 0.5, z, p,
                                            0.25, c, c.copy())
    assert np.isfinite([kl, ent]).all() and np.all((p >= 0) & (p <= 1))
    assert abs(p.mean() - 0.5) < 1e-8
    # and again from saturated logits (q in {0, 1}) to the opposite p:
    # KL is large but finite
    _, kl2, _, _, _, _ = _ssl.da_pstep(-o, idx_u, 1.0, 1e-6, 0.5,
                                       z, p, 0.25, c, c.copy())
    assert np.isfinite(kl2) and kl2 > 1


def _brute_switch(o, yu, S):
    """Reference: greedily take the best pair S times (by objective change)."""
    yu = yu.copy()
    n_sw = 0
    for _ in range(S):
        pos, neg = np.flatnonzero(yu > 0), np.flatnonzero(yu < 0)
        if not len(pos) or not len(neg):
            break
        gain = _h(o[pos])[:, None] - _h(o[neg])[None, :]
        i, j = np.unravel_index(np.argmin(gain), gain.shape)
        if gain[i, j] >= 0:
            break
        yu[pos[i]], yu[neg[j]] = -1, 1
        n_sw += 1
    return yu, n_sw


@pytest.mark.parametrize("S", [1, 3, 1000])
def test_tsvm_switch_matches_greedy_reference(S, seed, dtype):
    rng = np.random.default_rng(seed)
    n, u = 50, 30
    o = (rng.normal(size=n) * 1.5).astype(dtype)
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    yu = np.where(rng.random(u) < 0.4, 1, -1).astype(np.int8)
    cpos, cneg = np.zeros(n, dtype), np.zeros(n, dtype)
    ref, n_ref = _brute_switch(o[idx_u].astype(np.float64), yu, S)
    y_new = yu.copy()
    k = _ssl.tsvm_switch(o, idx_u, y_new, S, 0.5, cpos, cneg)
    assert k == n_ref
    np.testing.assert_array_equal(y_new, ref)
    assert (y_new > 0).sum() == (yu > 0).sum()        # balance kept
    changed = idx_u[y_new != yu]
    np.testing.assert_array_equal(cpos[changed], np.where(y_new[y_new != yu] > 0, 0.5, 0))
    np.testing.assert_array_equal(cneg[changed], np.where(y_new[y_new != yu] < 0, 0.5, 0))


def test_tsvm_switch_none_when_labels_are_a_threshold():
    o = np.array([-2.0, -0.5, 0.1, 0.2, 3.0])
    yu = np.array([-1, -1, 1, 1, 1], dtype=np.int8)
    c = np.zeros(5)
    assert _ssl.tsvm_switch(o, np.arange(5, dtype=np.int32), yu, 10, 1.0, c,
                            c.copy()) == 0


def test_tsvm_switch_rejects_bad_arguments():
    o, c = np.zeros(3), np.zeros(3)
    with pytest.raises(ValueError, match="S must be"):
        _ssl.tsvm_switch(o, np.arange(3, dtype=np.int32), np.ones(3, np.int8),
                         0, 1.0, c, c.copy())
    with pytest.raises(ValueError, match="out of range"):
        _ssl.tsvm_switch(o, np.array([0, 5], dtype=np.int32), np.ones(2, np.int8),
                         1, 1.0, c, c.copy())


@pytest.mark.parametrize("omega", [0.5, 1.5])
def test_da_pstep_over_relaxed(omega):
    """omega: z = (1 - omega) z_old + omega (g - nu) / T with mean(p) = r,
    and a fixed point of the plain step is one of the relaxed step."""
    rng = np.random.default_rng(4)
    n, u, lam_u, T, r = 50, 30, 1.0, 0.3, 0.35
    o = rng.normal(size=n)
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    z_old = rng.normal(size=u)
    z, p = z_old.copy(), np.zeros(u)
    cpos, cneg = np.zeros(n), np.zeros(n)
    nu, kl, _, resid, _, status = _ssl.da_pstep(
        o, idx_u, lam_u, T, r, z, p, 1.0 / u, cpos, cneg, omega=omega)
    assert status in (0, 1) and abs(p.mean() - r) < 1e-10
    ou = o[idx_u]
    g = lam_u * (np.maximum(0, 1 - ou) ** 2 - np.maximum(0, 1 + ou) ** 2)
    np.testing.assert_allclose(z, (1 - omega) * z_old + omega * (g - nu) / T,
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(p, expit(-z), rtol=1e-12)
    q = expit(-z_old)
    kl_ref = np.mean(xlogy(p, p / q) + xlogy(1 - p, (1 - p) / (1 - q)))
    assert kl == pytest.approx(kl_ref, rel=1e-9)
    # from the plain step's answer the relaxed step stays there (same nu)
    z1, p1 = z_old.copy(), np.zeros(u)
    nu1, *_ = _ssl.da_pstep(o, idx_u, lam_u, T, r, z1, p1, 1.0 / u, cpos, cneg)
    z2, p2 = z1.copy(), np.zeros(u)
    nu2, kl2, *_ = _ssl.da_pstep(o, idx_u, lam_u, T, r, z2, p2, 1.0 / u, cpos,
                                 cneg, nu0=nu1, omega=omega)
    np.testing.assert_allclose(z2, z1, atol=1e-9)
    assert nu2 == pytest.approx(nu1, abs=1e-9) and kl2 < 1e-15
    with pytest.raises(ValueError, match="omega"):
        _ssl.da_pstep(o, idx_u, lam_u, T, r, z, p, 1.0 / u, cpos, cneg,
                      omega=2.0)


# --- stopping rules and bounds pinned directly -----------------------------

def test_balance_root_iteration_limit_and_tolerance_are_exact():
    g = np.random.default_rng(4).normal(scale=2.0, size=300)
    T, r = 0.3, 0.27
    # max_iter = k: k evaluations, status 2 (max_iter) until the tolerance is met
    resid = []
    for k in range(1, 6):
        nu, res, n_iter, status = _ssl._balance_py(g, T, r, tol=1e-300, max_iter=k)
        assert (n_iter, status) == (k, 2)
        resid.append(abs(res))
    # a tolerance between two consecutive residuals stops at exactly that step
    for k in (2, 4):
        if resid[k - 2] > resid[k - 1] > 0:
            tol = np.sqrt(resid[k - 2] * resid[k - 1])
            _, res, n_iter, status = _ssl._balance_py(g, T, r, tol=tol, max_iter=50)
            assert (n_iter, status) == (k, 0) and abs(res) <= tol


def test_balance_root_stalls_on_a_step_function():
    # T tiny: mean(p) jumps from 0.5 to 0.6 at nu = 5 (0.55 at 5 itself),
    # so no nu meets the tolerance and the bracket shrinks to adjacent
    # floats around 5: status 1 (stalled), well before max_iter
    g = np.arange(10.0)
    nu, res, n_iter, status = _ssl._balance_py(g, 1e-300, 0.57, tol=1e-3,
                                               max_iter=5000)
    assert status == 1 and n_iter < 5000
    assert nu == pytest.approx(5.0, abs=1e-12) and abs(res) >= 0.02 - 1e-12


def test_tsvm_switch_needs_a_strict_gain():
    # a +1 row and a -1 row with equal outputs: swapping them changes nothing,
    # so it is not a switch (k = 0); a slightly lower +1 output is one
    idx_u = np.arange(2, dtype=np.int32)
    for o_pos, expect in ((0.5, 0), (0.4999, 1)):
        o = np.array([o_pos, 0.5])
        yu = np.array([1, -1], np.int8)
        c = np.zeros(2)
        assert _ssl.tsvm_switch(o, idx_u, yu, 5, 1.0, c, c.copy()) == expect


def test_tsvm_switch_takes_at_most_S_pairs():
    o = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    yu = np.array([1, 1, 1, -1, -1, -1], np.int8)      # every pair lowers F
    idx_u = np.arange(6, dtype=np.int32)
    for S in (1, 2, 3, 10):
        y = yu.copy()
        c = np.zeros(6)
        assert _ssl.tsvm_switch(o, idx_u, y, S, 1.0, c, c.copy()) == min(S, 3)
        assert (y > 0).sum() == 3


def test_tsvm_switch_ties_take_the_lowest_index_first():
    # three +1 rows with equal outputs below one -1 row: the one pair switched
    # is the lowest-index +1 row (a fixed order, so the same input always
    # gives the same labels)
    o = np.array([0.9, 0.2, 0.2, 0.2, 0.9, -0.1])
    idx_u = np.arange(6, dtype=np.int32)
    yu = np.array([-1, 1, 1, 1, -1, -1], np.int8)
    c = np.zeros(6)
    assert _ssl.tsvm_switch(o, idx_u, yu, 1, 1.0, c, c.copy()) == 1
    np.testing.assert_array_equal(yu, [1, -1, 1, 1, -1, -1])


def test_tsvm_switch_stops_at_a_tied_pair():
    # the first pair (0.1, 0.9) lowers the objective, the second (0.5, 0.5)
    # would leave it unchanged: one switch, not two
    o = np.array([0.1, 0.5, 0.9, 0.5])
    yu = np.array([1, 1, -1, -1], np.int8)
    c = np.zeros(4)
    assert _ssl.tsvm_switch(o, np.arange(4, dtype=np.int32), yu, 5, 1.0, c,
                            c.copy()) == 1
    np.testing.assert_array_equal(yu, [-1, 1, 1, -1])


def test_pstep_work_buffer_gives_the_same_bits():
    # the kept exps of the root finder and softplus of the previous logits
    # save transcendental calls only: the same z, p, costs and statistics
    from semisvm._core._ssl import da_pstep
    rng = np.random.RandomState(7)
    n, u = 60, 50
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    runs = []
    for work in (None, np.empty(3 * u)):
        z = np.full(u, 0.3)
        p = np.empty(u)
        cpos, cneg = np.zeros(n), np.zeros(n)
        outs = []
        nu = 0.0
        for step in range(4):
            o = np.random.RandomState(step).randn(n)
            out = da_pstep(o, idx_u, 1.0, 0.5 / (step + 1), 0.4, z, p, 0.02,
                           cpos, cneg, nu0=nu, omega=1.0 if step == 0 else 1.5,
                           work=work, sp_valid=step > 0)
            nu = out[0]
            outs.append((out, z.tobytes(), p.tobytes(), cpos.tobytes(),
                         cneg.tobytes()))
        runs.append(outs)
    assert runs[0] == runs[1]


# --- fixed row blocks on threads --------------------------------------------

@pytest.fixture
def small_blocks():
    """Blocks of 64 unlabeled rows and pairwise leaves of 128 entries (many
    blocks on small problems); restored after the test."""
    old = _ssl._set_block(64)
    old_leaf = _ssl._set_pw_leaf(128)
    yield 64
    _ssl._set_block(old)
    _ssl._set_pw_leaf(old_leaf)


def _switch_case(seed, n=1500, u=1300):
    rng = np.random.default_rng(seed)
    o = rng.normal(size=n) * 1.5
    # ties across blocks: equal outputs in many rows
    o[rng.choice(n, n // 8, replace=False)] = 0.25
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    yu = np.where(rng.random(u) < 0.45, 1, -1).astype(np.int8)
    return o, idx_u, yu


@pytest.mark.parametrize("S", [1, 7, 100, 10000])
def test_tsvm_switch_blocks_same_answer_as_one_pass(S, small_blocks, dtype):
    # the blocks' sorted candidates merged: the pairs one sort of all
    # candidates gives, for any block size and thread count
    o, idx_u, yu = _switch_case(S)
    o = o.astype(dtype)
    outs = []
    for block, nt in ((100000, 1), (64, 1), (64, 2), (64, 3), (64, 8),
                      (1, 3)):
        _ssl._set_block(block)
        y = yu.copy()
        cpos, cneg = np.zeros(o.size, dtype), np.zeros(o.size, dtype)
        work = np.empty(_ssl.switch_work_len(idx_u.size, S), np.uint8)
        k = _ssl.tsvm_switch(o, idx_u, y, S, 0.5, cpos, cneg, work=work,
                             n_threads=nt)
        outs.append((k, y.tobytes(), cpos.tobytes(), cneg.tobytes()))
    assert all(x == outs[0] for x in outs)
    assert outs[0][0] == min(S, outs[0][0]) and outs[0][0] > 0
    if S <= 7:
        ref, n_ref = _brute_switch(o[idx_u].astype(np.float64), yu, S)
        assert outs[0][0] == n_ref
        np.testing.assert_array_equal(np.frombuffer(outs[0][1], np.int8), ref)


def test_tsvm_switch_rejects_a_short_work_buffer():
    o, idx_u, yu = _switch_case(0, n=50, u=30)
    c = np.zeros(50)
    need = _ssl.switch_work_len(30, 5)
    with pytest.raises(ValueError, match="work needs"):
        _ssl.tsvm_switch(o, idx_u, yu, 5, 1.0, c, c.copy(),
                         work=np.empty(need - 1, np.uint8))
    with pytest.raises(ValueError, match="n_threads"):
        _ssl.tsvm_switch(o, idx_u, yu, 5, 1.0, c, c.copy(), n_threads=0)


def _pstep_runs(o, idx_u, nt, steps=4, work=True):
    u = idx_u.size
    z, p = np.full(u, 0.3), np.empty(u)
    cpos, cneg = np.zeros(o.size, o.dtype), np.zeros(o.size, o.dtype)
    buf = np.empty(4 * u) if work else None
    outs, nu = [], 0.0
    for step in range(steps):
        oo = (o * (1 + 0.3 * step)).astype(o.dtype)
        out = _ssl.da_pstep(oo, idx_u, 1.0, 0.5 / (step + 1), 0.37, z, p,
                            1.0 / u, cpos, cneg, nu0=nu,
                            omega=1.0 if step == 0 else 1.5, work=buf,
                            sp_valid=step > 0 and work, n_threads=nt)
        nu = out[0]
        outs.append((out, z.copy(), p.copy(), cpos.copy(), cneg.copy()))
    return outs


def _same_bits(a, b):
    for (oa, *xa), (ob, *xb) in zip(a, b):
        assert oa == ob
        for u, v in zip(xa, xb):
            assert u.tobytes() == v.tobytes()


def test_da_pstep_blocks_same_bits_for_any_n_threads(small_blocks, dtype):
    rng = np.random.default_rng(5)
    n, u = 1200, 1000
    o = rng.normal(size=n).astype(dtype)
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    runs = [_pstep_runs(o, idx_u, nt) for nt in (1, 2, 3, 8)]
    for other in runs[1:]:
        _same_bits(runs[0], other)
    # the 4 u work buffer (g kept in it) and no buffer: the same bits
    _same_bits(runs[0], _pstep_runs(o, idx_u, 3, work=False))
    # against one block (the row-order sums): the same p to rounding
    _ssl._set_block(10 ** 6)
    one = _pstep_runs(o, idx_u, 1)
    for (oa, za, pa, *_), (ob, zb, pb, *_) in zip(runs[0], one):
        assert oa[0] == pytest.approx(ob[0], rel=1e-12, abs=1e-12)   # nu
        assert oa[1] == pytest.approx(ob[1], rel=1e-9, abs=1e-15)    # KL
        assert oa[2] == pytest.approx(ob[2], rel=1e-12)              # entropy
        assert abs(oa[3]) < 1e-10 and oa[5] == ob[5]
        np.testing.assert_allclose(pa, pb, rtol=1e-10, atol=1e-15)
    # and the mean(p) = r balance with each block's exps kept
    assert abs(runs[0][-1][2].mean() - 0.37) < 1e-10


def test_da_pstep_one_block_is_the_row_order_sum(small_blocks):
    # at most BLOCK unlabeled rows: one block, the sums in row order (the
    # former single-pass arithmetic): mean(p) as a plain loop adds it
    rng = np.random.default_rng(6)
    u = 64
    o = rng.normal(size=u)
    idx_u = np.arange(u, dtype=np.int32)
    z, p = np.zeros(u), np.empty(u)
    c = np.zeros(u)
    out = _ssl.da_pstep(o, idx_u, 1.0, 0.4, 0.3, z, p, 1.0 / u, c, c.copy(),
                        n_threads=4)
    s = 0.0
    for v in p:
        s += v
    assert out[3] == s / u - 0.3


@pytest.mark.parametrize("u", [1, 127, 129, 1000, 4099])
def test_balance_root_blocks_same_bits_for_any_n_threads(u, small_blocks):
    g = np.random.default_rng(u).normal(scale=2.0, size=u)
    res = [_ssl._balance_py(g, 0.3, 0.41, n_threads=k) for k in (1, 2, 3, 8)]
    assert all(r == res[0] for r in res)
    assert res[0][3] in (0, 1)
    if u > 1:
        assert np.mean(expit((res[0][0] - g) / 0.3)) == pytest.approx(0.41, abs=1e-10)


@pytest.mark.parametrize("n", [0, 1, 127, 128, 129, 1000, 5001, 70001])
def test_parallel_pairwise_sum_is_numpy_sum(n, small_blocks):
    rng = np.random.default_rng(n)
    # mixed magnitudes: the order of the additions shows in the bits
    a = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
    ref = np.sum(a)
    for k in (1, 2, 3, 8):
        assert _ssl._np_sum_par(a, k) == ref
    _ssl._set_pw_leaf(8192)
    assert _ssl._np_sum_par(a, 3) == ref
    with pytest.raises(ValueError, match="leaf size"):
        _ssl._set_pw_leaf(64)


@pytest.mark.parametrize("unlabeled", [0, 1, 2])
def test_objective_sums_blocks_same_bits(unlabeled, small_blocks, dtype):
    rng = np.random.default_rng(unlabeled)
    n, l, D = 3000, 200, 700
    o = rng.normal(size=n).astype(dtype)
    w = rng.normal(size=D).astype(dtype)
    perm = rng.permutation(n)
    idx_l = np.sort(perm[:l]).astype(np.intp)
    idx_u = np.sort(perm[l:]).astype(np.int32)
    y_l = np.where(rng.random(l) < 0.5, 1.0, -1.0)
    c_l = rng.random(l)
    yu = np.where(rng.random(n - l) < 0.5, 1, -1).astype(np.int8)
    res = [_ssl.objective_sums(w, o, idx_l, y_l, c_l, idx_u, yu, unlabeled,
                               n_threads=k) for k in (1, 2, 3, 8)]
    assert all(r == res[0] for r in res)
    w64, o64 = w.astype(np.float64), o.astype(np.float64)
    assert res[0][0] == np.sum(w64 * w64)
    m = np.maximum(0.0, 1.0 - y_l * o64[idx_l])
    assert res[0][1] == np.sum(c_l * m * m)
    ou = o64[idx_u]
    if unlabeled == 1:
        m = np.maximum(0.0, 1.0 - np.abs(ou))
        assert res[0][2] == np.sum(m * m)
    elif unlabeled == 2:
        m = np.maximum(0.0, 1.0 - yu * ou)
        assert res[0][2] == np.sum(m * m)
    with pytest.raises(ValueError, match="idx_u"):
        bad = idx_u.copy()
        bad[-1] = n
        _ssl.objective_sums(w, o, idx_l, y_l, c_l, bad, yu, unlabeled,
                            n_threads=3)


def test_set_label_costs_blocks(small_blocks, dtype):
    rng = np.random.default_rng(8)
    n, u = 900, 700
    idx_u = np.sort(rng.choice(n, u, replace=False)).astype(np.int32)
    yu = np.where(rng.random(u) < 0.5, 1, -1).astype(np.int8)
    for k in (1, 3):
        cpos, cneg = np.full(n, 7.0, dtype), np.full(n, 7.0, dtype)
        _ssl.set_label_costs(idx_u, yu, 0.1, cpos, cneg, n_threads=k)
        np.testing.assert_array_equal(cpos[idx_u], np.where(yu > 0, dtype(0.1), 0))
        np.testing.assert_array_equal(cneg[idx_u], np.where(yu < 0, dtype(0.1), 0))
        mask = np.ones(n, bool)
        mask[idx_u] = False
        assert (cpos[mask] == 7).all() and (cneg[mask] == 7).all()
    bad = idx_u.copy()
    bad[300] = -1
    with pytest.raises(ValueError, match="out of range"):
        _ssl.set_label_costs(bad, yu, 0.1, cpos, cneg, n_threads=3)


@pytest.mark.parametrize("n", [0, 1, 1000, 70001])
def test_copy_par_is_a_copy(n, small_blocks, dtype):
    a = np.random.default_rng(n).normal(size=n).astype(dtype)
    for k in (1, 2, 3, 8):
        b = _ssl.copy_par(a, k)
        assert b.dtype == a.dtype and b.tobytes() == a.tobytes()
        assert not np.shares_memory(a, b)
    with pytest.raises(ValueError, match="contiguous"):
        _ssl.copy_par(np.zeros((4, 4))[:, 0], 2)
