"""Model selection that respects unlabeled rows.

Semi-supervised estimators are fitted on labeled rows (``y`` holds a class)
and unlabeled rows (``y == -1``).  Cross-validating them with scikit-learn's
ordinary splitters would put unlabeled rows into test folds, where a scorer
compares predictions with the label ``-1``.  The splitters here never do:

* :class:`LabeledStratifiedKFold` -- stratified k folds over the **labeled**
  rows only; every unlabeled row is on the training side of every split;
* :class:`RepeatedLabeledStratifiedKFold` -- the same, repeated with
  different shuffles (few labels make single k-fold estimates noisy).

They are ordinary scikit-learn cross-validators: pass them as ``cv=`` to
``GridSearchCV``, ``RandomizedSearchCV``, ``cross_val_score``,
``cross_validate``, with any scorer (the test rows all carry real labels).

Helpers:

* :func:`default_param_grid` -- the documented default search space of each
  semisvm estimator (and of scikit-learn's ``SVC`` / ``LinearSVC``, the
  supervised counterparts), scale-aware when ``X`` is given; every semisvm grid
  holds the estimator's *supervised* setting (``lam_u = 0``, ``gamma_I = 0``,
  ...), so a search can always fall back to ignoring the unlabeled rows;
* :class:`LabeledOnly` -- fits a supervised estimator on the labeled rows of
  a semi-supervised ``(X, y)``: the supervised counterpart inside the same
  search or ``cross_val_score`` call;
* :func:`unlabeled_gain` and :class:`SafeSemiSupervisedMixin` -- the safety net:
  the semi-supervised estimator against its supervised counterpart, by
  cross-validation on the labeled rows with paired folds, with a fallback to
  the supervised solution when the unlabeled rows hurt (in the spirit of Li &
  Zhou's safe S3VM, S4VM);
* :func:`platt_calibrate`, :func:`em_class_prior`, :func:`estimate_class_prior` --
  the class balance of the unlabeled rows from a supervised model's scores
  (Saerens, Latinne & Decaestecker 2002, "Adjusting the outputs of a
  classifier to new a priori probabilities: a simple procedure", Neural
  Computation 14(1)), used by ``r="auto"``.

Examples
--------
>>> import numpy as np
>>> from sklearn.model_selection import GridSearchCV, cross_val_score
>>> from semisvm import TSVM
>>> from semisvm.model_selection import LabeledStratifiedKFold, default_param_grid
>>> rng = np.random.default_rng(0)
>>> X = np.r_[rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]
>>> y = np.full(200, -1); y[:5], y[100:105] = 0, 1
>>> cv = LabeledStratifiedKFold(n_splits=5, random_state=0)
>>> [int(np.sum(y[test] == -1)) for _, test in cv.split(X, y)]
[0, 0, 0, 0, 0]
>>> search = GridSearchCV(TSVM(), default_param_grid(TSVM(), X), cv=cv).fit(X, y)
>>> sorted(search.best_params_)
['lam', 'lam_u']
>>> float(cross_val_score(TSVM(), X, y, cv=cv).mean()) > 0.9
True
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.model_selection._split import BaseCrossValidator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

__all__ = [
    "LabeledOnly",
    "LabeledStratifiedKFold",
    "RepeatedLabeledStratifiedKFold",
    "SafeSemiSupervisedMixin",
    "default_param_grid",
    "em_class_prior",
    "estimate_class_prior",
    "labeled_mask",
    "platt_calibrate",
    "unlabeled_gain",
]

UNLABELED = -1


def labeled_mask(y, unlabeled=UNLABELED):
    """Boolean mask of the labeled rows of ``y`` (``y != unlabeled``).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Targets, 1-d; ``None`` or a 2-d ``y`` raises ``ValueError``. Rows equal
        to ``unlabeled`` are unlabeled. For string / object labels a row is
        unlabeled when it equals ``unlabeled`` or its string form (``-1`` or
        ``"-1"``).
    unlabeled : int, default=-1
        The label value that marks an unlabeled row.

    Returns
    -------
    mask : ndarray of bool, shape (n_samples,)
        True for the labeled rows.

    See Also
    --------
    LabeledStratifiedKFold : Splits that test on the labeled rows only.
    LabeledOnly : Fits a supervised estimator on the labeled rows.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import labeled_mask
    >>> labeled_mask(np.array([0, 1, -1, 1, -1])).tolist()
    [True, True, False, True, False]
    >>> labeled_mask(["a", "-1", "b"]).tolist()
    [True, False, True]
    """
    if y is None:
        raise ValueError("y is required: the splitters need to know which rows are labeled")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d, got shape {y.shape}")
    if y.dtype.kind in "biuf":
        return y != unlabeled
    # string / object labels: only an equal value (e.g. -1 or "-1") is unlabeled
    return np.array([not (v == unlabeled or v == str(unlabeled)) for v in y], bool)


# ----------------------------------------------------------------- splitters
class LabeledStratifiedKFold(BaseCrossValidator):
    """Stratified k-fold over the labeled rows; unlabeled rows always train.

    Each split's test indices are labeled rows only (one fold of a
    :class:`sklearn.model_selection.StratifiedKFold` over them); its train
    indices are the other labeled rows **and every unlabeled row**
    (``y == unlabeled``). A scorer therefore never sees an unlabeled row,
    and each fit keeps the whole unlabeled pool.

    Parameters
    ----------
    n_splits : int, default=5
        Folds (>= 2). When the smallest labeled class has fewer rows than
        ``n_splits``, the number of folds is that class count (at least 2),
        so that every class appears in every test fold and keeps labeled
        rows on the training side; :meth:`get_n_splits` with ``y`` reports
        the count used.
    shuffle : bool, default=True
        Shuffle the labeled rows of each class before the folds are made.
    random_state : int, RandomState or None, default=0
        Seed of the shuffle (an int gives the same folds every call).
    unlabeled : int, default=-1
        The label value that marks an unlabeled row.

    Attributes
    ----------
    n_splits : int
        The requested number of folds (:meth:`get_n_splits` with ``y`` gives
        the number actually used).

    See Also
    --------
    RepeatedLabeledStratifiedKFold : The same splits, repeated with reshuffles.
    sklearn.model_selection.StratifiedKFold : The split of the labeled rows.
    labeled_mask : Which rows count as labeled.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import LabeledStratifiedKFold
    >>> y = np.array([0, 0, 0, 1, 1, 1, -1, -1, -1, -1])
    >>> cv = LabeledStratifiedKFold(n_splits=3)
    >>> for train, test in cv.split(np.zeros((10, 1)), y):
    ...     assert (y[test] != -1).all() and set(range(6, 10)) <= set(train)
    >>> cv.get_n_splits(y=y)
    3
    """

    def __init__(self, n_splits=5, *, shuffle=True, random_state=0, unlabeled=UNLABELED):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.unlabeled = unlabeled

    def _check(self, y):
        if (not isinstance(self.n_splits, numbers.Integral)
                or isinstance(self.n_splits, bool) or self.n_splits < 2):
            raise ValueError(f"n_splits must be an integer >= 2, got {self.n_splits!r}")
        lab = labeled_mask(y, self.unlabeled)
        idx = np.flatnonzero(lab)
        if idx.size == 0:
            raise ValueError("y has no labeled row (every row is unlabeled)")
        _, counts = np.unique(np.asarray(y)[idx], return_counts=True)
        if counts.size < 2:
            raise ValueError("y must hold at least two labeled classes to cross-validate")
        if counts.min() < 2:
            raise ValueError(
                "every labeled class needs at least 2 labeled rows to cross-validate "
                f"(smallest class has {counts.min()})")
        return idx, int(min(self.n_splits, counts.min()))

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of splits (the smallest labeled class may lower it; needs ``y``)."""
        if y is None:
            return self.n_splits
        return self._check(y)[1]

    def _folds(self, y, rng):
        idx, k = self._check(y)
        ylab = np.asarray(y)[idx]
        skf = StratifiedKFold(n_splits=k, shuffle=self.shuffle,
                              random_state=rng if self.shuffle else None)
        unl = np.flatnonzero(~labeled_mask(y, self.unlabeled))
        for tr, te in skf.split(np.zeros((idx.size, 1)), ylab):
            yield np.sort(np.concatenate([idx[tr], unl])), idx[te]

    def split(self, X, y, groups=None):
        """Yield ``(train, test)`` index arrays; ``test`` holds labeled rows only."""
        if X is not None and y is not None and _n_rows(X) != len(y):
            raise ValueError(f"X has {_n_rows(X)} rows but y has {len(y)}")
        yield from self._folds(y, self.random_state if self.shuffle else None)

    def _iter_test_indices(self, X=None, y=None, groups=None):  # pragma: no cover
        for _, test in self.split(X, y, groups):
            yield test


