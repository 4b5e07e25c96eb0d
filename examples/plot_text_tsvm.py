"""
Sparse text with TSVM
=====================

The transductive SVM on a sparse CSR term matrix, the setting it was built
for (Joachims 1999; Sindhwani & Keerthi 2006). A small corpus is generated
here (no download): documents of two topics draw their words from a shared
vocabulary plus a few topic words; scikit-learn's ``TfidfVectorizer`` turns
them into a CSR matrix, which the estimators use as it is (never densified).

The plot shows the error on the unlabeled documents against the number of
labeled ones, the mean of three random draws of the labeled documents, for
the supervised LinearSVM trained on the labeled documents alone (the
baseline: TSVM's objective without the unlabeled documents) and for TSVM and DASVM.
The printed lines mark a draw where a transductive model loses to the
baseline. With 10-20 labels some draws leave every model near chance: the
class balance ``r="auto"`` is then estimated from a supervised model that
has not found the topics yet. From 50 labels on, the unlabeled documents
help in every draw here.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from semisvm import DASVM, TSVM, LinearSVM

rng = np.random.default_rng(0)
vocab = np.array([f"w{i}" for i in range(3000)])
shared = rng.random(3000) ** 4                         # common words
topic = [shared + 2.0 * (rng.random(3000) < 0.05) * rng.random(3000) for _ in range(2)]
topic = [t / t.sum() for t in topic]
n_docs = 3000
y = rng.integers(0, 2, n_docs)
docs = [" ".join(rng.choice(vocab, size=rng.integers(20, 60), p=topic[c])) for c in y]
X = TfidfVectorizer().fit_transform(docs)             # CSR, float64
print(f"{X.shape[0]} documents x {X.shape[1]} terms, {X.nnz / X.shape[0]:.0f} "
      f"non-zeros per row, {type(X).__name__}")

n_labeled = (10, 20, 50, 100, 200)
names = ("LinearSVM (labels only)", "TSVM", "DASVM")
errors = {name: [] for name in names}
for n_l in n_labeled:
    draws = {name: [] for name in names}
    for draw in range(3):
        lab = rng.choice(n_docs, n_l, replace=False)
        while np.unique(y[lab]).size < 2:              # both topics labeled
            lab = rng.choice(n_docs, n_l, replace=False)
        y_semi = np.full(n_docs, -1)
        y_semi[lab] = y[lab]
        unl = y_semi == -1
        fitted = {"TSVM": TSVM().fit(X, y_semi), "DASVM": DASVM().fit(X, y_semi)}
        # TSVM's objective without the unlabeled rows: TSVM averages the
        # labeled loss over the n_l labeled rows, LinearSVM sums it
        sup = LinearSVM(lam=fitted["TSVM"].lam_ * n_l).fit(X[lab], y[lab])
        draws[names[0]].append(100 * np.mean(sup.predict(X[unl]) != y[unl]))
        for name, est in fitted.items():
            draws[name].append(100 * np.mean(est.transduction_[unl] != y[unl]))
        base = draws[names[0]][-1]
        print(f"{n_l:4d} labeled, draw {draw}: " + ", ".join(
            f"{k} {v[-1]:.1f}%" + (" (worse than the baseline)"
                                   if k != names[0] and v[-1] > base else "")
            for k, v in draws.items()))
    for name in names:
        errors[name].append(float(np.mean(draws[name])))

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, errs in errors.items():
    ax.plot(n_labeled, errs, "o-", label=name)
ax.set_xscale("log")
ax.set_xlabel("labeled documents (of 3,000)")
ax.set_ylabel("error on the unlabeled documents (%), mean of 3 draws")
ax.set_title("Two-topic text, TF-IDF CSR")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
plt.show()
