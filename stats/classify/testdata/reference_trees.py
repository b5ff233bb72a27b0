"""Reference values for the tree-ensemble tests of package classify.

Run with the system interpreter that has scikit-learn 1.2.1:

    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 stats/classify/testdata/reference_trees.py

It writes the folds (folds_<data>.txt: StratifiedKFold(n_splits=5,
shuffle=True, random_state=0) test indices, one fold a line) and
prints the numbers hard-coded in forest_test.go, gbm_test.go and
tree_bench_test.go; the tests never run Python. The data (iris.csv, wine.csv, breast_cancer.csv: UCI Machine
Learning Repository, CC BY 4.0, as bundled with scikit-learn) are copies
of /work/shared/data.
"""

import csv
import os
import time

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.class_weight import compute_sample_weight

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    """x and class indices, classes in sorted order (numeric when all parse)."""
    with open(os.path.join(HERE, name + ".csv")) as f:
        rows = list(csv.reader(f))[1:]
    x = np.array([[float(v) for v in r[:-1]] for r in rows])
    labels = [r[-1] for r in rows]
    try:
        classes = sorted(set(labels), key=float)
    except ValueError:
        classes = sorted(set(labels))
    return x, np.array([classes.index(v) for v in labels])


def golist(name, v, fmt="%.17g"):
    print("%s = []float64{%s}" % (name, ", ".join(fmt % x for x in np.ravel(v))))


def splitmix(n):
    """n uniforms in [0, 1) from SplitMix64 seeded 42, as the Go tests'."""
    out = np.empty(n)
    s = 42
    m = (1 << 64) - 1
    for i in range(n):
        s = (s + 0x9E3779B97F4A7C15) & m
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        z ^= z >> 31
        out[i] = (z >> 11) * 2.0 ** -53
    return out


def synthetic(n, d):
    """The Go benchmark's n × d three-class set (see synthetic in forest_test.go)."""
    u = splitmix(n * (d + 1)).reshape(n, d + 1)
    x = u[:, :d]
    s = np.sin(3 * x[:, 0]) + x[:, 1] * x[:, 2] + 4 * (x[:, 3] - 0.5) ** 2 - x[:, 4] + 0.5 * (u[:, d] - 0.5)
    y = (s > 0.3).astype(int) + (s > 0.8).astype(int)
    return x, y


print("# scikit-learn", sklearn.__version__, "numpy", np.__version__)

# 1. One CART tree on breast_cancer, every feature, min leaf 10, unit and
# balanced weights: probabilities of rows 0..9 and total weighted Gini
# decrease per column (unnormalised importance × root weight).
x, y = load("breast_cancer")
for name, w in (("unit", None), ("balanced", compute_sample_weight("balanced", y))):
    t = DecisionTreeClassifier(min_samples_leaf=10, random_state=0).fit(x, y, sample_weight=w)
    print("## DecisionTreeClassifier(min_samples_leaf=10), %s weights: nodes %d" % (name, t.tree_.node_count))
    golist("cartProba_" + name, t.predict_proba(x[:10])[:, 1])
    root = t.tree_.weighted_n_node_samples[0]
    golist("cartGain_" + name, t.tree_.compute_feature_importances(normalize=False) * root)

# 2. Histogram boosting on iris (≤ 43 distinct values per column, so both
# binnings put every value in its own bin): 3 classes, and binary
# virginica-or-not. Probabilities of rows 0, 50, 100, 149 (and 120).
x, y = load("iris")
rows = [0, 50, 100, 120, 149]
for name, yy in (("multi", y), ("binary", (y == 2).astype(int))):
    for lam in (0.0, 1.0):
        g = HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=7, min_samples_leaf=20,
                                           l2_regularization=lam, early_stopping=False).fit(x, yy)
        print("## HGBC(max_iter=10, max_leaf_nodes=7, l2=%g) on iris %s" % (lam, name))
        golist("hgbProba_%s_%g" % (name, lam), g.predict_proba(x[rows]))

# 2b. The same with balanced weights after dropping half of class 0
# (rows 0..24): probabilities of rows 25, 50, 100, 120, 149.
keep = np.arange(25, 150)
rows_w = [0, 25, 75, 95, 124]
for name, yy in (("multi", y[keep]), ("binary", (y[keep] == 2).astype(int))):
    w = compute_sample_weight("balanced", yy)
    g = HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=7, min_samples_leaf=20,
                                       l2_regularization=1.0, early_stopping=False).fit(x[keep], yy, sample_weight=w)
    print("## HGBC(max_iter=10, max_leaf_nodes=7, l2=1) on iris[25:] %s, balanced weights" % name)
    golist("hgbProbaW_%s" % name, g.predict_proba(x[keep][rows_w]))

# 3. Stratified 5-fold macro-F1 of the default ensembles.
print("## StratifiedKFold(5, shuffle=True, random_state=0) macro-F1 (mean over folds)")
for data in ("iris", "wine", "breast_cancer"):
    x, y = load(data)
    skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    scores = {"rf": [], "rf200": [], "hgb": []}
    with open(os.path.join(HERE, "folds_%s.txt" % data), "w") as f:
        for trn, tst in skf.split(x, y):
            f.write(" ".join(str(i) for i in tst) + "\n")
            for k, m in (("rf", RandomForestClassifier(random_state=0, n_jobs=2)),
                         ("rf200", RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=2)),
                         ("hgb", HistGradientBoostingClassifier(random_state=0))):
                p = m.fit(x[trn], y[trn]).predict(x[tst])
                scores[k].append(f1_score(y[tst], p, average="macro"))
    for k, s in scores.items():
        print("%-14s %-6s macro-F1 %.4f  folds %s" % (data, k, np.mean(s), " ".join("%.4f" % v for v in s)))

# 4. Fit times (best of 3), 2 threads.
def best_time(f, reps=3):
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)


print("## fit times, seconds (best of 3; n_jobs=2, OMP_NUM_THREADS=%s, OMP_WAIT_POLICY=%s)" % (os.environ.get("OMP_NUM_THREADS"), os.environ.get("OMP_WAIT_POLICY")))
x, y = load("breast_cancer")
xs, ys = synthetic(10000, 20)
print("synthetic class counts", np.bincount(ys))
for name, (xx, yy) in (("breast_cancer", (x, y)), ("synthetic10000x20", (xs, ys))):
    for k, mk in (("RandomForestClassifier(200)", lambda: RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=2)),
                  ("HistGradientBoostingClassifier()", lambda: HistGradientBoostingClassifier(random_state=0)),
                  ("HGBC(early_stopping=True)", lambda: HistGradientBoostingClassifier(early_stopping=True, random_state=0))):
        print("%-18s %-34s %.3f s" % (name, k, best_time(lambda: mk().fit(xx, yy))))
xt, yt = synthetic(12000, 20)
xt, yt = xt[10000:], yt[10000:]
for k, m in (("RF(200)", RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=2)),
             ("HGBC()", HistGradientBoostingClassifier(random_state=0))):
    p = m.fit(xs, ys).predict(xt)
    print("synthetic holdout (rows 10000..11999) %s macro-F1 %.4f" % (k, f1_score(yt, p, average="macro")))
