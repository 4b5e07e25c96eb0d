"""
Six graph and kernel estimators against an RBF SVC, with their defaults
=======================================================================

The first thing a user tries: three toy problems (two moons, two circles,
two nested Gaussian clouds), 300 points each, with 3 labeled points per
class (large markers). Each column is one estimator with its default
parameters, fitted on all points (``y == -1`` marks the unlabeled ones); the
first column is the supervised counterpart, scikit-learn's RBF ``SVC``
trained on the 6 labeled points alone. The background is each model's
``predict`` on a grid (the models are inductive); the title gives the error
on the unlabeled points.

On moons and circles the classes are the graph's clusters: the unlabeled
points carry the labels along them and every semi-supervised model beats
the SVC. The nested clouds defeat that assumption (one class is a dense
core inside the other's diffuse cloud: no low-density gap separates
them). There the estimators' default check (``safe="auto"``: hide half of
the labels, solve again on the same graph, compare with the SVC) can see
that the graph does not help and fall back to the SVC; ``fell_back_``
records it and the title says "fell back". With only 3 labels per class
the check is noisy: it compares a handful of held-out labels.
"""
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.svm import SVC

from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM

n = 300
rng = np.random.RandomState(0)
X_moons, y_moons = make_moons(n, noise=0.1, random_state=0)
X_circles, y_circles = make_circles(n, noise=0.06, factor=0.45, random_state=0)
y_nested = np.arange(n) % 2
X_nested = rng.randn(n, 2) * np.where(y_nested == 1, 2.5, 0.7)[:, None]
problems = {"moons": (X_moons, y_moons), "circles": (X_circles, y_circles),
            "nested clouds": (X_nested, y_nested)}
models = {"RBF SVC (labels)": SVC, "LapSVM": LapSVM, "LapRLS": LapRLS,
          "TVRLS": TVRLS, "TVSVM": TVSVM, "CheegerRLS": CheegerRLS,
          "CheegerSVM": CheegerSVM}

fig, axes = plt.subplots(len(problems), len(models), figsize=(17, 7.5))
for row, (pname, (X, y)) in enumerate(problems.items()):
    y_semi = np.full(n, -1)
    for c in (0, 1):
        y_semi[rng.choice(np.flatnonzero(y == c), 3, replace=False)] = c
    lab = y_semi != -1
    lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], 70), np.linspace(lo[1], hi[1], 70))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for col, (mname, Model) in enumerate(models.items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # iteration caps on a toy problem
            if Model is SVC:
                clf = SVC().fit(X[lab], y[lab])
                pred = clf.predict(X[~lab])
            else:
                clf = Model().fit(X, y_semi)
                pred = clf.transduction_[~lab]
        err = 100 * np.mean(pred != y[~lab])
        ax = axes[row, col]
        ax.contourf(xx, yy, clf.predict(grid).reshape(xx.shape), levels=[-0.5, 0.5, 1.5],
                    colors=["#c6dbef", "#fdd0a2"], alpha=0.8)
        ax.scatter(X[~lab, 0], X[~lab, 1], c=y[~lab], cmap="coolwarm", s=5, alpha=0.6)
        ax.scatter(X[lab, 0], X[lab, 1], c=y[lab], cmap="coolwarm", s=80,
                   edgecolors="k", linewidths=1.5)
        note = " (fell back)" if getattr(clf, "fell_back_", False) else ""
        ax.set_title(f"{mname}\n{pname}: {err:.1f}%{note}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
fig.tight_layout()
plt.show()
