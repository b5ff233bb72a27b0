# R's side of the forecast workload (bench/forecast.go), run by the harness
# as `Rscript forecast.R <shared-data-dir> [repeats [series,…]]`; needs R's forecast
# package (8.20) and jsonlite. For every series: hold out the last h points
# (h = 2 seasons, or 8 for yearly data), fit ets(), auto.arima() and
# thetaf() at their defaults on the rest, forecast h, and score the point
# forecasts by MASE: MAE over the holdout divided by the in-sample MAE of
# the one-step naive forecast of the training part (MODELLING §2.8
# meanAbsoluteScaledError; not accuracy()'s seasonal scaling). Each fit,
# with its forecast, is timed with proc.time() inside R (elapsed seconds,
# no start-up), repeated `repeats` times (default 3; once when the first
# run takes over 5 s: auto.arima on the weekly series takes minutes, and at
# that length one run's noise is small). It prints one JSON document on
# standard output (bench.ForecastRReport); progress goes to standard error.
suppressPackageStartupMessages(library(forecast))
library(jsonlite)

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript forecast.R <shared-data-dir> [repeats [series,...]]")
dir <- args[1]
repeats <- if (length(args) >= 2) as.integer(args[2]) else 3L
stopifnot(repeats >= 1)
only <- if (length(args) >= 3) strsplit(args[3], ",")[[1]] else character(0)

# Missing values (co2_weekly has 59) are filled by linear interpolation in
# the row index, constant beyond the ends (approx(rule = 2)); the Go side
# fills them by the same formula.
read_shared <- function(file, column) {
  d <- read.csv(file.path(dir, file), stringsAsFactors = FALSE)
  x <- as.numeric(d[[column]])
  i <- seq_along(x)
  ok <- !is.na(x)
  if (!all(ok)) x <- approx(i[ok], x[ok], xout = i, rule = 2)$y
  x
}

# co2_weekly: weeks have a period of 365.25/7 = 52.18, but R gets frequency
# 52. ets() ignores any frequency above 24; auto.arima() needs an integer
# seasonal period (stats::arima's seasonal lag is a whole number of rows);
# thetaf()'s seasonality test and decompose() take lags and moving averages
# of whole rows. A frequency of 52.18 would be rounded or misused inside
# them, so 52 is what they can actually fit. Ours gets the same period, 52,
# since the harness passes the Forecaster an integer period (the contest is
# free to add Fourier terms at 52.18 itself).
series <- list(
  co2_weekly = function() ts(read_shared("co2_weekly.csv", "co2"), frequency = 52),
  elec_equip_monthly = function() ts(read_shared("elec_equip_monthly.csv", "orders"), start = c(1995, 1), frequency = 12),
  nile_yearly = function() ts(read_shared("nile_yearly.csv", "volume"), start = 1871, frequency = 1),
  AirPassengers = function() AirPassengers,
  co2 = function() co2,
  UKDriverDeaths = function() UKDriverDeaths
)
if (length(only) > 0) {
  stopifnot(all(only %in% names(series)))
  series <- series[names(series) %in% only]
}

methods <- list(
  ets = function(y, h) forecast(ets(y), h = h),
  arima = function(y, h) forecast(auto.arima(y), h = h),
  theta = function(y, h) thetaf(y, h = h)
)

mase <- function(train, test, f) {
  mean(abs(test - f)) / mean(abs(diff(as.numeric(train))))
}

loadavg <- function() {
  if (file.exists("/proc/loadavg")) as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3]) else numeric(0)
}

load_before <- loadavg()
out <- list()
for (name in names(series)) {
  y <- series[[name]]()
  m <- frequency(y)
  h <- if (m == 1) 8L else as.integer(2 * m)
  n <- length(y)
  train <- ts(as.numeric(y)[seq_len(n - h)], start = start(y), frequency = m)
  test <- as.numeric(y)[(n - h + 1):n]
  ms <- list()
  for (key in names(methods)) {
    secs <- numeric(0)
    for (r in seq_len(repeats)) {
      t0 <- proc.time()[["elapsed"]]
      fc <- suppressWarnings(methods[[key]](train, h))
      secs <- c(secs, proc.time()[["elapsed"]] - t0)
      if (secs[1] > 5) break
    }
    f <- as.numeric(fc$mean)
    model <- fc$method
    ms[[length(ms) + 1]] <- list(key = key, model = model, mase = mase(train, test, f),
                                 mae = mean(abs(test - f)), seconds = I(secs), mean = f)
    message(sprintf("forecast.R: %-18s %-6s MASE %.4f  %s  %s", name, key, mase(train, test, f),
                    paste(sprintf("%.3fs", secs), collapse = " "), model))
  }
  # A fingerprint of the series, so that the harness can check that both
  # sides saw the same numbers: Σ y_t and Σ t·y_t (t = 1…n).
  x <- as.numeric(y)
  out[[length(out) + 1]] <- list(name = name, frequency = m, n = n, h = h,
                                 sum = sum(x), weightedSum = sum(seq_len(n) * x), methods = ms)
}

doc <- list(r = R.version.string, forecast = as.character(packageVersion("forecast")),
            cpus = parallel::detectCores(), repeats = repeats,
            loadAvg = list(load_before, loadavg()), series = out)
cat(toJSON(doc, digits = NA, auto_unbox = TRUE, pretty = FALSE), "\n")
