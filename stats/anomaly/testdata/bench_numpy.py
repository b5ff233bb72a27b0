"""NumPy timing of the D² kernel benchmarked by BenchmarkMahalanobisD2.

Run with the system interpreter (NumPy 1.24.2 over its bundled OpenBLAS):

    OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 /usr/bin/python3 testdata/bench_numpy.py

For 2^20 rows and d = 10, 20, 50 (uniform columns made correlated as in
the Go benchmark) it prepares the same whitening factor once (Cholesky
L^-1 of the sample covariance) and times the best of 5 runs of

    y = (x - mu) @ W.T ; d2 = (y * y).sum(1)

over a C-contiguous rows x d array, NumPy's natural layout (row-major), then
prints rows/s and rows per CPU-second of the process (all threads), the
load-robust figure the Go benchmark also reports (rows/cpu-s). The timing
excludes building x, as the Go benchmark excludes building its columns; it
includes NumPy's temporaries.
"""

import time

import numpy as np

N = 1 << 20


def main():
    rng = np.random.default_rng(1)
    for d in (10, 20, 50):
        x = rng.random((N, d))
        for j in range(d - 1, 0, -1):
            x[:, j] += 0.5 * x[:, j - 1]
        mu = x.mean(0)
        cov = np.cov(x, rowvar=False)
        w = np.linalg.inv(np.linalg.cholesky(cov))
        best = cpu = float("inf")
        for _ in range(5):
            t0, c0 = time.perf_counter(), time.process_time()
            y = (x - mu) @ w.T
            d2 = np.einsum("ij,ij->i", y, y)
            best = min(best, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        print(f"d={d}: {best * 1e3:.1f} ms, {N / best / 1e6:.2f} M rows/s, "
              f"{N / cpu / 1e6:.2f} M rows/cpu-s (d2 mean {d2.mean():.4f})")


if __name__ == "__main__":
    main()
