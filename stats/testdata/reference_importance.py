#!/usr/bin/python3
"""Reference values for stats/importance_test.go and stats/mutualinfo_test.go.

Run once from stats/ with scikit-learn 1.2.1, NumPy 1.24, SciPy 1.10
(Debian's /usr/bin/python3):

    /usr/bin/python3 testdata/reference_importance.py

and paste the printed numbers into the tests; the tests never run Python.

Two independent sources:

* scikit-learn's mutual_info_regression / mutual_info_classif (n_neighbors=3,
  random_state=0) on the first 500 rows of friedman1, which hold no repeated
  values, so the 1e-10 noise scikit-learn adds changes no neighbour count
  and its estimates must equal ours up to rounding. One exception is
  printed: in x1 some points have two same-class neighbours at exactly the
  same distance, which the noise orders at random.
* Brute-force NumPy implementations (below, O(n^2) distance matrices) of the
  tie rule documented on stats.MutualInfo, for iris, whose measurements
  repeat. There scikit-learn's noise decides ties at random, so its
  estimates over 100 seeds are printed only for orientation. To reproduce
  the Go code's floating-point ties exactly, the KSG scaling uses the same
  sequential mean and sum of squares as stats.popStdDev.
"""

import numpy as np
from scipy.special import digamma
from sklearn.feature_selection import mutual_info_classif, mutual_info_regression
from sklearn.metrics import mutual_info_score

K = 3


def pop_std(x):
    mean = 0.0
    for v in x:
        mean += float(v)
    mean /= len(x)
    ss = 0.0
    for v in x:
        ss += (float(v) - mean) * (float(v) - mean)
    return np.sqrt(ss / len(x))


def ksg_ref(x, y, k=K):
    """KSG algorithm 1 with the tie rule of stats.MutualInfo."""
    x = np.asarray(x, float) / pop_std(x)
    y = np.asarray(y, float) / pop_std(y)
    n = len(x)
    dx = np.abs(x[:, None] - x[None, :])
    dy = np.abs(y[:, None] - y[None, :])
    d = np.maximum(dx, dy)
    for a in (d, dx, dy):
        np.fill_diagonal(a, np.inf)  # others only
    total = 0.0
    for i in range(n):
        rho = np.sort(d[i])[k - 1]
        if rho == 0:  # k or more duplicates: counts including i itself
            t = np.sum(d[i] == 0) + 1
            tx = np.sum(dx[i] == 0) + 1
            ty = np.sum(dy[i] == 0) + 1
            total += digamma(t) - digamma(tx) - digamma(ty)
            continue
        a = np.sum(d[i] < rho)
        b = np.sum(d[i] == rho)
        q = k - a
        inb, out = d[i] == rho, d[i] > rho
        nx = np.sum(dx[i] < rho) + (q - 1) / b * np.sum(inb & (dx[i] == rho)) + q / (b + 1) * np.sum(out & (dx[i] == rho))
        ny = np.sum(dy[i] < rho) + (q - 1) / b * np.sum(inb & (dy[i] == rho)) + q / (b + 1) * np.sum(out & (dy[i] == rho))
        total += digamma(k) - digamma(nx + 1) - digamma(ny + 1)
    return max(0.0, digamma(n) + total / n)


def ross_ref(c, lab, k=K):
    """Ross (2014) with the tie rule of stats.MutualInfo."""
    c = np.asarray(c, float)
    lab = np.asarray(lab)
    values, counts = np.unique(lab, return_counts=True)
    count = dict(zip(values, counts))
    keep = np.array([count[v] > 1 for v in lab])
    c, lab = c[keep], lab[keep]
    n = len(c)
    d = np.abs(c[:, None] - c[None, :])
    np.fill_diagonal(d, np.inf)
    total = 0.0
    for i in range(n):
        same = lab == lab[i]
        nc = int(same.sum())
        kk = min(k, nc - 1)
        ds = d[i][same]
        rho = np.sort(ds)[kk - 1]
        a, b = np.sum(ds < rho), np.sum(ds == rho)
        A, B = np.sum(d[i] < rho), np.sum(d[i] == rho)
        if A == 0:
            total += digamma(b + 1) - digamma(nc) - digamma(B + 1)
        else:
            q = kk - a
            total += digamma(kk) - digamma(nc) - digamma(A + q + q * (B - b) / (b + 1))
    return max(0.0, digamma(n) + total / n)


def eta(x, lab):
    x = np.asarray(x, float)
    m = x.mean()
    sst = np.sum((x - m) ** 2)
    ssb = sum(np.sum(lab == c) * (x[lab == c].mean() - m) ** 2 for c in np.unique(lab))
    return np.sqrt(ssb / sst)


def importance(lin, nonlin):
    lin, nonlin = np.asarray(lin), np.asarray(nonlin)
    return np.maximum(lin / lin.max(), nonlin / nonlin.max())


def show(name, v):
    print(f"{name} = []float64{{{', '.join(repr(float(a)) for a in v)}}}")


