"""Feed malformed inputs to every public entry point (run in a subprocess).

Used by ``tests/test_fuzz.py``: a memory error in compiled code kills this
process with a signal, which the test reports. Prints one line per case,
``<entry> <case> <outcome>``; the outcome is ``ok`` (a valid input ran),
``ValueError``/``TypeError`` (refused), or ``UNEXPECTED ...``.
"""
import os
import sys
import tempfile
import warnings

import numpy as np
import scipy.sparse as sp

import semisvm
from semisvm import graph, kernels, solvers

warnings.simplefilter("ignore")
SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 0
rng = np.random.default_rng(SEED)
n, d = 24, 5
X0 = rng.standard_normal((n, d))
X0[np.abs(X0) < 0.5] = 0.0
y01 = (X0[:, 0] + 0.1 * rng.standard_normal(n) > 0).astype(np.int64)
y01[:2], y01[2:4] = 0, 1
ySSL = y01.copy()
ySSL[8:] = -1
yPU = np.where(y01 == 1, 1, -1)
yPU[1::3] = -1
yPU[2] = 1


def malformed_sparse():
    """(name, matrix) pairs that SciPy builds without complaint but are broken."""
    out = []
    for fmt in ("csr", "csc", "coo"):
        base = sp.csr_matrix(X0).asformat(fmt)
        for kind in ("neg", "big", "eq") + (("int64big",) if fmt != "coo" else ()):
            M = base.copy()
            idx = M.indices if fmt != "coo" else M.col
            if kind == "int64big":
                M.indices = M.indices.astype(np.int64)
                M.indptr = M.indptr.astype(np.int64)
                idx = M.indices
            j = int(rng.integers(idx.size))
            bound = M.shape[1] if fmt != "csc" else M.shape[0]
            idx[j] = {"neg": -int(rng.integers(1, 10**6)), "big": 10**6 + j,
                      "eq": bound, "int64big": 2**32 + 1}[kind]
            out.append((f"{fmt}_{kind}_index", M))
        if fmt == "coo":
            M = base.copy()
            M.row[int(rng.integers(M.row.size))] = n + 3
            out.append(("coo_row_index", M))
            continue
        M = base.copy()
        k = int(rng.integers(1, M.indptr.size - 2))
        M.indptr[k] = M.indptr[k + 1] + 2
        out.append((f"{fmt}_indptr_decreasing", M))
        M = base.copy()
        M.indptr[-1] = M.indices.size + 50
        out.append((f"{fmt}_indptr_past_nnz", M))
        M = base.copy()
        M.indptr[0] = 3
        out.append((f"{fmt}_indptr_start", M))
        M = base.copy()
        M.indptr = M.indptr[:-2]
        out.append((f"{fmt}_indptr_short", M))
    M = sp.csr_matrix(X0)
    M.indices[0] = 2**31 - 1
    out.append(("csr_index_int32max", M))
    return out


def dense_cases(tmp):
    out = [("nan", np.where(X0 > 1, np.nan, X0)), ("inf", np.where(X0 > 1, np.inf, X0)),
           ("huge_1e200", X0 * 1e200), ("empty", np.zeros((0, d))),
           ("one_d", X0[:, 0]), ("three_d", X0[None]), ("object", X0.astype(object)),
           ("strings", np.full(X0.shape, "a")), ("complex", X0 + 1j),
           ("fortran", np.asfortranarray(X0)), ("strided", np.repeat(X0, 2, 1)[:, ::2]),
           ("float16", X0.astype(np.float16)), ("int", (X0 * 3).astype(np.int64)),
           ("zero_cols", np.zeros((n, 0)))]
    path = os.path.join(tmp, "X.mmap")
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=X0.shape)
    mm[:] = X0
    mm.flush()
    out.append(("memmap_readonly", np.load(path, mmap_mode="r")))
    out.append(("memmap_rw", np.load(path, mmap_mode="r+")))
    return out


VALID_DENSE = ("fortran", "strided", "int", "float16", "object", "memmap_readonly",
               "memmap_rw")
ESTIMATORS = [
    ("LinearSVM", {}, y01), ("TSVM", {}, ySSL), ("DASVM", {}, ySSL),
    ("LapSVM", {"n_neighbors": 4}, ySSL), ("LapRLS", {"n_neighbors": 4}, ySSL),
    ("PUSVM", {"prior": 0.5}, yPU), ("TVRLS", {"n_neighbors": 4}, ySSL),
    ("TVSVM", {"n_neighbors": 4}, ySSL), ("CheegerRLS", {"n_neighbors": 4}, ySSL),
    ("CheegerSVM", {"n_neighbors": 4}, ySSL),
]


def K_of(X):
    return kernels.kernel_matrix(X, kernel="rbf", gamma=0.2)


