#!/usr/bin/python3
"""Reference numbers for multinomial naive Bayes (stats/classify,
multinomial_nb.go).

Run once with the system interpreter, which has scikit-learn 1.2.1:

    /usr/bin/python3 stats/classify/testdata/reference_multinomial_nb.py

It writes reference_multinomial_nb.json beside itself; the Go test
(multinomial_nb_test.go) reads that file and never runs Python.

Data: a small fixed set drawn here with numpy's PCG64 seeded 16 (issue 16),
stored in the JSON so both sides see the same numbers. Three classes of
unequal sizes; columns shaped as the engine's mixed matrices are:

    0-3  word counts, Poisson with class-dependent rates
    4-5  TF-IDF-like values: non-negative floats, many zeros
    6    a z-scorable numeric column with negative values (not counts)
    7    a non-negative numeric column (kept, as scikit-learn keeps it)
    8    a column that is zero in every training row

Weights are uniform in [0.5, 2]. Column 6 has negative training values,
so multinomial_nb.go ignores it; scikit-learn rejects negative input, so
the reference model is fitted on the other columns, which is what the Go
model must reproduce on the full matrix. Test rows carry negative values
in column 6 too (ignored) and are otherwise drawn as the training rows.

Keys of "proba": "<alpha>" unweighted and "<alpha>w" with the weights,
each predict_proba of every test row (row-major, test rows × 3) of
MultinomialNB(alpha, fit_prior=True, force_alpha=True).
"""
import json

import numpy as np
from sklearn.naive_bayes import MultinomialNB

rng = np.random.Generator(np.random.PCG64(16))
K = 3
RATES = np.array([[3.0, 0.5, 1.0, 0.2],
                  [0.5, 3.0, 1.0, 0.2],
                  [1.0, 1.0, 0.3, 2.5]])


def draw(y):
    n = len(y)
    counts = rng.poisson(RATES[y])
    tfidf = rng.uniform(0, 1, (n, 2)) * (rng.uniform(0, 1, (n, 2)) < 0.4 + 0.2 * y[:, None])
    numeric = rng.normal(0.3 * y, 1.0, n)
    positive = rng.uniform(0, 5, n) + y
    zero = np.zeros(n)
    return np.column_stack([counts, tfidf, numeric, positive, zero]).astype(float)


ytr = np.repeat(np.arange(K), [14, 9, 7])
rng.shuffle(ytr)
Xtr = draw(ytr)
w = rng.uniform(0.5, 2.0, len(ytr))
yte = rng.integers(0, K, 8)
Xte = draw(yte)
Xte[0, 8] = 1.0  # a count in the column never seen in training

used = [j for j in range(Xtr.shape[1]) if (Xtr[:, j] >= 0).all()]
assert used == [0, 1, 2, 3, 4, 5, 7, 8], used

proba = {}
for alpha in [1.0, 0.1]:
    for weighted in [False, True]:
        m = MultinomialNB(alpha=alpha, fit_prior=True, force_alpha=True)
        m.fit(Xtr[:, used], ytr, sample_weight=w if weighted else None)
        key = repr(alpha) + ("w" if weighted else "")
        proba[key] = m.predict_proba(Xte[:, used]).ravel().tolist()

out = {
    "sklearn": __import__("sklearn").__version__,
    "cols": Xtr.shape[1],
    "used": used,
    "x": Xtr.ravel().tolist(),
    "y": ytr.tolist(),
    "w": w.tolist(),
    "test_x": Xte.ravel().tolist(),
    "proba": proba,
}
path = __file__.replace(".py", ".json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(f"wrote {path}")
