"""The scikit-learn side of the bench anomalies workload.

Usage: /usr/bin/python3 bench/anomalies.py TASKS.json > sklearn.json

TASKS.json is {"tasks": [{"task": "wine", "seed": 0, "file": "/path.csv"},
...]}. Each file has a header line, numeric feature columns and a last
column "anomalous" holding 1 for the rows planted as anomalies and 0 for the
normal ones. The Go side (bench/anomalies.go) writes them: the same rows, in
the same order, as the datasets its anomalies sessions score.

On every task two detectors are fitted on the features of all its rows (no
labels, no split: anomaly detection scores the rows it was fitted on), with
random_state = the task's seed and every other parameter at scikit-learn's
defaults: IsolationForest and EllipticEnvelope. Each row's anomaly score is
-score_samples(x), higher = more anomalous (score_samples is higher for
normal rows; decision_function only shifts it by offset_, so the ranking and
the ROC-AUC are the same). One JSON document goes to standard output:

    {"sklearn": "1.2.1", "python": "3.11.2", "cpus": 2,
     "tasks": [{"task": "wine", "seed": 0, "rows": 137, "anomalies": 7,
                "models": [{"key": "isolation_forest", "estimator": "IsolationForest",
                            "rocAuc": 0.93, "fitSeconds": 0.12, "scores": [...]},
                           {"key": "elliptic_envelope", ...}]}, ...]}

"tasks" follows TASKS.json. rocAuc is roc_auc_score(anomalous, scores);
"scores" lists every row's score in file order, so that the Go side can
recompute the AUC and check that both read the rows alike. fitSeconds times
fit() alone (time.perf_counter).
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
from sklearn.covariance import EllipticEnvelope
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score

# (key, estimator name, constructor of a seed).
MODELS = [
    ("isolation_forest", "IsolationForest", lambda seed: IsolationForest(random_state=seed)),
    ("elliptic_envelope", "EllipticEnvelope", lambda seed: EllipticEnvelope(random_state=seed)),
]


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f)]
    header, body = rows[0], [r for r in rows[1:] if r]
    if header[-1] != "anomalous":
        raise ValueError(f"{path}: the last column is {header[-1]!r}, want 'anomalous'")
    x = np.array([r[:-1] for r in body], dtype=np.float64)
    y = np.array([int(r[-1]) for r in body], dtype=np.int64)
    return x, y


def main(argv):
    if len(argv) != 2:
        print("usage: anomalies.py TASKS.json", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        tasks = json.load(f)["tasks"]
    # EllipticEnvelope warns when the covariance of its support is not of
    # full rank; say it once per kind rather than once per fit.
    warnings.simplefilter("once", UserWarning)
    out = []
    for t in tasks:
        x, y = load(t["file"])
        models = []
        for key, estimator, make in MODELS:
            model = make(int(t["seed"]))
            start = time.perf_counter()
            model.fit(x)
            fit_seconds = time.perf_counter() - start
            scores = -model.score_samples(x)
            models.append({"key": key, "estimator": estimator, "rocAuc": float(roc_auc_score(y, scores)),
                           "fitSeconds": fit_seconds, "scores": [float(s) for s in scores]})
        print(f"sklearn: {t['task']} seed {t['seed']}: " +
              ", ".join(f"{m['key']} ROC-AUC {m['rocAuc']:.4f}" for m in models), file=sys.stderr)
        out.append({"task": t["task"], "seed": int(t["seed"]), "rows": int(len(y)), "anomalies": int(y.sum()),
                    "models": models})
    json.dump({
        "sklearn": sklearn.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "tasks": out,
    }, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