W0 = graph.knn_affinity(X0, n_neighbors=4)
L0 = graph.laplacian(W0)
K0 = K_of(X0)


def functions():
    """(name, callable of one matrix argument) for the functional entry points."""
    return [
        ("l2svm_mfn", lambda X: solvers.l2svm_mfn(X, np.where(y01 == 1, 1, -1))),
        ("tsvm", lambda X: solvers.tsvm(X, ySSL, max_iter=5)),
        ("da_s3vm", lambda X: solvers.da_s3vm(X, ySSL, max_outer_iter=3)),
        ("usmo", lambda X: solvers.usmo(X, yPU, prior=0.5, lam=1.0)),
        ("lapsvm_primal:K", lambda K: solvers.lapsvm_primal(K, L0, ySSL)),
        ("lapsvm_primal:L", lambda L: solvers.lapsvm_primal(K0, L, ySSL)),
        ("graph_tv:K", lambda K: solvers.graph_tv(K, W0, ySSL, max_iter=5)),
        ("graph_tv:W", lambda W: solvers.graph_tv(K0, W, ySSL, max_iter=5)),
        ("graph_cheeger:W", lambda W: solvers.graph_cheeger(K0, W, ySSL, max_iter=5)),
        ("kernel_matrix", lambda X: kernels.kernel_matrix(X, kernel="rbf")),
        ("kernel_matrix:Y", lambda Y: kernels.kernel_matrix(X0, Y, kernel="rbf")),
        ("knn_affinity", lambda X: graph.knn_affinity(X, n_neighbors=4)),
        ("laplacian", lambda W: graph.laplacian(W)),
    ]


def run(entry, case, call):
    try:
        out = call()
    except (ValueError, TypeError) as exc:
        print(f"{entry} {case} {type(exc).__name__}: {str(exc)[:90]!r}", flush=True)
        return
    except Exception as exc:  # noqa: BLE001
        print(f"{entry} {case} UNEXPECTED {type(exc).__name__}: {str(exc)[:90]!r}",
              flush=True)
        return
    vals = [getattr(out, "decision", None), out if isinstance(out, np.ndarray) else None]
    finite = all(v is None or not np.issubdtype(np.asarray(v).dtype, np.floating)
                 or np.all(np.isfinite(v)) for v in vals)
    print(f"{entry} {case} ok{'' if finite else ' NONFINITE'}", flush=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        sparse = malformed_sparse()
        dense = dense_cases(tmp)
        good = [("valid_dense", X0), ("valid_csr", sp.csr_matrix(X0))]
        for name, params, y in ESTIMATORS:
            cls = getattr(semisvm, name)
            fitted = cls(**params).fit(X0, y)
            for case, X in good + sparse + dense:
                valid = case.startswith("valid") or case in VALID_DENSE
                run(f"{name}.fit", case + ("" if valid else "!"),
                    lambda X=X: cls(**params).fit(X, y).decision_function(X0))
                run(f"{name}.decision_function", case + ("" if valid else "!"),
                    lambda X=X: fitted.decision_function(X))
                run(f"{name}.predict", case + ("" if valid else "!"),
                    lambda X=X: fitted.predict(X))
        square = [(c, M) for c, M in sparse]
        Ksq = [("valid_K", K0), ("K_nan!", np.where(K0 > 0.9, np.nan, K0)),
               ("K_nonsquare!", K0[:, :-1])]
        for entry, call in functions():
            if entry.endswith((":L", ":W")) or entry == "laplacian":
                base = L0 if entry.endswith(":L") else W0
                cases = [("valid", base)]
                for fmt in ("csr", "csc", "coo"):
                    B = sp.csr_matrix(base).asformat(fmt)
                    B2 = B.copy()
                    (B2.indices if fmt != "coo" else B2.col)[0] = -1
                    B3 = B.copy()
                    (B3.indices if fmt != "coo" else B3.col)[0] = n + 7
                    cases += [(f"{fmt}_neg_index!", B2), (f"{fmt}_big_index!", B3)]
                    if fmt != "coo":
                        B4 = B.copy()
                        B4.indptr[3] = B4.indptr[4] + 1
                        cases.append((f"{fmt}_indptr_decreasing!", B4))
            elif entry.endswith(":K"):
                cases = Ksq + [(c + "!", M) for c, M in square]
            else:
                cases = [(c, X) for c, X in good] + [
                    (c + "!", X) for c, X in sparse] + [
                    (c + ("" if c in VALID_DENSE else "!"), X)
                    for c, X in dense]
            for case, M in cases:
                run(entry, case, lambda M=M, call=call: call(M))
        print("DONE", flush=True)


if __name__ == "__main__":
    main()
