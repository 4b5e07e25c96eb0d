"""
Two moons with one to five labels per class
===========================================

Every semi-supervised family on the classic two-moons problem (300 points,
noise 0.1), with 1, 3 and 5 labeled points per class (large markers) and all
other points unlabeled (``y == -1``). The background is each model's
predicted class on a grid; the title gives the error on the unlabeled points.

The linear models (LinearSVM on the labels only, TSVM, DASVM) can only draw a
line; the graph-based families (LapSVM, LapRLS, TV-RLS, Cheeger-RLS) follow
the moons once the unlabeled points are used.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from semisvm import DASVM, TSVM, TVRLS, CheegerRLS, LapRLS, LapSVM, LinearSVM

X, y = make_moons(300, noise=0.1, random_state=0)
rng = np.random.default_rng(0)
models = {
    "LinearSVM (labels)": lambda: LinearSVM(lam=0.01),
    "TSVM": lambda: TSVM(),
    "DASVM": lambda: DASVM(),
    "LapSVM": lambda: LapSVM(gamma=2.0, gamma_A=1e-4, gamma_I=1.0, n_neighbors=8),
    "LapRLS": lambda: LapRLS(gamma=2.0, gamma_A=1e-4, gamma_I=1.0, n_neighbors=8),
    "TVRLS": lambda: TVRLS(random_state=0),
    "CheegerRLS": lambda: CheegerRLS(random_state=0),
}
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 120), np.linspace(-1.1, 1.6, 80))
grid = np.c_[xx.ravel(), yy.ravel()]

n_labels = (1, 3, 5)
fig, axes = plt.subplots(len(models), len(n_labels), figsize=(9, 20),
                         sharex=True, sharey=True)
for row, m in enumerate(n_labels):
    y_semi = np.full(300, -1)
    for c in (0, 1):
        pick = rng.choice(np.flatnonzero(y == c), m, replace=False)
        y_semi[pick] = c
    unl = y_semi == -1
    for col, (name, make) in enumerate(models.items()):
        ax = axes[col, row]
        if name.startswith("LinearSVM"):
            clf = make().fit(X[~unl], y[~unl])
        else:
            clf = make().fit(X, y_semi)
        err = np.mean(clf.predict(X[unl]) != y[unl])
        ax.contourf(xx, yy, clf.predict(grid).reshape(xx.shape), levels=[-0.5, 0.5, 1.5],
                    colors=["#c6dbef", "#fdd0a2"], alpha=0.8)
        ax.scatter(X[unl, 0], X[unl, 1], c=y[unl], cmap="coolwarm", s=6, alpha=0.6)
        ax.scatter(X[~unl, 0], X[~unl, 1], c=y[~unl], cmap="coolwarm", s=90,
                   edgecolors="k", linewidths=1.5)
        ax.set_title(f"{name}\n{m} label(s)/class: {100 * err:.1f}% error", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
fig.tight_layout()
plt.show()
