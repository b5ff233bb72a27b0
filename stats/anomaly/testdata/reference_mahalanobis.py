"""Reference D² values for mahalanobis_test.go, from NumPy's pinv.

Run once with the system interpreter (NumPy 1.24.2) from stats/anomaly:

    /usr/bin/python3 testdata/reference_mahalanobis.py

The data are deterministic so Go rebuilds them bit for bit (weyl): column
j of the base matrix is frac((i + 1) * frac(sqrt(p_j))) for the j-th prime
p_j, rows i = 0..n-1.
  well: n = 1000, d = 6, x_j = base_j + 0.5 * x_{j-1} (j >= 1), then
      column 5 times 1000 and column 0 plus 100 (different scales, an
      offset location; condition number of the covariance about 3e6).
  onehot: n = 400, three base columns plus a one-hot block of i % 4
      (4 columns, summing to one: the covariance has rank 6 of 7).
D² = (x - mu) pinv(S) (x - mu)^T, S the sample covariance (ddof 1), pinv
with hermitian=True and rcond = max(n, d) * eps (the Go rank tolerance;
NumPy's default 1e-15 drops the same eigenvalue here, see the printout).
"""

import numpy as np

PRIMES = [2, 3, 5, 7, 11, 13, 17, 19]


def weyl(n, d):
    x = np.empty((n, d))
    for j in range(d):
        a = np.sqrt(float(PRIMES[j]))
        a -= np.floor(a)
        for i in range(n):
            v = float(i + 1) * a
            x[i, j] = v - np.floor(v)
    return x


def well():
    x = weyl(1000, 6)
    for j in range(1, 6):
        x[:, j] += 0.5 * x[:, j - 1]
    x[:, 5] *= 1000
    x[:, 0] += 100
    return x


def onehot():
    b = weyl(400, 3)
    oh = np.zeros((400, 4))
    oh[np.arange(400), np.arange(400) % 4] = 1
    return np.hstack([b, oh])


def d2(x, rcond):
    mu = x.mean(0)
    s = np.cov(x, rowvar=False)
    p = np.linalg.pinv(s, rcond=rcond, hermitian=True)
    c = x - mu
    return np.einsum("ij,jk,ik->i", c, p, c), s


ROWS = [0, 1, 2, 99, 398, 399]

for name, x in (("well", well()), ("onehot", onehot())):
    n, d = x.shape
    tol = max(n, d) * np.finfo(float).eps
    v, s = d2(x, tol)
    ev = np.linalg.eigvalsh(s)
    print(f"# {name} {x.shape}: eigenvalues {ev.tolist()} cond {ev[-1] / ev[0]:.3g}")
    print("rows", ROWS)
    print("d2", repr([float(v[i]) for i in ROWS]))
    print("sum", repr(float(v.sum())), "max", repr(float(v.max())))
    dflt, _ = d2(x, 1e-15)
    print("max rel diff to rcond=1e-15:", float(np.max(np.abs(dflt - v) / v)))