class RepeatedLabeledStratifiedKFold(LabeledStratifiedKFold):
    """:class:`LabeledStratifiedKFold` repeated ``n_repeats`` times, reshuffled.

    With few labels a single k-fold estimate is noisy; repeating it with
    different shuffles averages over more partitions of the same labeled rows
    (``n_splits * n_repeats`` fits).

    Parameters
    ----------
    n_splits : int, default=5
        Folds per repetition (lowered to the smallest labeled class count).
    n_repeats : int, default=3
    random_state : int, RandomState or None, default=0
    unlabeled : int, default=-1

    Attributes
    ----------
    n_splits : int
        The requested number of folds per repetition.
    n_repeats : int
        The number of repetitions.

    See Also
    --------
    LabeledStratifiedKFold : A single k-fold over the labeled rows.
    sklearn.model_selection.RepeatedStratifiedKFold : The supervised analogue.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import RepeatedLabeledStratifiedKFold
    >>> y = np.r_[[0] * 4, [1] * 4, [-1] * 20]
    >>> cv = RepeatedLabeledStratifiedKFold(n_splits=2, n_repeats=3)
    >>> cv.get_n_splits(y=y), len(list(cv.split(None, y)))
    (6, 6)
    """

    def __init__(self, n_splits=5, *, n_repeats=3, random_state=0, unlabeled=UNLABELED):
        super().__init__(n_splits, shuffle=True, random_state=random_state,
                         unlabeled=unlabeled)
        self.n_repeats = n_repeats

    def get_n_splits(self, X=None, y=None, groups=None):
        if (not isinstance(self.n_repeats, numbers.Integral)
                or isinstance(self.n_repeats, bool) or self.n_repeats < 1):
            raise ValueError(f"n_repeats must be an integer >= 1, got {self.n_repeats!r}")
        return super().get_n_splits(X, y, groups) * self.n_repeats

    def split(self, X, y, groups=None):
        self.get_n_splits(y=y)
        if X is not None and y is not None and _n_rows(X) != len(y):
            raise ValueError(f"X has {_n_rows(X)} rows but y has {len(y)}")
        rng = check_random_state(self.random_state)
        for _ in range(self.n_repeats):
            yield from self._folds(y, rng.randint(np.iinfo(np.int32).max))


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


