"""
Positive-unlabeled learning with the class prior
================================================

:class:`~semisvm.PUSVM` (USMO, Sansone, De Natale & Zhou 2018) learns from a
few labeled **positive** rows (``y == 1``) and many unlabeled rows
(``y == -1``) that mix both classes, given the class prior ``prior``: the
fraction of positives among the unlabeled rows. By default (``prior="auto"``)
the prior is estimated from the data with :func:`semisvm.pu.estimate_prior`;
here the model with the true prior and the one with the estimate are both
shown. A biased SVM that treats every unlabeled row as negative is drawn for
comparison.

Left: the PU boundary with the true prior. Right: the test error when the
prior given to the model is wrong, which shows how much it matters to know it.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from semisvm import PUSVM

rng = np.random.default_rng(0)
n, prior = 600, 0.4
y_true = np.where(rng.random(n) < prior, 1, -1)
X = rng.standard_normal((n, 2)) + np.where(y_true[:, None] == 1, [1.2, 1.2], [-1.0, -0.6])
pos = np.flatnonzero(y_true == 1)
labeled = rng.choice(pos, 60, replace=False)
y_pu = np.full(n, -1)
y_pu[labeled] = 1                                   # 1 = labeled positive
unl = y_pu == -1
X_test = rng.standard_normal((2000, 2))
y_test = np.where(rng.random(2000) < prior, 1, -1)
X_test += np.where(y_test[:, None] == 1, [1.2, 1.2], [-1.0, -0.6])

true_prior = float(np.mean(y_true[unl] == 1))
pu = PUSVM(prior=true_prior, kernel="linear", lam=1e-3).fit(X, y_pu)
biased = SVC(kernel="linear", class_weight="balanced").fit(X, y_pu)
auto = PUSVM(kernel="linear", lam=1e-3).fit(X, y_pu)     # prior="auto"
print(f"prior of the unlabeled rows {true_prior:.2f}, estimated "
      f"{auto.prior_:.2f} (prior='auto'); test error: "
      f"PUSVM with the true prior {100 * np.mean(pu.predict(X_test) != y_test):.1f}%, "
      f"with the estimate {100 * np.mean(auto.predict(X_test) != y_test):.1f}%, "
      f"biased SVM {100 * np.mean(biased.predict(X_test) != y_test):.1f}%")

fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
xx, yy = np.meshgrid(np.linspace(-4, 4.5, 200), np.linspace(-4, 4.5, 200))
grid = np.c_[xx.ravel(), yy.ravel()]
ax.scatter(*X[unl].T, c=np.where(y_true[unl] == 1, "tab:red", "tab:blue"), s=8,
           alpha=0.4, label="unlabeled (true class as colour)")
ax.scatter(*X[labeled].T, c="tab:red", s=40, edgecolors="k", label="labeled positive")
ax.contour(xx, yy, pu.decision_function(grid).reshape(xx.shape), levels=[0],
           colors="k")
ax.contour(xx, yy, biased.decision_function(grid).reshape(xx.shape), levels=[0],
           colors="gray", linestyles="--")
ax.plot([], [], "k-", label="PUSVM")
ax.plot([], [], "--", c="gray", label="biased SVM (U as negative)")
ax.legend(fontsize=8, loc="lower right")
ax.set_title("Positive-unlabeled boundary")

priors = np.linspace(0.1, 0.8, 8)
errs = [100 * np.mean(PUSVM(prior=p, kernel="linear", lam=1e-3).fit(X, y_pu)
                      .predict(X_test) != y_test) for p in priors]
ax2.plot(priors, errs, "o-")
ax2.axvline(true_prior, color="k", ls=":", label="true prior")
ax2.set_xlabel("prior given to PUSVM")
ax2.set_ylabel("test error (%)")
ax2.set_title("A wrong prior costs accuracy")
ax2.legend()
fig.tight_layout()
plt.show()
