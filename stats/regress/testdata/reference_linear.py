#!/usr/bin/python3
"""Reference numbers for the linear and k-NN regressors (stats/regress).

Run once with the system interpreter, which has scikit-learn 1.2.1:

    /usr/bin/python3 stats/regress/testdata/reference_linear.py

and copy the printed values into ols_test.go, ridge_test.go, lasso_test.go
and knn_test.go. The Go tests never run Python.

Data: friedman1.csv, first 1600 rows to train, last 400 to test. "Z" below
is the training columns z-scored with the training mean and the *sample*
standard deviation (ddof=1), as regress's standardizer does; test rows are
scaled with the training statistics. Coefficients fitted on Z are mapped
back to the input scale (beta_j / sd_j, intercept ybar - sum beta_j mean_j /
sd_j) because regress reports input-scale coefficients.
"""
import time

import numpy as np
from sklearn.linear_model import Lasso, LassoCV, LinearRegression, Ridge, RidgeCV
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KNeighborsRegressor

np.set_printoptions(precision=17, floatmode="unique", linewidth=100)

d = np.loadtxt(__file__.replace("reference_linear.py", "friedman1.csv"), delimiter=",", skiprows=1)
X, y = d[:, :10], d[:, 10]
Xtr, ytr, Xte, yte = X[:1600], y[:1600], X[1600:], y[1600:]
n = len(ytr)
mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0, ddof=1)
Ztr, Zte = (Xtr - mu) / sd, (Xte - mu) / sd


def rmse(model, Xt):
    return float(np.sqrt(np.mean((yte - model.predict(Xt)) ** 2)))


def raw(m):
    coef = m.coef_ / sd
    return coef, float(m.intercept_ - coef @ mu)


def fit_time(make, Xf, yf, reps=5):
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        m = make().fit(Xf, yf)
        best = min(best, time.perf_counter() - t)
    return m, best


def show(name, v):
    if isinstance(v, np.ndarray):
        print(f"{name} = {', '.join(repr(float(x)) for x in v)}")
    else:
        print(f"{name} = {v!r}")


# OLS: LinearRegression() on the raw columns.
ols, t = fit_time(LinearRegression, Xtr, ytr)
show("ols.coef", ols.coef_)
show("ols.intercept", float(ols.intercept_))
show("ols.testRMSE", rmse(ols, Xte))
show("ols.fitSeconds", t)

# OLS with a duplicated column (x0 twice) on the first 200 rows: the
# minimum-norm solution splits x0's effect in two.
Xd = np.hstack([Xtr[:200], Xtr[:200, :1]])
dup = LinearRegression().fit(Xd, ytr[:200])
show("olsDup.coef", dup.coef_)
show("olsDup.intercept", float(dup.intercept_))

# Ridge at a fixed per-row penalty alpha=0.5: sklearn's alpha = 0.5 * n on Z.
rf = Ridge(alpha=0.5 * n, solver="svd").fit(Ztr, ytr)
c, b = raw(rf)
show("ridgeFixed(alpha=0.5).coef", c)
show("ridgeFixed(alpha=0.5).intercept", b)

# Ridge with the LOO choice over the grid 10^linspace(-4, 4, 50) per row.
grid = np.logspace(-4, 4, 50)
rcv, t = fit_time(lambda: RidgeCV(alphas=grid * n, gcv_mode="svd", store_cv_values=True), Ztr, ytr)
show("ridgeCV.alphaPerRow", float(rcv.alpha_ / n))
show("ridgeCV.alphaIndex", int(np.argmin(np.abs(grid * n - rcv.alpha_))))
show("ridgeCV.bestLOOMSE", float(rcv.cv_values_.mean(axis=0).min()))
show("ridgeCV.testRMSE", rmse(rcv, Zte))
show("ridgeCV.fitSeconds", t)

# Lasso at fixed alpha = 0.05 (objective 1/(2n)||y - Zb||^2 + alpha |b|_1),
# converged far beyond the default tolerance.
lf = Lasso(alpha=0.05, tol=1e-14, max_iter=1_000_000).fit(Ztr, ytr)
c, b = raw(lf)
show("lassoFixed(alpha=0.05).coef", c)
show("lassoFixed(alpha=0.05).intercept", b)
show("lassoFixed(alpha=0.05).pred[test 0..4]", lf.predict(Zte[:5]))

# LassoCV with 5 shuffled folds (its folds are not ours, so only the test
# RMSE and the chosen alpha are comparable in kind).
lcv, t = fit_time(lambda: LassoCV(cv=KFold(5, shuffle=True, random_state=0), n_alphas=100, eps=1e-3), Ztr, ytr)
show("lassoCV.alpha", float(lcv.alpha_))
show("lassoCV.alphaMax", float(lcv.alphas_[0]))
show("lassoCV.testRMSE", rmse(lcv, Zte))
show("lassoCV.fitSeconds", t)

# k-NN at fixed settings, brute force on Z.
for k, w in [(5, "uniform"), (10, "distance")]:
    m = KNeighborsRegressor(n_neighbors=k, weights=w, algorithm="brute").fit(Ztr, ytr)
    show(f"knnFixed(k={k},{w}).pred[test 0..4]", m.predict(Zte[:5]))
    show(f"knnFixed(k={k},{w}).testRMSE", rmse(m, Zte))

# k-NN with the same grid chosen by 5-fold CV (shuffled folds, not ours).
gs, t = fit_time(
    lambda: GridSearchCV(
        KNeighborsRegressor(algorithm="brute"),
        {"n_neighbors": [3, 5, 10, 20], "weights": ["uniform", "distance"]},
        cv=KFold(5, shuffle=True, random_state=0),
        scoring="neg_mean_squared_error",
    ),
    Ztr,
    ytr,
    reps=2,
)
show("knnCV.best", gs.best_params_)
show("knnCV.testRMSE", rmse(gs, Zte))
show("knnCV.fitSeconds", t)

# Defaults on the raw columns, for the report.
for name, make in [
    ("LinearRegression()", LinearRegression),
    ("Ridge()", Ridge),
    ("Lasso()", Lasso),
    ("KNeighborsRegressor()", KNeighborsRegressor),
]:
    m, t = fit_time(make, Xtr, ytr)
    show(f"default {name}.testRMSE", rmse(m, Xte))
    show(f"default {name}.fitSeconds", t)
