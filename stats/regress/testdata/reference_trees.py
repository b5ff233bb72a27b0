"""Reference values for the tree-ensemble tests of package regress.

Run with the system interpreter that has scikit-learn 1.2.1:

    /usr/bin/python3 stats/regress/testdata/reference_trees.py
    /usr/bin/python3 stats/regress/testdata/reference_trees.py --folds /tmp/folds.txt

The numbers it prints are hard-coded in random_forest_test.go and
gbm_test.go; the tests never run Python. It (re)writes friedman2.csv
(make_friedman2(n_samples=1000, noise=50, random_state=7)). With --folds
it also writes the KFold(n_splits=5, shuffle=True, random_state=0) test
indices of the 2000 friedman1 rows (one fold per line), which
VATIC_FRIEDMAN_FOLDS hands to the cross-validation test (tree_cv_test.go)
for an exact comparison, and prints scikit-learn's 5-fold RMSE of its
default models on the same folds.
"""

import os
import sys

import numpy as np
import sklearn
from sklearn.datasets import make_friedman2
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.model_selection import KFold
from sklearn.svm import SVR
from sklearn.tree import DecisionTreeRegressor

HERE = os.path.dirname(os.path.abspath(__file__))
data = np.loadtxt(os.path.join(HERE, "friedman1.csv"), delimiter=",", skiprows=1)
X, y = data[:, :10], data[:, 10]


def rmse(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


def golist(name, v, fmt="%.17g"):
    print("%s = []float64{%s}" % (name, ", ".join(fmt % x for x in v)))


print("# scikit-learn", sklearn.__version__, "numpy", np.__version__)

# 1. One CART tree, every row and feature, min leaf 5: first 200 rows.
t = DecisionTreeRegressor(min_samples_leaf=5, random_state=0).fit(X[:200], y[:200])
print("## DecisionTreeRegressor(min_samples_leaf=5).fit(X[:200], y[:200])")
print("node_count", t.tree_.node_count, "leaves", t.get_n_leaves())
golist("cartPred", t.predict(X[:200]))
# Unnormalised importance times the root weight = total SSE reduction.
golist("cartGain", t.tree_.compute_feature_importances(normalize=False) * 200)

# 2. Histogram GBM on x floored to 2 decimals (≤ 101 distinct values per
# column, so both binnings use the midpoints between distinct values).
Xf = np.floor(X[:1600] * 100) / 100
for lam in (0.0, 1.0):
    g = HistGradientBoostingRegressor(
        max_iter=1, max_leaf_nodes=2, min_samples_leaf=20,
        l2_regularization=lam, early_stopping=False).fit(Xf, y[:1600])
    nodes = g._predictors[0][0].nodes
    print("## HGB stump, l2_regularization=%g" % lam)
    print("baseline %.17g" % g._baseline_prediction[0][0])
    for nd in nodes:
        print("feature %d threshold %.17g leaf %d value %.17g count %d" % (
            nd["feature_idx"], nd["num_threshold"], nd["is_leaf"], nd["value"], nd["count"]))
    golist("stumpPred", g.predict(Xf[:8]))
    g = HistGradientBoostingRegressor(
        max_iter=20, max_leaf_nodes=7, min_samples_leaf=20,
        l2_regularization=lam, early_stopping=False).fit(Xf, y[:1600])
    print("## HGB(max_iter=20, max_leaf_nodes=7, l2_regularization=%g), floored x" % lam)
    golist("hgb20Pred", g.predict(Xf[:8]))

# 3. Train the first 1600 rows, test the last 400.
tr, te = slice(0, 1600), slice(1600, 2000)
print("## friedman1 train 1600 / test 400")
rf = RandomForestRegressor(n_estimators=200, max_features=1 / 3, min_samples_leaf=5,
                           random_state=0, n_jobs=2).fit(X[tr], y[tr])
print("RF(200, max_features=1/3, min_samples_leaf=5) test RMSE %.6f" % rmse(rf.predict(X[te]), y[te]))
golist("rfImportance", rf.feature_importances_, "%.4f")
rfd = RandomForestRegressor(random_state=0, n_jobs=2).fit(X[tr], y[tr])
print("RF() test RMSE %.6f" % rmse(rfd.predict(X[te]), y[te]))
h = HistGradientBoostingRegressor(random_state=0).fit(X[tr], y[tr])
print("HGB() test RMSE %.6f" % rmse(h.predict(X[te]), y[te]))

# 4. Forests on friedman1 (stats/regress/testdata) and a
# 4-feature friedman2 set: RMSE on the last 20 % for max_features
# 1/3, sqrt and 1.0 (min_samples_leaf 5, 200 trees).
x2, y2 = make_friedman2(n_samples=1000, noise=50, random_state=7)
with open(os.path.join(HERE, "friedman2.csv"), "w") as f:
    f.write("x0,x1,x2,x3,y\n")
    for r, v in zip(x2, y2):
        f.write(",".join("%.17g" % a for a in list(r) + [v]) + "\n")
print("## RandomForestRegressor(200, min_samples_leaf=5) test RMSE by max_features (5 seeds)")
for name, xx, yy, cut in (("friedman1", X, y, 1600), ("friedman2", x2, y2, 800)):
    for mf in (1 / 3, "sqrt", 1.0):
        r = []
        for seed in range(5):
            m = RandomForestRegressor(n_estimators=200, max_features=mf, min_samples_leaf=5,
                                      random_state=seed, n_jobs=2).fit(xx[:cut], yy[:cut])
            r.append(float(np.sqrt(np.mean((m.predict(xx[cut:]) - yy[cut:]) ** 2))))
        print("%-10s max_features=%-6s RMSE mean %.4f  seeds %s" % (name, mf if isinstance(mf, str) else "%.3g" % mf,
                                                                     np.mean(r), " ".join("%.4f" % v for v in r)))

# 5. 5-fold CV on all 2000 rows.
if len(sys.argv) == 3 and sys.argv[1] == "--folds":
    kf = KFold(n_splits=5, shuffle=True, random_state=0)
    models = {
        "HistGradientBoostingRegressor()": lambda: HistGradientBoostingRegressor(),
        "RandomForestRegressor()": lambda: RandomForestRegressor(random_state=0, n_jobs=2),
        "RandomForestRegressor(200, 1/3, 5)": lambda: RandomForestRegressor(
            n_estimators=200, max_features=1 / 3, min_samples_leaf=5, random_state=0, n_jobs=2),
        "SVR()": lambda: SVR(),
    }
    scores = {k: [] for k in models}
    with open(sys.argv[2], "w") as f:
        for trn, tst in kf.split(X):
            f.write(" ".join(str(i) for i in tst) + "\n")
            for k, m in models.items():
                scores[k].append(rmse(m().fit(X[trn], y[trn]).predict(X[tst]), y[tst]))
    print("## KFold(5, shuffle=True, random_state=0) on 2000 rows")
    for k, s in scores.items():
        print("%-36s mean RMSE %.4f  folds %s" % (k, np.mean(s), " ".join("%.4f" % v for v in s)))
