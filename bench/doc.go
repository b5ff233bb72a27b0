// Package bench measures a running Vatic (or any server speaking the
// Nexosis API v1) with whole-system workloads over HTTP and sets each
// against an anchor: DuckDB doing the same work on the same file, driven
// through `vatic sql -timing`.
//
// # Workloads
//
//   - ImportCSV/{plain,gzip}: PUT /v1/data/{name} of a generated CSV file
//     (Content-Encoding: gzip for the gzip variant), against
//     CREATE TABLE … AS SELECT * FROM read_csv('<file>'). Targets: at least
//     0.8× DuckDB's rows/s, and peak RSS growth of the server below 256 MB.
//   - ColumnStats: GET /v1/data/{name}/stats, against one hand-written
//     aggregate query computing the same statistics. Target: at most 1.2×
//     DuckDB's time.
//   - ReadCSV: GET /v1/data/{name} with Accept: text/csv and no paging,
//     counting the lines received. Target: at least 1 M rows/s.
//   - Regression: the regression contest (POST /v1/sessions/model) on the
//     25 training folds of 5 × repeated 5-fold cross-validation of
//     friedman1.csv, its champions predicting the test folds, against
//     seven scikit-learn regressors at defaults on the same folds
//     (regression.py, see [SklearnReport]). Targets: mean RMSE at most
//     1.01× the best scikit-learn model's; summed contest time at most
//     1.0× the models' summed fit time. Then a linear champion's predict
//     throughput over HTTP (the 1 M rows/s target is the kernel's).
//
// Inputs are generated deterministically from a seed (see [WriteCSV]) and
// cached on disk by [Generate]. [Run] runs the workloads, alternating the
// server and the anchor run by run. Results are printed in the Go benchmark
// format (see [WriteResults]), the side being the name key impl=vatic or
// impl=duckdb, so that benchstat can compare runs and sides, followed by a
// summary of the targets (see [Checks]). cmd/bench binds flags to [Config];
// README.md explains how to run and read it.
//
// The package is a plain HTTP client: it imports nothing from this module
// and no cgo library, so it can measure any base URL, ours or a peer's.
// It starts servers and the anchor as child processes of the vatic binary.
package bench
