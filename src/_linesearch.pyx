# SPDX-License-Identifier: BSD-3-Clause
"""Exact line search for L2-SVM-MFN (Sindhwani & Keerthi 2006, §2.2).

Along w(delta) = w + delta (wbar - w), with outputs o(delta) = o + delta d
(d = obar - o), the objective

    phi(delta) = lam/2 ||w(delta)||^2
                 + 1/2 sum_i [cpos_i max(0, 1 - o_i(delta))^2
                              + cneg_i max(0, 1 + o_i(delta))^2]

is convex and piecewise quadratic; its slope L + delta R is piecewise linear
and changes only where a loss term enters or leaves (o_i(delta) = +-1). The
break points are sorted and scanned until the slope's root lies before the
next break point. The two-sided costs cover the supervised loss (cneg = 0
for y = +1), TSVM's temporary labels and DA's probabilistic labels alike.
"""

import numpy as np

from cython cimport floating
from cython.parallel cimport prange


cdef inline double _slope(double delta, double L, double R, const Event *events,
                          Py_ssize_t n_ev) noexcept nogil:
    """phi'(delta): the slope at 0 plus every break point passed before delta."""
    cdef Py_ssize_t j
    for j in range(n_ev):
        if events[j].delta < delta:
            L += events[j].dL
            R += events[j].dR
    return L + delta * R


cdef Py_ssize_t collect_events(Py_ssize_t n, const floating *o,
                               const floating *obar, const floating *cpos,
                               const floating *cneg, Event *events,
                               double *L_out, double *R_out) noexcept nogil:
    """Loss part of phi'(0) = L + 0 R added to ``L_out``/``R_out`` (term by
    term, in row order),
    and every break point of the rows 0..n-1 into ``events`` (>= 2n slots);
    returns their number. Keys are 2 * row + term (row local to this call)."""
    cdef Py_ssize_t i, n_ev = 0
    cdef double L = L_out[0], R = R_out[0], di, oi, c
    for i in range(n):
        oi = o[i]
        di = obar[i] - oi
        # term cpos (o - 1)^2, active while o < 1
        c = cpos[i]
        if c > 0:
            if oi < 1:
                L += c * (oi - 1) * di
                R += c * di * di
                if di > 0:       # leaves when o(delta) reaches 1
                    events[n_ev].delta = (1 - oi) / di
                    events[n_ev].dL = -c * (oi - 1) * di
                    events[n_ev].dR = -c * di * di
                    events[n_ev].key = 2 * i
                    n_ev += 1
            elif di < 0:         # enters when o(delta) falls below 1
                events[n_ev].delta = (1 - oi) / di
                events[n_ev].dL = c * (oi - 1) * di
                events[n_ev].dR = c * di * di
                events[n_ev].key = 2 * i
                n_ev += 1
        # term cneg (o + 1)^2, active while o > -1
        c = cneg[i]
        if c > 0:
            if oi > -1:
                L += c * (oi + 1) * di
                R += c * di * di
                if di < 0:       # leaves when o(delta) reaches -1
                    events[n_ev].delta = (-1 - oi) / di
                    events[n_ev].dL = -c * (oi + 1) * di
                    events[n_ev].dR = -c * di * di
                    events[n_ev].key = 2 * i + 1
                    n_ev += 1
            elif di > 0:         # enters when o(delta) rises above -1
                events[n_ev].delta = (-1 - oi) / di
                events[n_ev].dL = c * (oi + 1) * di
                events[n_ev].dR = c * di * di
                events[n_ev].key = 2 * i + 1
                n_ev += 1
    L_out[0] = L
    R_out[0] = R
    return n_ev


cdef void _chunk_slope(double hi, const Event *events, Py_ssize_t n_ev,
                       double *L, double *R) noexcept nogil:
    """The break points' (dL, dR) below ``hi``, added up in order into L, R."""
    cdef Py_ssize_t j
    cdef double sl = 0, sr = 0
    for j in range(n_ev):
        if events[j].delta < hi:
            sl += events[j].dL
            sr += events[j].dR
    L[0] = sl
    R[0] = sr


