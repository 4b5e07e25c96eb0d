"""Independent NumPy/SciPy references used by the tests (never the Cython code)."""
import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize


def l2svm_objective(X, y, w, b, lam, costs=None, s=1.0):
    """lam/2 (||w||^2 + wb^2) + 1/2 sum c max(0, 1 - y (Xw + s wb))^2, with b = s wb."""
    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
    c = np.ones(X.shape[0]) if costs is None else np.asarray(costs, np.float64)
    wb = b / s if s else 0.0
    o = np.asarray(X @ np.asarray(w, np.float64)).ravel() + b
    m = np.maximum(0.0, 1.0 - y * o)
    return 0.5 * lam * (np.dot(w, w) + wb * wb) + 0.5 * np.sum(c * m * m)


def l2svm_lbfgs(X, y, lam, costs=None, s=1.0, fit_intercept=True):
    """Minimise the L2-SVM objective with L-BFGS (float64). Returns (w, b, f)."""
    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
    n, d = X.shape
    c = np.ones(n) if costs is None else np.asarray(costs, np.float64)
    s = s if fit_intercept else 0.0

    def fun(v):
        o = np.asarray(X @ v[:d]).ravel() + s * v[d]
        m = np.maximum(0.0, 1.0 - y * o)
        g = -c * y * m
        grad = lam * v + np.r_[np.asarray(X.T @ g).ravel(), s * g.sum()]
        return 0.5 * lam * v @ v + 0.5 * np.sum(c * m * m), grad

    res = minimize(fun, np.zeros(d + 1), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=20000, ftol=1e-16, gtol=1e-11, maxcor=30))
    return res.x[:d], s * res.x[d], res.fun


def l2svm_gradient(X, y, w, b, lam, costs=None, s=1.0):
    """Gradient of the objective in (w, wb) (b = s wb)."""
    X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
    c = np.ones(X.shape[0]) if costs is None else np.asarray(costs, np.float64)
    wb = b / s if s else 0.0
    o = np.asarray(X @ np.asarray(w, np.float64)).ravel() + b
    m = np.maximum(0.0, 1.0 - y * o)
    g = -c * y * m
    return np.r_[lam * np.asarray(w, np.float64) + np.asarray(X.T @ g).ravel(),
                 lam * wb + s * g.sum()]


def make_classification(n=120, d=15, seed=0, density=None, noise=0.1):
    """Small linearly-separable-ish problem with label noise; optional sparsity."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    if density is not None:
        X *= rng.rand(n, d) < density
    w = rng.randn(d)
    y = np.sign(X @ w + 0.3 + noise * rng.randn(n))
    y[y == 0] = 1
    flip = rng.rand(n) < 0.05
    y[flip] = -y[flip]
    return X, y


def ssl01(y):
    """SVMlin-style targets (+1 / -1 labeled, 0 unlabeled) in the functional
    API's coding: 1 / 0 labeled, -1 unlabeled (NumPy or dask arrays)."""
    return np.where(y == 0, -1, np.where(y > 0, 1, 0))


def mfn_ray_objective(delta, w, wbar, lam, o, obar, cpos, cneg):
    """The L2-SVM objective along the ray w + delta (wbar - w) (outputs
    o + delta (obar - o)), two-sided costs: what the exact line search
    minimises."""
    ww = w + delta * (wbar - w)
    oo = o + delta * (obar - o)
    return (0.5 * lam * ww @ ww
            + 0.5 * np.sum(cpos * np.maximum(0, 1 - oo) ** 2)
            + 0.5 * np.sum(cneg * np.maximum(0, 1 + oo) ** 2))
