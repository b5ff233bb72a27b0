"""Summarise engine's TestMeasureCVChampion against scikit-learn (issue 14).

Usage: /usr/bin/python3 engine/testdata/cv_measure.py RECORDS.jsonl
       /usr/bin/python3 engine/testdata/cv_measure.py --generate DIR

--generate writes the two larger sets of the issue-14 measurement into DIR:
friedman2_big.csv (make_friedman2(n_samples=6000, noise=50,
random_state=11)) and friedman1_noisy.csv (make_friedman1(n_samples=6000,
noise=3, random_state=12)), header x0.., y.

RECORDS.jsonl comes from TestMeasureCVChampion (see its doc comment): one
session per line, with the data file, the subset of rows [lo, hi) the
session ran on, and per contestant its RMSE on the file's other rows after
a refit on the whole subset ("newRMSE", what a user meets on new data).

For every subset, the scikit-learn regressors of bench/regression.py (the
project's peer set: LinearRegression, Ridge, Lasso, KNeighborsRegressor,
SVR, RandomForestRegressor, HistGradientBoostingRegressor, defaults, with
random_state=0 where they take one) are fitted on the subset's rows and
scored on the same other rows. For each rule that picks the champion
(split: lowest test RMSE; cvBest: lowest cross-validated mean; cv1SE: the
one-SE rule) it prints, over the sessions on that subset, the champion's
new-data RMSE (min, max, sd) and its ratio to the best peer (mean, max).
"""

import collections
import csv
import importlib.util
import json
import os
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = ("split", "cvBest", "cv1SE")


def peers():
    path = os.path.join(HERE, "..", "..", "bench", "regression.py")
    spec = importlib.util.spec_from_file_location("bench_regression", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MODELS


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    data = np.array([r for r in rows[1:] if r], dtype=np.float64)
    return data[:, :-1], data[:, -1]


def rmse(y, p):
    return float(np.sqrt(np.mean((y - p) ** 2)))


def best_peer(x, y, lo, hi):
    inside = np.zeros(len(y), dtype=bool)
    inside[lo:hi] = True
    best = None
    for key, make in peers():
        model = make()
        if "random_state" in model.get_params():
            model.set_params(random_state=0)
        model.fit(x[inside], y[inside])
        v = rmse(y[~inside], model.predict(x[~inside]))
        if best is None or v < best[1]:
            best = (key, v)
    return best


def generate(out):
    from sklearn.datasets import make_friedman1, make_friedman2

    sets = {
        "friedman2_big.csv": make_friedman2(n_samples=6000, noise=50, random_state=11),
        "friedman1_noisy.csv": make_friedman1(n_samples=6000, noise=3, random_state=12),
    }
    os.makedirs(out, exist_ok=True)
    for name, (x, y) in sets.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(",".join("x%d" % i for i in range(x.shape[1])) + ",y\n")
            for row, t in zip(x, y):
                f.write(",".join(repr(float(v)) for v in row) + "," + repr(float(t)) + "\n")


def main(argv):
    if len(argv) == 3 and argv[1] == "--generate":
        generate(argv[2])
        return 0
    if len(argv) != 2:
        print("usage: cv_measure.py RECORDS.jsonl", file=sys.stderr)
        return 2
    groups = collections.OrderedDict()
    with open(argv[1]) as f:
        for line in f:
            r = json.loads(line)
            groups.setdefault((r["data"], r["lo"], r["hi"]), []).append(r)
    files = {}
    print("| data | rows | rule | champions | new-data RMSE min / max / sd | ÷ best peer mean / max | best peer |")
    print("|---|---|---|---|---|---|---|")
    for (path, lo, hi), recs in groups.items():
        if path not in files:
            files[path] = load(path)
        x, y = files[path]
        peer, peer_rmse = best_peer(x, y, lo, hi)
        for rule in RULES:
            vals, champs = [], collections.Counter()
            for r in recs:
                key = r["champion"][rule]
                champs[key] += 1
                vals.append(r["newRMSE"][r["algos"].index(key)])
            ratios = [v / peer_rmse for v in vals]
            print("| %s | %d–%d | %s | %s | %.3f / %.3f / %.3f | %.3f / %.3f | %s %.3f |" % (
                os.path.basename(path), lo, hi, rule,
                ", ".join("%s %d" % kv for kv in sorted(champs.items())),
                min(vals), max(vals), statistics.stdev(vals),
                statistics.mean(ratios), max(ratios), peer, peer_rmse))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