cdef Py_ssize_t _chunk_keep(double hi, Event *events,
                            Py_ssize_t n_ev) noexcept nogil:
    """Keep events[:n_ev] below ``hi`` at the front, in order; their number."""
    cdef Py_ssize_t j, m = 0
    for j in range(n_ev):
        if events[j].delta < hi:
            events[m] = events[j]
            m += 1
    return m


cdef double line_search(Py_ssize_t D, double lam, const floating *w,
                        const floating *wbar, Py_ssize_t n,
                        const floating *o, const floating *obar,
                        const floating *cpos, const floating *cneg,
                        Event *events, int n_threads=1) noexcept nogil:
    """Return argmin_{delta >= 0} phi(delta). ``events`` holds >= 2n slots.

    Above ROW_CHUNK rows the passes over the rows (the break points, the
    slope at a trial step, the break points kept and their sort) run chunk
    by chunk of :func:`row_chunks`' fixed partition, on ``n_threads``
    threads, each chunk's break points in its own part of ``events`` (2 per
    row), the chunks' sums added in chunk order, the root scanned over the
    merge of the chunks' sorted runs: the same bits for any thread count.
    """
    cdef Py_ssize_t j, m, n_ev = 0, cs, nc, c, c0, c1
    cdef double L = 0, R = 0, hi, sl, sr
    cdef double wd
    cdef double pl[MAX_CHUNKS]
    cdef double pr[MAX_CHUNKS]
    cdef Py_ssize_t cnt[MAX_CHUNKS]
    cdef int nt = n_threads

    # regulariser part of the slope: lam (w + delta d_w) . d_w
    for j in range(D):
        wd = wbar[j] - w[j]
        L += lam * w[j] * wd
        R += lam * wd * wd
    nc = row_chunks(n, &cs)
    if nc == 1:
        # loss part and the break points
        n_ev = collect_events(n, o, obar, cpos, cneg, events, &L, &R)

        # phi'(0) = L >= 0: no descent along d (already optimal on this ray)
        if L >= 0 or R <= 0:
            return 0.0
        # phi' is non-decreasing: find hi with phi'(hi) >= 0 (usually hi = 1,
        # the Newton point); only break points below hi can matter, so only
        # those are sorted (a few percent of them near convergence).
        hi = 1.0
        while _slope(hi, L, R, events, n_ev) < 0 and hi < 1e30:
            hi *= 2
        m = 0
        for j in range(n_ev):
            if events[j].delta < hi:
                events[m] = events[j]
                m += 1
        return sorted_root(events, m, L, R)

    # the same steps, chunk by chunk: chunk c's break points in
    # events[2 c0 : 2 c1] (keys made global), its loss sums in pl/pr[c]
    if nt < 1:
        nt = 1
    for c in prange(nc, schedule="dynamic", chunksize=1, num_threads=nt):
        c0 = c * cs
        c1 = c0 + cs
        if c1 > n:
            c1 = n
        pl[c] = 0
        pr[c] = 0
        cnt[c] = collect_events(c1 - c0, o + c0, obar + c0, cpos + c0,
                                cneg + c0, events + 2 * c0, &pl[c], &pr[c])
        for j in range(2 * c0, 2 * c0 + cnt[c]):
            events[j].key += 2 * c0
    for c in range(nc):
        L += pl[c]
        R += pr[c]
    if L >= 0 or R <= 0:
        return 0.0
    hi = 1.0
    while hi < 1e30:
        for c in prange(nc, schedule="dynamic", chunksize=1, num_threads=nt):
            _chunk_slope(hi, events + 2 * c * cs, cnt[c], &pl[c], &pr[c])
        sl = L
        sr = R
        for c in range(nc):
            sl += pl[c]
            sr += pr[c]
        if not sl + hi * sr < 0:
            # (a NaN slope stops here too, as the one-chunk loop's test)
            break
        hi *= 2
    # each chunk's break points below hi, sorted in place (in parallel);
    # then sorted_root's scan over their merge (a heap of the chunks' heads):
    # the one order of ev_less, hence the bits of one sort of them all
    for c in prange(nc, schedule="dynamic", chunksize=1, num_threads=nt):
        cnt[c] = _chunk_keep(hi, events + 2 * c * cs, cnt[c])
        sort_events(events + 2 * c * cs, cnt[c])
    return _merged_root(events, cs, cnt, nc, L, R)


