"""
Sparse text with TSVM
=====================

The transductive SVM on a sparse CSR term matrix, the setting it was built
for (Joachims 1999; Sindhwani & Keerthi 2006). A small corpus is generated
here (no download): documents of two topics draw their words from two
overlapping vocabularies; scikit-learn's ``TfidfVectorizer`` turns them into a
CSR matrix, which the estimators use as it is (never densified).

The plot shows the error on the unlabeled documents against the number of
labeled ones for LinearSVM (labels only), TSVM and DASVM.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from semisvm import DASVM, TSVM, LinearSVM

rng = np.random.default_rng(0)
vocab = np.array([f"w{i}" for i in range(3000)])
shared = rng.random(3000) ** 4                         # common words
topic = [shared + 0.8 * (rng.random(3000) < 0.05) * rng.random(3000) for _ in range(2)]
topic = [t / t.sum() for t in topic]
n_docs = 3000
y = rng.integers(0, 2, n_docs)
docs = [" ".join(rng.choice(vocab, size=rng.integers(10, 40), p=topic[c])) for c in y]
X = TfidfVectorizer().fit_transform(docs)             # CSR, float64
print(f"{X.shape[0]} documents x {X.shape[1]} terms, {X.nnz / X.shape[0]:.0f} "
      f"non-zeros per row, {type(X).__name__}")

n_labeled = (10, 20, 50, 100, 200)
errors = {"LinearSVM (labels only)": [], "TSVM": [], "DASVM": []}
for n_l in n_labeled:
    y_semi = np.full(n_docs, -1)
    lab = rng.choice(n_docs, n_l, replace=False)
    y_semi[lab] = y[lab]
    unl = y_semi == -1
    sup = LinearSVM(lam=0.01).fit(X[lab], y[lab])
    errors["LinearSVM (labels only)"].append(100 * np.mean(sup.predict(X[unl]) != y[unl]))
    for name, est in (("TSVM", TSVM()), ("DASVM", DASVM())):
        est.fit(X, y_semi)
        errors[name].append(100 * np.mean(est.transduction_[unl] != y[unl]))
    print(f"{n_l:4d} labeled: " + ", ".join(f"{k} {v[-1]:.1f}%" for k, v in errors.items()))

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, errs in errors.items():
    ax.plot(n_labeled, errs, "o-", label=name)
ax.set_xscale("log")
ax.set_xlabel("labeled documents (of 3,000)")
ax.set_ylabel("error on the unlabeled documents (%)")
ax.set_title("Two-topic text, TF-IDF CSR")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
plt.show()