# ----------------------------------------------------------- LabeledOnly
class LabeledOnly(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A supervised classifier fitted on the labeled rows of ``(X, y)``.

    ``fit`` drops the rows with ``y == unlabeled`` and fits a clone of
    ``estimator`` on the rest; prediction methods delegate to it. This is the
    supervised counterpart of a semi-supervised estimator under the same
    splitter, search or pipeline (the rows it is given are the same).

    Parameters
    ----------
    estimator : classifier
    unlabeled : int, default=-1

    Attributes
    ----------
    estimator_ : the fitted clone
    classes_ : ndarray

    See Also
    --------
    unlabeled_gain : Compares a semi-supervised estimator with this baseline.
    labeled_mask : Which rows are kept.
    semisvm.TSVM : A semi-supervised estimator it can be compared with.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> from semisvm.model_selection import LabeledOnly
    >>> X = np.r_[np.zeros((3, 2)), np.ones((3, 2)), np.full((4, 2), .5)]
    >>> y = np.array([0, 0, 0, 1, 1, 1, -1, -1, -1, -1])
    >>> LabeledOnly(SVC()).fit(X, y).predict([[0.1, 0.1], [0.9, 0.9]]).tolist()
    [0, 1]
    """

    def __init__(self, estimator, *, unlabeled=UNLABELED):
        self.estimator = estimator
        self.unlabeled = unlabeled

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y, **fit_params):
        """Fit a clone of ``estimator`` on the rows with ``y != unlabeled``."""
        lab = labeled_mask(y, self.unlabeled)
        if not lab.any():
            raise ValueError("y has no labeled row (every row is unlabeled)")
        idx = np.flatnonzero(lab)
        Xl = X[idx] if (sp.issparse(X) or hasattr(X, "shape")) else [X[i] for i in idx]
        self.estimator_ = clone(self.estimator).fit(Xl, np.asarray(y)[idx], **fit_params)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        """Class labels from the fitted ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def decision_function(self, X):
        """Decision values from the fitted ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    def predict_proba(self, X):
        """Class probabilities from the fitted ``estimator_``."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)


# --------------------------------------------------------- default grids
def _mean_sq_norm(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return float(X.multiply(X).sum() / X.shape[0])
    X = np.asarray(X, dtype=np.float64)
    return float(np.einsum("ij,ij->", X, X) / X.shape[0])


def _scale_gamma(X):
    """scikit-learn's ``gamma="scale"``: 1 / (n_features * X.var())."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        var = float(X.multiply(X).mean() - X.mean() ** 2)
    else:
        var = float(np.asarray(X, dtype=np.float64).var())
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def default_param_grid(estimator, X=None):
    """The default search space of ``estimator`` (a dict for ``GridSearchCV``).

    Every semisvm grid holds the estimator's supervised setting, so a search
    on labeled folds can choose to ignore the unlabeled rows when they hurt.
    Scale-dependent values are multiples of a data scale computed from
    ``X`` (all rows: the unlabeled ones carry no label information) when it is
    given, and left at the estimator's scale-aware ``"auto"``/``None`` default
    otherwise. For a :class:`~sklearn.pipeline.Pipeline` the grid of its last
    step is returned with the ``<step>__`` prefix (pass ``X`` already
    transformed by the earlier steps if they rescale it); for
    :class:`LabeledOnly` the ``estimator__`` prefix.

    ============================  ==============================================
    estimator                     grid (``a`` = mean_i ||x_i||^2,
                                  ``g`` = 1 / (n_features * var(X)))
    ============================  ==============================================
    TSVM, DASVM                   lam_u: 0 (supervised), 0.1, 1;
                                  lam: a * {3e-4, 3e-3, 3e-2} (``"auto"`` is
                                  a * 3e-3; without X: ``["auto"]``)
    LinearSVM                     lam: a * {1e-2, 1e-1, 1, 10}
    LapSVM, LapRLS                gamma_I: 0 (supervised), 1e-2, 1;
                                  gamma_A: 1e-6, 1e-4, 1e-2
    TVRLS, TVSVM                  lam: 0.01, 0.1, 1; n_neighbors: 5, 10, 20
    CheegerRLS, CheegerSVM        lam: 0.1, 1, 10; n_neighbors: 5, 10, 20
    PUSVM                         lam: 1e-4, 1e-3, 1e-2
    sklearn SVC (RBF)             C: 0.1, 1, 10, 100; gamma: g * {0.1, 1, 10}
                                  (without X: ``"scale"``)
    sklearn LinearSVC             C: 0.01, 0.1, 1, 10 (divided by a with X)
    ============================  ==============================================

    Parameters
    ----------
    estimator : estimator instance (or a Pipeline / LabeledOnly around one)
    X : array-like or sparse matrix, optional
        Training rows (labeled and unlabeled), for the scale-aware values.

    Returns
    -------
    dict
        Parameter name -> list of values.

    See Also
    --------
    LabeledStratifiedKFold : The splitter to search this grid with.
    sklearn.model_selection.GridSearchCV : The search that takes this grid.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import TSVM
    >>> from semisvm.model_selection import default_param_grid
    >>> default_param_grid(TSVM())
    {'lam_u': [0.0, 0.1, 1.0], 'lam': ['auto']}
    >>> g = default_param_grid(TSVM(), np.ones((4, 2)))
    >>> [round(v, 4) for v in g['lam']]
    [0.0006, 0.006, 0.06]
    """
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        name, last = estimator.steps[-1]
        return {f"{name}__{k}": v for k, v in default_param_grid(last, X).items()}
    if isinstance(estimator, LabeledOnly):
        return {f"estimator__{k}": v
                for k, v in default_param_grid(estimator.estimator, X).items()}
    kind = type(estimator).__name__
    a = _mean_sq_norm(X) if X is not None else None
    if kind in ("TSVM", "DASVM"):
        return {"lam_u": [0.0, 0.1, 1.0],
                "lam": ["auto"] if a is None else [c * a for c in (3e-4, 3e-3, 3e-2)]}
    if kind == "LinearSVM":
        s = 1.0 if a is None else a
        return {"lam": [c * s for c in (1e-2, 1e-1, 1.0, 10.0)]}
    if kind in ("LapSVM", "LapRLS"):
        return {"gamma_I": [0.0, 1e-2, 1.0], "gamma_A": [1e-6, 1e-4, 1e-2]}
    if kind in ("TVRLS", "TVSVM"):
        return {"lam": [0.01, 0.1, 1.0], "n_neighbors": [5, 10, 20]}
    if kind in ("CheegerRLS", "CheegerSVM"):
        return {"lam": [0.1, 1.0, 10.0], "n_neighbors": [5, 10, 20]}
    if kind == "PUSVM":
        return {"lam": [1e-4, 1e-3, 1e-2]}
    if kind == "SVC":
        gam = ["scale"] if X is None else [c * _scale_gamma(X) for c in (0.1, 1.0, 10.0)]
        return {"C": [0.1, 1.0, 10.0, 100.0], "gamma": gam}
    if kind == "LinearSVC":
        s = 1.0 if a is None else a
        return {"C": [c / s for c in (0.01, 0.1, 1.0, 10.0)]}
    raise TypeError(f"no default search space for {kind}; pass your own grid")


# -------------------------------------------------------- the safety net
def _paired_scores(estimators, X, y, cv, scoring):
    """Scores of each estimator on the same labeled folds (a list of arrays)."""
    from sklearn.base import ClassifierMixin
    from sklearn.metrics import check_scoring
    from sklearn.utils import _safe_indexing

    out = [[] for _ in estimators]
    y = np.asarray(y)
    scorers = [_accuracy if scoring is None and type(e).score is ClassifierMixin.score
               else check_scoring(e, scoring=scoring) for e in estimators]
    for train, test in cv.split(X, y):
        Xtr, Xte = _safe_indexing(X, train), _safe_indexing(X, test)
        for k, (est, scorer) in enumerate(zip(estimators, scorers)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # caps hit on tiny folds
                fitted = clone(est).fit(Xtr, y[train])
            out[k].append(scorer(fitted, Xte, y[test]))
    return [np.asarray(s, dtype=np.float64) for s in out]


def _accuracy(estimator, X, y):
    """``ClassifierMixin.score`` without sample weights: the same number
    (the fraction of equal labels), without scikit-learn's target checks,
    which cost more than a small fold's prediction."""
    return float(np.mean(estimator.predict(X) == y))


def unlabeled_gain(semi, supervised, X, y, *, cv=None, scoring=None):
    """Cross-validated gain of ``semi`` over ``supervised`` on the labeled rows.

    Both estimators are fitted on the same training side of each split of
    ``cv`` (labeled training rows plus every unlabeled row: ``supervised``
    must accept ``y == -1`` rows, e.g. a :class:`LabeledOnly` or the
    semi-supervised estimator with its unlabeled weight at zero) and scored
    on the same labeled test fold.

    Parameters
    ----------
    semi, supervised : estimators (unfitted; cloned)
    X : array-like or sparse matrix
    y : array-like, ``-1`` = unlabeled
    cv : splitter or int, optional
        Default :class:`RepeatedLabeledStratifiedKFold` ``(5, n_repeats=2)``;
        an int k means :class:`LabeledStratifiedKFold` ``(k)``.
    scoring : str or callable, optional
        Any scikit-learn scorer (default: the estimators' ``score``, accuracy).

    Returns
    -------
    gain : float
        ``mean(semi scores - supervised scores)`` over the folds.
    semi_scores, supervised_scores : ndarray

    See Also
    --------
    SafeSemiSupervisedMixin : The fallback built on this comparison.
    LabeledOnly : A supervised counterpart that accepts unlabeled rows.
    RepeatedLabeledStratifiedKFold : The default ``cv``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import TSVM
    >>> from semisvm.model_selection import unlabeled_gain
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]
    >>> y = np.full(200, -1); y[:5], y[100:105] = 0, 1
    >>> gain, s, b = unlabeled_gain(TSVM(), TSVM(lam_u=0.0), X, y, cv=5)
    >>> len(s), bool(gain >= -0.2)
    (5, True)
    """
    if cv is None:
        cv = RepeatedLabeledStratifiedKFold(5, n_repeats=2, random_state=0)
    elif isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        cv = LabeledStratifiedKFold(int(cv), random_state=0)
    s, b = _paired_scores([semi, supervised], X, y, cv, scoring)
    return float(np.mean(s - b)), s, b


class SafeSemiSupervisedMixin:
    """The safety net for a semi-supervised estimator (mixin).

    An estimator that inherits it exposes three parameters --

    * ``safe`` : bool -- run the check at ``fit``;
    * ``safe_cv`` : int or splitter -- the labeled-row folds (an int k:
      :class:`RepeatedLabeledStratifiedKFold` ``(k, n_repeats=2)``);
    * ``safe_margin`` : float -- fall back when the semi-supervised model's
      cross-validated accuracy is below the supervised one's by more than
      this (0: whenever it is lower) --

    and implements ``_supervised_counterpart()`` (an unfitted estimator that
    accepts ``y == -1`` rows and fits the supervised solution: the same
    estimator with its unlabeled weight at zero, or a :class:`LabeledOnly`)
    and ``_adopt_supervised(X, y)`` (refit itself as that supervised
    solution, keeping ``transduction_`` meaningful). Its ``fit`` calls
    :meth:`_safe_fit` after the semi-supervised fit:

    * ``unlabeled_gain_`` -- the mean paired difference of fold accuracies,
      semi-supervised minus supervised (None when ``safe`` is False);
    * ``fell_back_`` -- True when the fallback fired (the model is then the
      supervised solution).

    When it fires: the estimate comes from the labeled rows only, so with
    very few labels (2-5 per class) it is noisy; ties keep the
    semi-supervised model. It costs ``n_splits * n_repeats`` extra fits of
    each model.

    Attributes
    ----------
    unlabeled_gain_ : float or None
        Mean paired difference of fold accuracies, semi-supervised minus
        supervised (None when ``safe`` is False or there is nothing to
        cross-validate).
    fell_back_ : bool
        True when the fallback fired.
    safe_scores_ : tuple of ndarray
        The fold scores ``(semi, supervised)``; set only when the check ran.

    See Also
    --------
    unlabeled_gain : The comparison run at ``fit``.
    semisvm.TSVM : An estimator with this safety net (``safe=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import TSVM
    >>> from semisvm.model_selection import SafeSemiSupervisedMixin
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (20, 2)), rng.normal(2, 1, (20, 2))]
    >>> y = np.full(40, -1); y[:4], y[20:24] = 0, 1
    >>> isinstance(TSVM(), SafeSemiSupervisedMixin)
    True
    >>> model = TSVM(safe=True, safe_cv=2).fit(X, y)
    >>> isinstance(model.unlabeled_gain_, float), isinstance(model.fell_back_, bool)
    (True, True)
    """

    def _safe_semi(self):
        """The semi-supervised estimator refitted on each fold of the check:
        a clone with ``safe=False`` (estimators override it to share work
        with the fit that has just run, e.g. a graph)."""
        return clone(self).set_params(safe=False)

    def _safe_cv(self):
        cv = getattr(self, "safe_cv", 5)
        if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            return RepeatedLabeledStratifiedKFold(int(cv), n_repeats=2, random_state=0)
        return cv

    def _safe_gain(self, semi, supervised, X, y):
        """``(gain, semi scores, supervised scores)`` of the check
        (:func:`unlabeled_gain` on :meth:`_safe_cv`'s folds; estimators may
        override it, e.g. to stop after a decisive first repeat)."""
        return unlabeled_gain(semi, supervised, X, y, cv=self._safe_cv())

    def _safe_fit(self, X, y):
        self.unlabeled_gain_ = None
        self.fell_back_ = False
        if not getattr(self, "safe", False):
            return self
        margin = getattr(self, "safe_margin", 0.0)
        if not isinstance(margin, numbers.Real) or margin < 0:
            raise ValueError(f"safe_margin must be a number >= 0, got {margin!r}")
        lab = labeled_mask(y)
        _, counts = np.unique(np.asarray(y)[lab], return_counts=True)
        if counts.size < 2 or counts.min() < 2 or lab.all():
            # nothing to cross-validate (or nothing unlabeled): keep the fit
            return self
        semi = self._safe_semi()
        gain, s, b = self._safe_gain(semi, self._supervised_counterpart(), X, y)
        self.unlabeled_gain_ = gain
        self.safe_scores_ = (s, b)
        if gain < -margin:
            self.fell_back_ = True
            self._adopt_supervised(X, y)
        return self


# ---------------------------------------------------------- class priors
def platt_calibrate(decision, y, *, max_iter=100):
    """Platt's sigmoid ``P(y = 1 | f) = 1 / (1 + exp(-(a f + b)))``.

    Fitted by Newton's method on the regularised targets of Platt (1999)
    (``(n_+ + 1) / (n_+ + 2)`` and ``1 / (n_- + 2)``), which keep ``a``
    finite when the scores separate the classes; pass out-of-fold scores.

    Parameters
    ----------
    decision : array of shape (n,)
    y : array of shape (n,), 0/1 (or False/True)
    max_iter : int, default=100
        Maximum number of Newton steps (each with a backtracking line search
        on the cross-entropy); the loop stops earlier once a step changes
        ``a`` and ``b`` by less than 1e-10.

    Returns
    -------
    a, b : float

    See Also
    --------
    estimate_class_prior : Uses this calibration on the labeled scores.
    sklearn.calibration.CalibratedClassifierCV : Sigmoid calibration of a classifier.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import platt_calibrate
    >>> a, b = platt_calibrate(np.array([-2., -1., 1., 2.]), np.array([0, 0, 1, 1]))
    >>> bool(a > 0), abs(b) < 1e-6
    (True, True)
    """
    f = np.asarray(decision, dtype=np.float64).ravel()
    yb = np.asarray(y).ravel().astype(bool)
    if f.shape != yb.shape:
        raise ValueError(f"decision and y must have the same length, got {f.shape} and {yb.shape}")
    npos, nneg = int(yb.sum()), int((~yb).sum())
    t = np.where(yb, (npos + 1.0) / (npos + 2.0), 1.0 / (nneg + 2.0))
    a, b = 0.0, float(np.log((npos + 1.0) / (nneg + 1.0)))
    for _ in range(max_iter):
        z = a * f + b
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        g = np.array([np.dot(p - t, f), np.sum(p - t)])
        w = p * (1 - p) + 1e-12
        H = np.array([[np.dot(w, f * f), np.dot(w, f)], [np.dot(w, f), np.sum(w)]])
        H[0, 0] += 1e-10
        step = np.linalg.solve(H, g)
        # backtracking on the cross-entropy
        def nll(a_, b_):
            z_ = a_ * f + b_
            return float(np.sum(np.logaddexp(0, z_) - t * z_))
        F0, s = nll(a, b), 1.0
        while s > 1e-10 and nll(a - s * step[0], b - s * step[1]) > F0 + 1e-12:
            s *= 0.5
        a, b = a - s * step[0], b - s * step[1]
        if np.max(np.abs(s * step)) < 1e-10:
            break
    return float(a), float(b)


def em_class_prior(proba, prior_train, *, tol=1e-8, max_iter=1000):
    """Class priors of new rows by the EM of Saerens, Latinne & Decaestecker (2002).

    Given posteriors ``proba`` of a classifier trained under class priors
    ``prior_train``, alternate: re-weight the posteriors by
    ``prior_new / prior_train`` (renormalised per row), then set
    ``prior_new`` to their mean. Converges to the maximum-likelihood priors of
    the new rows under the classifier's (calibrated) likelihood ratios.

    Parameters
    ----------
    proba : array of shape (n,) (binary: P(class 1)) or (n, K)
    prior_train : float (binary) or array of shape (K,)
    tol : float, default=1e-8
        Stop when no prior changes by more than this (max-norm) between two
        iterations.
    max_iter : int, default=1000
        Maximum number of EM iterations.

    Returns
    -------
    prior : float (binary) or ndarray of shape (K,)

    See Also
    --------
    estimate_class_prior : Calibrates the scores and calls this function.
    platt_calibrate : Posteriors from decision values.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import em_class_prior
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(20000) < 0.2                  # true prior 0.2
    >>> f = rng.normal(np.where(y, 1.0, -1.0))       # scores, unit-variance classes
    >>> p = 1 / (1 + np.exp(-2 * f))                 # exact posterior at prior 0.5
    >>> round(em_class_prior(p, 0.5), 2)
    0.2
    """
    P = np.asarray(proba, dtype=np.float64)
    binary = P.ndim == 1
    if binary:
        P = np.column_stack([1 - P, P])
        pt = np.array([1 - float(prior_train), float(prior_train)])
    else:
        pt = np.asarray(prior_train, dtype=np.float64)
    if P.ndim != 2 or pt.shape != (P.shape[1],):
        raise ValueError("proba must be (n,) or (n, K) and prior_train a float or (K,) array")
    if not np.all(np.isfinite(P)) or P.min() < 0 or P.max() > 1:
        raise ValueError("proba must hold probabilities in [0, 1]")
    if np.any(pt <= 0) or np.any(pt >= 1):
        raise ValueError("prior_train must lie in (0, 1)")
    P = np.clip(P, 1e-12, 1.0)
    P /= P.sum(axis=1, keepdims=True)
    pi = pt.copy()
    for _ in range(max_iter):
        Q = P * (pi / pt)
        Q /= Q.sum(axis=1, keepdims=True)
        new = Q.mean(axis=0)
        if np.max(np.abs(new - pi)) < tol:
            pi = new
            break
        pi = new
    return float(pi[1]) if binary else pi


def estimate_class_prior(decision_labeled, y_labeled, decision_unlabeled, *,
                         method="em", clip=(0.02, 0.98)):
    """Fraction of positive unlabeled rows from a supervised model's scores.

    Parameters
    ----------
    decision_labeled : array of shape (l,)
        Out-of-fold scores of the labeled rows (for the calibration).
    y_labeled : array of shape (l,), 0/1
    decision_unlabeled : array of shape (u,)
        Scores of the unlabeled rows (model fitted on all labeled rows).
    method : {"em", "pcc", "cc"}, default="em"
        ``"em"``: Platt-calibrated posteriors adjusted by
        :func:`em_class_prior` (Saerens et al. 2002); ``"pcc"``: the mean
        calibrated posterior; ``"cc"``: the fraction of positive scores.
    clip : (float, float)
        The estimate is clipped to this interval (balance constraints need
        a fraction strictly inside (0, 1)).

    Returns
    -------
    float

    See Also
    --------
    platt_calibrate : The calibration of the labeled scores.
    em_class_prior : The EM adjustment of ``method="em"``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.model_selection import estimate_class_prior
    >>> rng = np.random.default_rng(1)
    >>> yl = np.r_[np.zeros(50), np.ones(50)]
    >>> fl = rng.normal(2 * yl - 1)
    >>> yu = rng.random(5000) < 0.3
    >>> fu = rng.normal(np.where(yu, 1.0, -1.0))
    >>> abs(estimate_class_prior(fl, yl, fu) - 0.3) < 0.05
    True
    """
    fu = np.asarray(decision_unlabeled, dtype=np.float64).ravel()
    if method == "cc":
        r = float(np.mean(fu > 0))
    elif method in ("em", "pcc"):
        yl = np.asarray(y_labeled).ravel().astype(bool)
        a, b = platt_calibrate(decision_labeled, yl)
        p = 0.5 * (1.0 + np.tanh(0.5 * (a * fu + b)))
        if method == "pcc":
            r = float(np.mean(p))
        else:
            pt = float(np.clip(yl.mean(), 1e-3, 1 - 1e-3))
            r = em_class_prior(p, pt)
    else:
        raise ValueError(f"method must be 'em', 'pcc' or 'cc', got {method!r}")
    return float(np.clip(r, clip[0], clip[1]))
