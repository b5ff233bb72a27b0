#!/usr/bin/python3
"""Reference numbers for logistic regression, naive Bayes and k-NN
(stats/classify).

Run once with the system interpreter, which has scikit-learn 1.2.1:

    /usr/bin/python3 stats/classify/testdata/reference_linear.py

and copy the printed values into logistic_test.go, naive_bayes_test.go,
knn_test.go and reference_test.go. The Go tests never run Python.

Data: iris.csv, wine.csv and breast_cancer.csv (copies of
/work/shared/data, UCI, CC BY 4.0); the last column is the class, coded
0..K-1 in sorted label order as the engine does (MODELLING §7.1). Split:
rows whose index is a multiple of 4 test, the others train. "Z" is the
training columns z-scored with the training mean and the *sample*
standard deviation (ddof=1), as classify's standardizer does; test rows
are scaled with the training statistics.
"""
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

DATA = ["iris", "wine", "breast_cancer"]


def load(name):
    path = __file__.replace("reference_linear.py", name + ".csv")
    raw = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=str)
    X = raw[:, :-1].astype(float)
    classes, y = np.unique(raw[:, -1], return_inverse=True)
    return X, y, len(classes)


def show(name, v):
    v = np.asarray(v, dtype=float).ravel()
    print(f"{name} = {', '.join(repr(float(x)) for x in v)}")


def balance(y, k):
    counts = np.bincount(y, minlength=k)
    return (len(y) / (k * counts))[y]


for name in DATA:
    X, y, k = load(name)
    test = np.arange(len(y)) % 4 == 0
    Xtr, ytr, Xte, yte = X[~test], y[~test], X[test], y[test]
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0, ddof=1)
    Ztr, Zte = (Xtr - mu) / sd, (Xte - mu) / sd
    print(f"# {name}: {len(ytr)} train, {len(yte)} test rows, {k} classes")

    # Multinomial L2 logistic regression at C = 0.5, converged tightly.
    # With two classes scikit-learn keeps only the class-1 row of the
    # symmetric softmax solution (class 0's is its negative).
    lr = LogisticRegression(C=0.5, multi_class="multinomial", solver="lbfgs",
                            tol=1e-12, max_iter=100000).fit(Ztr, ytr)
    show(f"{name}.l2.coef", lr.coef_)
    show(f"{name}.l2.intercept", lr.intercept_ - lr.intercept_.mean() if k > 2 else lr.intercept_)
    show(f"{name}.l2.proba", lr.predict_proba(Zte[:4]))

    # The same with balance weights (MODELLING §7.5) as sample weights.
    lrw = LogisticRegression(C=0.5, multi_class="multinomial", solver="lbfgs",
                             tol=1e-12, max_iter=100000).fit(Ztr, ytr, sample_weight=balance(ytr, k))
    show(f"{name}.l2w.proba", lrw.predict_proba(Zte[:4]))

    # Multinomial L1 logistic regression at C = 0.5 (saga, tight tol).
    l1 = LogisticRegression(C=0.5, penalty="l1", multi_class="multinomial", solver="saga",
                            tol=1e-10, max_iter=1000000).fit(Ztr, ytr)
    show(f"{name}.l1.coef", l1.coef_)
    show(f"{name}.l1.proba", l1.predict_proba(Zte[:4]))

    # Gaussian naive Bayes on the raw columns, unweighted and weighted.
    nb = GaussianNB().fit(Xtr, ytr)
    show(f"{name}.nb.proba", nb.predict_proba(Xte[:4]))
    nbw = GaussianNB().fit(Xtr, ytr, sample_weight=balance(ytr, k))
    show(f"{name}.nbw.proba", nbw.predict_proba(Xte[:4]))

    # k-NN on Z: every test row's uniform 5-NN votes (as counts), and the
    # 10-NN distance-weighted probabilities of the first four test rows.
    kn = KNeighborsClassifier(n_neighbors=5, algorithm="brute").fit(Ztr, ytr)
    votes = np.rint(kn.predict_proba(Zte) * 5).astype(int)
    print(f"{name}.knn5.votes = {''.join(''.join(map(str, r)) for r in votes)}")
    kd = KNeighborsClassifier(n_neighbors=10, weights="distance", algorithm="brute").fit(Ztr, ytr)
    show(f"{name}.knn10d.proba", kd.predict_proba(Zte[:4]))

    # Cross-validation sanity: stratified 5 folds without shuffling (the
    # j-th row of each class goes to fold j mod 5), mean per-fold macro-F1
    # of scikit-learn's default models (scaled where the model needs it).
    fold = np.zeros(len(y), dtype=int)
    for c in range(k):
        rows = np.flatnonzero(y == c)
        fold[rows] = np.arange(len(rows)) % 5
    models = {
        "logistic_regression_l2": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=10000)),
        "logistic_regression_l1": lambda: make_pipeline(StandardScaler(), LogisticRegression(
            penalty="l1", solver="saga", max_iter=10000)),
        "naive_bayes": GaussianNB,
        "knn": lambda: make_pipeline(StandardScaler(), KNeighborsClassifier()),
    }
    for key, make in models.items():
        f1 = []
        for f in range(5):
            m = make().fit(X[fold != f], y[fold != f])
            f1.append(f1_score(y[fold == f], m.predict(X[fold == f]), average="macro"))
        print(f"{name}.cv.{key} = {np.mean(f1)!r}")
