"""The scikit-learn side of the bench classification workload.

Usage: /usr/bin/python3 bench/classification.py FILE.csv FOLDS.json > sklearn.json

FILE.csv has a header line and numeric feature columns; the last column is
the target, read as strings (class labels). FOLDS.json is {"folds": [{"test":
[i, ...]}, ...]}: the 0-based row indices (header excluded) of every test
fold, the training rows being the others. The Go side (bench/classification.go)
writes it: 5-fold stratified folds repeated with a seed, the same folds its
sessions run on. On every training fold, six classifiers are fitted at
scikit-learn's defaults (k-NN and the RBF SVC behind a StandardScaler) and
scored on the test fold. One JSON document goes to standard output:

    {"sklearn": "1.2.1", "python": "3.11.2", "file": "...", "rows": 150,
     "columns": ["sepal_length", ..., "species"], "target": "species",
     "classes": ["setosa", "versicolor", "virginica"],
     "cpus": 2, "loadAvg": [[1.0, 0.8, 0.5], [1.2, 0.9, 0.6]],
     "folds": [{"test": [3, 7, ...]}, ...],
     "models": [{"key": "logistic_regression", "estimator": "LogisticRegression",
                 "macroF1": [...], "fitSeconds": [...]}, ...]}

"classes" are the distinct labels, sorted as strings. "folds" repeats
FOLDS.json. "macroF1" and "fitSeconds" have one entry per fold, in the order
of "folds". macroF1 is f1_score(average="macro") over every class of
"classes", zero_division=0: the mean of the per-class F1, as MODELLING §7.2
defines macroAverageF1Score. fitSeconds times fit() alone
(time.perf_counter), the scaler of a pipeline included, not predict().
"loadAvg" is os.getloadavg() before the first fit and after the last.
"""

import csv
import json
import os
import platform
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

# (key, estimator name, constructor): keys follow the server's algorithm
# keys where one exists.
MODELS = [
    ("logistic_regression", "LogisticRegression", LogisticRegression),
    ("naive_bayes", "GaussianNB", GaussianNB),
    ("knn", "StandardScaler+KNeighborsClassifier", lambda: make_pipeline(StandardScaler(), KNeighborsClassifier())),
    ("svc_rbf", "StandardScaler+SVC", lambda: make_pipeline(StandardScaler(), SVC())),  # kernel="rbf" is the default
    ("random_forest", "RandomForestClassifier", RandomForestClassifier),
    ("hist_gbm", "HistGradientBoostingClassifier", HistGradientBoostingClassifier),
]


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f)]
    header, body = rows[0], [r for r in rows[1:] if r]
    x = np.array([r[:-1] for r in body], dtype=np.float64)
    y = np.array([r[-1] for r in body], dtype=object)
    return header, x, y


def main(argv):
    if len(argv) != 3:
        print("usage: classification.py FILE.csv FOLDS.json", file=sys.stderr)
        return 2
    header, x, y = load(argv[1])
    with open(argv[2]) as f:
        folds = json.load(f)["folds"]
    classes = sorted(set(y))
    n = len(y)
    splits = []
    for k, fold in enumerate(folds):
        test = np.array(fold["test"], dtype=np.int64)
        if len(test) == 0 or test.min() < 0 or test.max() >= n:
            print(f"fold {k + 1}: test rows out of range", file=sys.stderr)
            return 2
        train = np.setdiff1d(np.arange(n), test)
        splits.append((train, test))
    # LogisticRegression at its default max_iter may stop early on unscaled
    # data (breast_cancer); that is part of "defaults", so say it once.
    warnings.simplefilter("once", ConvergenceWarning)
    load_before = os.getloadavg()
    models = []
    for key, estimator, make in MODELS:
        f1, fit_seconds = [], []
        for train, test in splits:
            model = make()
            start = time.perf_counter()
            model.fit(x[train], y[train])
            fit_seconds.append(time.perf_counter() - start)
            pred = model.predict(x[test])
            f1.append(float(f1_score(y[test], pred, labels=classes, average="macro", zero_division=0)))
        models.append({"key": key, "estimator": estimator, "macroF1": f1, "fitSeconds": fit_seconds})
        print(f"sklearn: {os.path.basename(argv[1])} {key}: mean macro-F1 {np.mean(f1):.4f}, fits {sum(fit_seconds):.3f}s",
              file=sys.stderr)
    load_after = os.getloadavg()
    json.dump({
        "sklearn": sklearn.__version__,
        "python": platform.python_version(),
        "file": argv[1],
        "rows": int(n),
        "columns": header,
        "target": header[-1],
        "classes": [str(c) for c in classes],
        "cpus": os.cpu_count(),
        "loadAvg": [list(load_before), list(load_after)],
        "folds": [{"test": [int(i) for i in test]} for _, test in splits],
        "models": models,
    }, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
