"""Reference values for the tests of package anomaly.

Run once with the system interpreter (scikit-learn 1.2.1, NumPy 1.24.2,
SciPy 1.10.1) from stats/anomaly:

    OMP_NUM_THREADS=2 /usr/bin/python3 testdata/reference.py

It writes testdata/sklearn_scores.csv (per-row scikit-learn scores of the
labelled tasks, for rank correlations) and prints the numbers hard-coded in
the tests; the tests never run Python. The data (wine.csv,
breast_cancer.csv: UCI Machine Learning Repository, CC BY 4.0, as bundled
with scikit-learn) are read from ../classify/testdata.

Labelled tasks (one per seed s in 0..4, numpy RandomState(s)):
  breast_cancer: every benign row plus round(0.05 * 357) = 18 malignant
      rows drawn without replacement; the malignant rows are the anomalies.
  wine: every class_0 and class_1 row plus round(0.05 * 130) = 6 class_2
      rows drawn likewise.
Rows are in file order (normal and anomalous rows interleaved as in the
file).

Two IsolationForests are fitted on each task: scikit-learn's defaults
(100 trees, max_samples = min(256, n)), the issue-15 baseline, and the
parameters our forest uses (iforest.go's forestSize: max_samples = psi =
min(256, max(2, n // 4)), n_estimators = ceil(25600 / psi)), the reference
for the score-level comparisons (rank correlation, mean score_samples and
sklearn_scores.csv).
"""

import csv
import math
import os

import numpy as np
from scipy.stats import spearmanr
from sklearn.covariance import EllipticEnvelope, MinCovDet
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "classify", "testdata")


def load(name):
    with open(os.path.join(DATA, name + ".csv")) as f:
        rows = list(csv.reader(f))[1:]
    return np.array([[float(v) for v in r[:-1]] for r in rows]), [r[-1] for r in rows]


def task(name, seed):
    """Row indices into the data file and 0/1 anomaly labels."""
    x, lab = load(name)
    if name == "breast_cancer":
        normal = [i for i, v in enumerate(lab) if v == "benign"]
        other = [i for i, v in enumerate(lab) if v == "malignant"]
    else:
        normal = [i for i, v in enumerate(lab) if v in ("class_0", "class_1")]
        other = [i for i, v in enumerate(lab) if v == "class_2"]
    k = int(round(0.05 * len(normal)))
    pick = np.random.RandomState(seed).choice(other, k, replace=False)
    rows = sorted(normal + list(pick))
    y = np.array([1 if i in set(pick) else 0 for i in rows])
    return x[rows], y, sorted(int(i) for i in pick)


def ours(n, seed):
    """IsolationForest with our forest's size for n rows (forestSize)."""
    psi = min(256, max(2, n // 4))
    return IsolationForest(n_estimators=math.ceil(25600 / psi), max_samples=psi, random_state=seed)


def main():
    out = []
    for name in ("breast_cancer", "wine"):
        print(f"# {name}")
        for seed in range(5):
            x, y, pick = task(name, seed)
            auc_default = roc_auc_score(y, -IsolationForest(random_state=0).fit(x).score_samples(x))
            s_iso = ours(len(y), 0).fit(x).score_samples(x)
            s_iso1 = ours(len(y), 1).fit(x).score_samples(x)
            ee = EllipticEnvelope(random_state=0).fit(x)
            s_ee = ee.score_samples(x)
            auc_iso = roc_auc_score(y, -s_iso)
            auc_ee = roc_auc_score(y, -s_ee)
            rho01 = spearmanr(s_iso, s_iso1).correlation
            print(f"seed {seed}: anomalies {pick}")
            print(f"  AUC IsolationForest {auc_default:.4f}  EllipticEnvelope {auc_ee:.4f}"
                  f"  ours-sized IsolationForest {auc_iso:.4f}"
                  f"  spearman(rs0, rs1) {rho01:.4f}  mean score_samples {s_iso.mean():.5f}")
            if seed == 0:
                for i in range(len(y)):
                    out.append((name, i, s_iso[i], -s_ee[i]))

    with open(os.path.join(HERE, "sklearn_scores.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "row", "iforest_score_samples", "ee_mahalanobis"])
        for r in out:
            w.writerow([r[0], r[1], repr(float(r[2])), repr(float(r[3]))])

    # MinCovDet(random_state=0) on whole files (n <= 500 path for wine;
    # breast_cancer benign rows, 357 x 30; all breast_cancer rows, 569 x 30,
    # the subset path).
    for name, sel in (("wine", None), ("breast_cancer_benign", "benign"), ("breast_cancer", None)):
        x, lab = load(name.replace("_benign", ""))
        if sel:
            x = x[[i for i, v in enumerate(lab) if v == sel]]
        m = MinCovDet(random_state=0).fit(x)
        print(f"# MinCovDet {name} {x.shape}: support {m.support_.sum()} raw support {m.raw_support_.sum()}")
        print("location", repr(m.location_.tolist()))
        print("cov diag", repr(np.diag(m.covariance_).tolist()))
        print("dist[:8]", repr(m.dist_[:8].tolist()))
        print("dist sum", repr(float(m.dist_.sum())), "logdet raw", repr(float(np.linalg.slogdet(m.raw_covariance_)[1])))


if __name__ == "__main__":
    main()