cdef inline bint _head_less(const Event *events, Py_ssize_t cs,
                            const Py_ssize_t *pos, Py_ssize_t a,
                            Py_ssize_t b) noexcept nogil:
    return ev_less(&events[2 * a * cs + pos[a]], &events[2 * b * cs + pos[b]])


cdef double _merged_root(const Event *events, Py_ssize_t cs,
                         const Py_ssize_t *cnt, Py_ssize_t nc, double L,
                         double R) noexcept nogil:
    """:func:`sorted_root` over the merge of nc sorted runs (run c: cnt[c]
    events from events[2 c cs]), read in ev_less order through a binary heap
    of the runs' heads."""
    cdef Py_ssize_t heap[MAX_CHUNKS]
    cdef Py_ssize_t pos[MAX_CHUNKS]
    cdef Py_ssize_t h = 0, c, i, child, top
    cdef const Event *e
    cdef double root
    for c in range(nc):
        pos[c] = 0
        if cnt[c] > 0:
            # sift up
            i = h
            heap[h] = c
            h += 1
            while i > 0 and _head_less(events, cs, pos, heap[i],
                                       heap[(i - 1) // 2]):
                heap[i], heap[(i - 1) // 2] = heap[(i - 1) // 2], heap[i]
                i = (i - 1) // 2
    root = -L / R
    while h > 0:
        top = heap[0]
        e = &events[2 * top * cs + pos[top]]
        if e.delta >= root:
            break
        L += e.dL
        R += e.dR
        if R <= 0:
            return e.delta
        root = -L / R
        # the run's next head, or the run leaves the heap; then sift down
        pos[top] += 1
        if pos[top] == cnt[top]:
            h -= 1
            heap[0] = heap[h]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= h:
                break
            if child + 1 < h and _head_less(events, cs, pos, heap[child + 1],
                                            heap[child]):
                child += 1
            if not _head_less(events, cs, pos, heap[child], heap[i]):
                break
            heap[i], heap[child] = heap[child], heap[i]
            i = child
    return root


ROW_CHUNK_ROWS = ROW_CHUNK


def _row_chunks_py(Py_ssize_t n):
    """Test hook: (chunks, rows per chunk) of a pass over n rows."""
    cdef Py_ssize_t cs
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    return nc, cs


def _line_search_py(const floating[::1] w, const floating[::1] wbar, double lam,
                    const floating[::1] o, const floating[::1] obar,
                    const floating[::1] cpos, const floating[::1] cneg):
    """Test hook: exact minimiser of phi(delta) over delta >= 0."""
    cdef Py_ssize_t n = o.shape[0], D = w.shape[0]
    if wbar.shape[0] != D or obar.shape[0] != n or cpos.shape[0] != n \
            or cneg.shape[0] != n:
        raise ValueError("inconsistent lengths")
    buf = np.empty(max(2 * n, 1) * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] raw = buf
    cdef double out
    with nogil:
        out = line_search(D, lam, &w[0], &wbar[0], n, &o[0], &obar[0],
                          &cpos[0], &cneg[0], <Event *> &raw[0])
    return out


def _sort_events_py(const double[::1] delta, const Py_ssize_t[::1] key,
                    depth=None):
    """Test hook: the order of (delta, key) pairs after :func:`sort_events`
    (returns the keys, sorted); ``depth``: the introsort's depth instead
    (0: heapsort above 16 entries)."""
    cdef Py_ssize_t m = delta.shape[0], j
    cdef int dep = -1 if depth is None else int(depth)
    if key.shape[0] != m:
        raise ValueError("delta and key need the same length")
    buf = np.zeros(max(m, 1) * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] raw = buf
    cdef Event *ev = <Event *> &raw[0]
    for j in range(m):
        ev[j].delta = delta[j]
        ev[j].key = key[j]
    with nogil:
        if dep < 0:
            sort_events(ev, m)
        else:
            _ev_introsort(ev, m, dep)
    out = np.empty(m, dtype=np.intp)
    for j in range(m):
        out[j] = ev[j].key
    return out
