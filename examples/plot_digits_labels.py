"""
Error against the number of labels on digits
============================================

All ten digit classes of scikit-learn's bundled digits (no download): 1,200
training rows of which 1 to 10 per class are labeled, the rest unlabeled
(``y == -1``), and 597 test rows. Each estimator is fitted on the same draw;
the plot shows the test error against the number of labels per class. The
supervised :class:`~semisvm.LinearSVM` sees only the labeled rows: it is the
baseline, and a printed line marks a semi-supervised model that loses to it.
The others also use the unlabeled rows (one-vs-rest for the linear TSVM and
DASVM). The documentation's estimator chooser shows this example's numbers
as a table, computed when the documentation is built.
"""
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from semisvm import DASVM, TSVM, TVRLS, LapRLS, LapSVM, LinearSVM

X, y = load_digits(return_X_y=True)
X = X / 16.0
rng = np.random.default_rng(0)
perm = rng.permutation(X.shape[0])
tr, te = perm[:1200], perm[1200:]
models = {
    "LinearSVM (labels only)": lambda: LinearSVM(lam=0.01),
    "TSVM": lambda: TSVM(),
    "DASVM": lambda: DASVM(),
    "LapSVM": lambda: LapSVM(),
    "LapRLS": lambda: LapRLS(),
    "TVRLS": lambda: TVRLS(random_state=0),
}
per_class = (1, 2, 5, 10)
errors = {name: [] for name in models}
for m in per_class:
    y_semi = np.full(tr.size, -1)
    for c in range(10):
        y_semi[rng.choice(np.flatnonzero(y[tr] == c), m, replace=False)] = c
    lab = y_semi >= 0
    for name, make in models.items():
        t = time.process_time()
        if name.startswith("LinearSVM"):
            clf = make().fit(X[tr][lab], y_semi[lab])
        else:
            clf = make().fit(X[tr], y_semi)
        err = np.mean(clf.predict(X[te]) != y[te])
        errors[name].append(100 * err)
        base = errors["LinearSVM (labels only)"][-1]
        worse = "  worse than the baseline" if 100 * err > base else ""
        print(f"{m:2d} labels/class  {name:<24} test error {100 * err:5.1f}%  "
              f"({time.process_time() - t:.2f} s CPU){worse}")

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, errs in errors.items():
    ax.plot(per_class, errs, "o-", label=name)
ax.set_xscale("log")
ax.set_xticks(per_class, [str(m) for m in per_class])
ax.set_xlabel("labeled rows per class (of 1,200 training rows)")
ax.set_ylabel("test error (%)")
ax.set_title("Digits, 10 classes")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
plt.show()
