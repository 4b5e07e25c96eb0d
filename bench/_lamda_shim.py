"""Import LAMDA-SSL's LapSVM (a peer for bench/bench_manifold_paper.py) without torch.

LAMDA-SSL 1.0.2 (PyPI ``LAMDA-SSL``) requires torch, torchvision, torchtext
and torch-geometric, but its LapSVM (``LAMDA_SSL.Algorithm.Classification.
LapSVM``: Belkin et al.'s dual, a dense ``np.linalg.inv`` of the n x n
matrix ``2 gamma_A I + 2 gamma_I / n^2 L K`` and SciPy's SLSQP on the l x l
dual) uses none of them: only ``LAMDA_SSL.utils`` imports torch at module
level, for other algorithms. Install it without dependencies,

    pip install --no-deps LAMDA-SSL==1.0.2

and :func:`load_lapsvm` registers empty stand-ins for the few torch names
imported at module level before importing it. Compatibility with current
scikit-learn: ``LapSVM.__init__`` assigns ``self._estimator_type``, which
scikit-learn >= 1.6 no longer defines on ``ClassifierMixin`` (the estimator
type moved to ``__sklearn_tags__``); the shim gives ``ClassifierMixin`` the
class attribute again for the import, so the assignment works. One
numerical fix: LAMDA-SSL
solves the dual with ``scipy.optimize.minimize`` (SLSQP) at its default
``ftol=1e-6``, but with the box 0 <= beta_i <= 1/l the dual objective is of
order 1/l, so SLSQP stops after one iteration near beta = 0 (every point
then gets the sign of the bias: 50 % error on G50C); the shim hands
LAMDA-SSL's module a ``minimize`` with ``ftol=1e-12, maxiter=1000``
(``fix_slsqp=False`` keeps the original). Nothing of LAMDA-SSL is vendored
here.
"""
from __future__ import annotations

import sys
import types


class _Stub:
    def __init__(self, *args, **kwargs):
        pass


def _install_torch_stubs():
    if "torch" in sys.modules:
        return
    names = ["torch", "torch.nn", "torch.nn.utils", "torch.nn.utils.rnn",
             "torch.utils", "torch.utils.data", "torch.utils.data.dataset"]
    mods = {n: types.ModuleType(n) for n in names}
    for n, m in mods.items():
        m.__path__ = []  # a package, so that submodule imports resolve
        if "." in n:
            parent, child = n.rsplit(".", 1)
            setattr(mods[parent], child, m)
        sys.modules[n] = m
    mods["torch.nn.utils.rnn"].PackedSequence = _Stub
    mods["torch.utils.data.dataset"].Dataset = _Stub
    mods["torch.utils.data"].dataset = mods["torch.utils.data.dataset"]
    mods["torch.utils.data"].Dataset = _Stub
    mods["torch.nn"].Module = _Stub
    mods["torch"].Tensor = _Stub


def load_lapsvm(fix_slsqp=True):
    """Return LAMDA-SSL's LapSVM class, or raise ImportError."""
    import warnings

    from sklearn.base import ClassifierMixin

    _install_torch_stubs()
    if "_estimator_type" not in vars(ClassifierMixin):
        ClassifierMixin._estimator_type = "classifier"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distutils deprecation in utils.py
        import LAMDA_SSL.Algorithm.Classification.LapSVM as mod
    if fix_slsqp:
        from scipy.optimize import minimize

        def _minimize(*args, **kwargs):
            kwargs.setdefault("options", {"ftol": 1e-12, "maxiter": 1000})
            return minimize(*args, **kwargs)

        mod.minimize = _minimize
    else:
        import scipy.optimize

        mod.minimize = scipy.optimize.minimize
    return mod.LapSVM