def main():
    show("digammaAt      // scipy.special.digamma at 1, 2.5, 7.25, 11.999, 12, 13.7, 1000.5", digamma([1, 2.5, 7.25, 11.999, 12, 13.7, 1000.5]))
    # --- friedman1, first 500 rows: no repeated values ---
    f = np.loadtxt("testdata/friedman1_500.csv", delimiter=",", skiprows=1)
    X, y = f[:, :10], f[:, 10]
    assert all(len(np.unique(f[:, j])) == len(f) for j in range(11))
    y3 = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))  # tertile classes 0, 1, 2
    xb = (X[:, 0] > 0.5).astype(float)  # a discrete (0/1) feature

    mi_cc = mutual_info_regression(X, y, n_neighbors=K, random_state=0)
    mi_cd = mutual_info_classif(X, y3, n_neighbors=K, random_state=0)
    mi_dc = mutual_info_regression(xb[:, None], y, discrete_features=True, n_neighbors=K, random_state=0)
    mi_dd = mutual_info_classif(xb[:, None], y3, discrete_features=True, n_neighbors=K, random_state=0)
    assert abs(mi_dd[0] - mutual_info_score(xb, y3)) < 1e-15
    show("friedmanMICC   // mutual_info_regression", mi_cc)
    show("friedmanMICD   // mutual_info_classif, tertiles of y", mi_cd)
    # x1 holds points whose two nearest same-class neighbours are exactly
    # equidistant, which scikit-learn's noise orders at random.
    ref_cd = np.array([ross_ref(X[:, j], y3) for j in range(10)])
    show("friedmanMICDRef // ross_ref", ref_cd)
    print("# |sklearn - ross_ref|:", np.abs(ref_cd - mi_cd).round(15))
    print("friedmanMIDC   =", repr(float(mi_dc[0])), " // x0 > 0.5 discrete, y continuous")
    print("friedmanMIDD   =", repr(float(mi_dd[0])), " // x0 > 0.5 and tertiles")
    ref_cc = np.array([ksg_ref(X[:, j], y) for j in range(10)])
    print("# |sklearn - ksg_ref|:", np.abs(ref_cc - mi_cc).max(), " dc:", abs(ross_ref(y, xb) - mi_dc[0]))
    r = np.array([abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(10)])
    show("friedmanPearson // |np.corrcoef|", r)
    show("friedmanImportance", importance(r, mi_cc))
    etas3 = np.array([eta(X[:, j], y3) for j in range(10)])
    show("friedmanClassImportance // eta and ross_ref", importance(etas3, ref_cd))

    # --- iris: repeated values, so the tie rule matters ---
    names = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    raw = np.genfromtxt("testdata/iris.csv", delimiter=",", skip_header=1, dtype=str)
    I = raw[:, :4].astype(float)
    species = np.unique(raw[:, 4], return_inverse=True)[1]
    etas = np.array([eta(I[:, j], species) for j in range(4)])
    show("irisEta        // numpy", etas)
    ross = np.array([ross_ref(I[:, j], species) for j in range(4)])
    show("irisMI         // ross_ref (tie rule)", ross)
    runs = np.array([mutual_info_classif(I, species, n_neighbors=K, random_state=s) for s in range(100)])
    print("# sklearn mutual_info_classif over random_state 0..99: mean", runs.mean(0).round(4),
          "min", runs.min(0).round(4), "max", runs.max(0).round(4))
    show("irisImportance", importance(etas, ross))
    print("# iris MI / ln 3:", (ross / np.log(3)).round(4))

    # KSG with ties: petal_width as a numeric target.
    pw = I[:, 3]
    ksg = np.array([ksg_ref(I[:, j], pw) for j in range(3)])
    show("irisKSG        // ksg_ref, petal_width numeric target", ksg)
    runs = np.array([mutual_info_regression(I[:, :3], pw, n_neighbors=K, random_state=s) for s in range(100)])
    print("# sklearn mutual_info_regression over random_state 0..99: mean", runs.mean(0).round(4),
          "min", runs.min(0).round(4), "max", runs.max(0).round(4))
    pr = np.array([abs(np.corrcoef(I[:, j], pw)[0, 1]) for j in range(3)])
    show("irisPWImportance // |r| and ksg_ref", importance(pr, ksg))

    # Discrete with ties on both sides: sepal_length rounded to integers as the
    # continuous side of Ross (many exact duplicates) and as a class code.
    sl = np.round(I[:, 0])
    print("irisRoundedRoss =", repr(float(ross_ref(sl, species))), " // ross_ref(round(sepal_length), species)")
    print("irisRoundedDD   =", repr(float(mutual_info_score(sl, species))), " // mutual_info_score")
    print("irisRoundedKSG  =", repr(float(ksg_ref(sl, np.round(I[:, 2])))), " // ksg_ref(round(sl), round(pl))")


if __name__ == "__main__":
    main()
