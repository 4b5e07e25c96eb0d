"""The one list of semisvm estimators known to the model files and the command line.

Adding an estimator to ``semisvm save/load``, ``semisvm train -a NAME`` and
``semisvm demo`` is one :class:`Algorithm` entry in :data:`ALGORITHMS`. Entries
whose module or class does not exist (yet) are tolerated: :func:`available`
skips them and :func:`get_class` raises :class:`NotAvailableError`.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field

__all__ = ["ALGORITHMS", "Algorithm", "NotAvailableError", "available", "by_class",
           "by_name", "get_class"]

#: How the command line turns an svmlight file's labels (0 = unlabeled) into ``y``.
SUPERVISED = "supervised"  # rows labelled 0 are dropped
SEMI = "semi"              # 0 -> -1 (unlabeled); the other labels are the classes
PU = "pu"                  # +1 labeled positive; 0 and -1 unlabeled


class NotAvailableError(LookupError):
    """The estimator of a registry entry cannot be imported in this installation."""


@dataclass(frozen=True)
class Algorithm:
    """One estimator as the command line and the model files know it.

    Attributes
    ----------
    name : str
        Name on the command line (``semisvm train -a NAME``).
    module, cls : str
        Where the estimator lives (``semisvm.linear``, ``"TSVM"``).
    kind : str
        ``"supervised"``, ``"semi"`` or ``"pu"``: how svmlight labels map to ``y``.
    summary : str
        One line for ``--help`` and the demo table.
    demo_params : dict
        Parameters for ``semisvm demo`` (applied only where the estimator has them).
    """

    name: str
    module: str
    cls: str
    kind: str
    summary: str
    demo_params: dict = field(default_factory=dict)


ALGORITHMS = (
    Algorithm("linear", "semisvm.linear", "LinearSVM", SUPERVISED,
              "supervised linear L2-SVM (L2-SVM-MFN), labeled rows only",
              {"lam": 1e-2}),
    Algorithm("tsvm", "semisvm.linear", "TSVM", SEMI,
              "transductive linear SVM, multiple switching",
              {"lam": 1e-2, "lam_u": 1.0}),
    Algorithm("da", "semisvm.linear", "DASVM", SEMI,
              "deterministic-annealing semi-supervised linear SVM",
              {"lam": 1e-2, "lam_u": 1.0}),
    Algorithm("lapsvm", "semisvm.manifold", "LapSVM", SEMI,
              "Laplacian SVM trained in the primal", {}),
    Algorithm("laprls", "semisvm.manifold", "LapRLS", SEMI,
              "Laplacian regularized least squares", {}),
    Algorithm("pu", "semisvm.pu", "PUSVM", PU,
              "positive-unlabeled SVM (USMO, double hinge loss)", {}),
    # r of the graph TV / Cheeger estimators is an augmented-Lagrangian
    # penalty, not the positive-class fraction the demo fills in for "r"
    Algorithm("tvsvm", "semisvm.graph_tv", "TVSVM", SEMI,
              "graph total-variation SVM", {"r": 1.0}),
    Algorithm("tvrls", "semisvm.graph_tv", "TVRLS", SEMI,
              "graph total-variation regularized least squares", {"r": 1.0}),
    Algorithm("cheegersvm", "semisvm.graph_tv", "CheegerSVM", SEMI,
              "graph Cheeger-cut SVM", {"r": 1.0}),
    Algorithm("cheegerrls", "semisvm.graph_tv", "CheegerRLS", SEMI,
              "graph Cheeger-cut regularized least squares", {"r": 1.0}),
)


def by_name(name):
    """The entry called ``name`` on the command line (KeyError if none)."""
    for alg in ALGORITHMS:
        if alg.name == name:
            return alg
    raise KeyError(name)


def by_class(cls_name):
    """The entry whose estimator class is called ``cls_name`` (KeyError if none)."""
    for alg in ALGORITHMS:
        if alg.cls == cls_name:
            return alg
    raise KeyError(cls_name)


def get_class(alg):
    """Import and return the estimator class of ``alg`` or raise NotAvailableError."""
    module = _import(alg.module)
    if module is None:
        raise NotAvailableError(
            f"{alg.cls} (-a {alg.name}) is not available in this installation "
            f"of semisvm: module {alg.module} does not exist")
    cls = getattr(module, alg.cls, None)
    if not isinstance(cls, type):
        raise NotAvailableError(
            f"{alg.cls} (-a {alg.name}) is not available in this installation of "
            f"semisvm: {alg.module} has no class {alg.cls}")
    return cls


@functools.cache
def _import(name):
    """The module ``name``, or None if it does not exist (remembered per process)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and name.startswith(exc.name):
            return None
        raise


def available():
    """``[(Algorithm, class)]`` for every entry that can be imported, in order."""
    out = []
    for alg in ALGORITHMS:
        try:
            out.append((alg, get_class(alg)))
        except NotAvailableError:
            continue
    return out
