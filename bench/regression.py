"""The scikit-learn side of the bench regression workload.

Usage: /usr/bin/python3 bench/regression.py FILE.csv > sklearn.json

FILE.csv has a header line and numeric columns; the last column is the
target. The rows are split by RepeatedKFold(n_splits=5, n_repeats=5,
random_state=0); on every training fold, seven regressors are fitted at
scikit-learn's defaults and scored on the test fold. One JSON document goes
to standard output:

    {"sklearn": "1.2.1", "python": "3.11.2", "file": "...", "rows": 2000,
     "columns": ["x0", ..., "y"], "target": "y",
     "nSplits": 5, "nRepeats": 5, "randomState": 0,
     "cpus": 2, "loadAvg": [[8.0, 5.1, 2.3], [7.9, 6.0, 3.1]],
     "folds": [{"test": [3, 7, ...]}, ...],
     "models": [{"key": "ols", "estimator": "LinearRegression",
                 "rmse": [...], "fitSeconds": [...]}, ...]}

"folds" lists the test row indices (0-based, header excluded) of each fold in
the order RepeatedKFold yields them; the training rows are the others.
"rmse" and "fitSeconds" have one entry per fold, in the same order.
fitSeconds times fit() alone (time.perf_counter), not predict().
"loadAvg" is os.getloadavg() before the first fit and after the last: fit
times taken while other processes kept the CPUs busy are unreliable (OpenMP's
threads, which HistGradientBoostingRegressor uses, suffer most).
The Go side (bench/regression.go) reads this document and runs the same folds
through the server.
"""

import csv
import json
import os
import platform
import sys
import time

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.linear_model import Lasso, LinearRegression, Ridge
from sklearn.model_selection import RepeatedKFold
from sklearn.neighbors import KNeighborsRegressor
from sklearn.svm import SVR

N_SPLITS, N_REPEATS, RANDOM_STATE = 5, 5, 0

# (key, constructor): keys follow the server's algorithm keys where one exists.
MODELS = [
    ("ols", LinearRegression),
    ("ridge", Ridge),
    ("lasso", Lasso),
    ("knn", KNeighborsRegressor),
    ("svr_rbf", SVR),  # kernel="rbf" is the default
    ("random_forest", RandomForestRegressor),
    ("hist_gbm", HistGradientBoostingRegressor),
]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [r for r in rows[1:] if r]
    data = np.array(body, dtype=np.float64)
    return header, data[:, :-1], data[:, -1]


def main(argv):
    if len(argv) != 2:
        print("usage: regression.py FILE.csv", file=sys.stderr)
        return 2
    header, x, y = load(argv[1])
    load_before = os.getloadavg()
    folds = list(RepeatedKFold(n_splits=N_SPLITS, n_repeats=N_REPEATS, random_state=RANDOM_STATE).split(x))
    models = []
    for key, make in MODELS:
        rmse, fit_seconds = [], []
        for train, test in folds:
            model = make()
            start = time.perf_counter()
            model.fit(x[train], y[train])
            fit_seconds.append(time.perf_counter() - start)
            err = model.predict(x[test]) - y[test]
            rmse.append(float(np.sqrt(np.mean(err * err))))
        models.append({"key": key, "estimator": type(make()).__name__, "rmse": rmse, "fitSeconds": fit_seconds})
        print(f"sklearn: {key}: mean RMSE {np.mean(rmse):.4f}, fits {sum(fit_seconds):.3f}s", file=sys.stderr)
    load_after = os.getloadavg()
    json.dump({
        "sklearn": sklearn.__version__,
        "python": platform.python_version(),
        "file": argv[1],
        "rows": int(len(y)),
        "columns": header,
        "target": header[-1],
        "nSplits": N_SPLITS,
        "nRepeats": N_REPEATS,
        "randomState": RANDOM_STATE,
        "cpus": os.cpu_count(),
        "loadAvg": [list(load_before), list(load_after)],
        "folds": [{"test": [int(i) for i in test]} for _, test in folds],
        "models": models,
    }, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
