# Writes tslm_reference.json: reference values for tslm*.go and fourier*.go,
# computed with R's forecast package (8.20): forecast::fourier matrices,
# and tslm() fits with their coefficients, CV() criteria, K chosen by AICc
# and forecast() point forecasts with the 60/90/98 % prediction bounds.
# Run from this folder: Rscript tslm_reference.R
suppressPackageStartupMessages(library(forecast))
library(jsonlite)
stopifnot(packageVersion("forecast") == "8.20")

levels <- c(60, 90, 98)

# Fourier matrices: fourier(x, K) and fourier(x, K, h) as columns, with R's
# column names (the last sine is dropped when 2K = m).
fourier_case <- function(name, n, period, K, h = NULL) {
  x <- ts(seq_len(n), frequency = period)
  X <- if (is.null(h)) fourier(x, K) else fourier(x, K, h)
  list(name = name, n = n, period = period, K = K,
       h = if (is.null(h)) 0 else h,
       colnames = colnames(X),
       columns = lapply(seq_len(ncol(X)), function(j) as.numeric(X[, j])))
}
fouriers <- list(
  fourier_case("m12_K6", 40, 12, 6),
  fourier_case("m12_K6_h15", 40, 12, 6, 15),
  fourier_case("m12_K2", 40, 12, 2),
  fourier_case("m4_K2", 30, 4, 2),
  fourier_case("m7_K3_h10", 50, 7, 3, 10),
  fourier_case("m52.18_K3", 300, 52.18, 3),
  fourier_case("m52.18_K26_h104", 300, 52.18, 26, 104),
  fourier_case("m365.25_K4_h30", 800, 365.25, 4, 30)
)

# aicc_by_K returns CV()'s AICc of tslm(y ~ trend + fourier(y, K)) for
# K = 1..Kmax, y being the global y: our TSLM chooses K by the same
# criterion. (tslm evaluates its formula in the global environment, so y
# and K must live there.)
aicc_by_K <- function(Kmax) {
  a <- numeric(Kmax)
  for (k in seq_len(Kmax)) {
    K <<- k
    a[k] <- CV(tslm(y ~ trend + fourier(y, K = K)))[["AICc"]]
  }
  a
}

# fit_case runs forecast() on a tslm fit and collects what the Go tests
# compare. X0 is the future design matrix (the columns of the non-aliased
# coefficients, in order): the point forecasts are checked against
# X0 %*% beta here, so that a misuse of forecast()'s newdata cannot go
# unnoticed.
fit_case <- function(name, y, fit, h, spec, X0, newdata = NULL, xreg = NULL, xreg_future = NULL, extra = list()) {
  fc <- if (is.null(newdata)) forecast(fit, h = h, level = levels) else forecast(fit, newdata = newdata, level = levels)
  b <- coef(fit)
  ok <- !is.na(b)
  stopifnot(isTRUE(all.equal(as.numeric(X0 %*% b[ok]), as.numeric(fc$mean), tolerance = 1e-10)))
  crit <- CV(fit)
  out <- c(list(
    name = name, y = as.numeric(y), period = frequency(y), h = h,
    coef_names = I(names(b)[ok]), coef = as.numeric(b[ok]), aliased = I(names(b)[!ok]),
    rank = fit$rank, df = fit$df.residual, sigma = summary(fit)$sigma,
    cv = crit[["CV"]], aic = crit[["AIC"]], aicc = crit[["AICc"]], bic = crit[["BIC"]], adjr2 = crit[["AdjR2"]],
    fitted = as.numeric(fitted(fit)),
    mean = as.numeric(fc$mean),
    lower = lapply(seq_along(levels), function(i) as.numeric(fc$lower[, i])),
    upper = lapply(seq_along(levels), function(i) as.numeric(fc$upper[, i])),
    xreg = if (is.null(xreg)) list() else lapply(seq_len(ncol(xreg)), function(j) as.numeric(xreg[, j])),
    xreg_future = if (is.null(xreg_future)) list() else lapply(seq_len(ncol(xreg_future)), function(j) as.numeric(xreg_future[, j]))
  ), spec, extra)
  out
}

# Future design of trend + season dummies for h steps after y (season 1 =
# cycle 1 of R, i.e. the series must start at cycle 1).
future_trend_season <- function(y, h) {
  n <- length(y); m <- frequency(y)
  t <- n + seq_len(h)
  s <- ((t - 1) %% m) + 1
  D <- sapply(2:m, function(k) as.numeric(s == k))
  cbind(1, t, D)
}

fits <- list()

# trend + season on monthly series that start in January.
for (nm in c("AirPassengers", "USAccDeaths")) {
  y <- get(nm)
  stopifnot(cycle(y)[1] == 1)
  fit <- tslm(y ~ trend + season)
  fits[[length(fits) + 1]] <- fit_case(nm, y, fit, 24,
    list(trend = TRUE, season = "dummies", K = 0, fourier_period = 0),
    future_trend_season(y, 24))
}

# trend + Fourier on co2 (monthly): K chosen by AICc over 1..6, and K = 6
# (2K = m: the last sine column is dropped).
y <- co2
a <- aicc_by_K(6)
Kbest <- which.min(a)
for (K in c(Kbest, 6)) {
  fit <- tslm(y ~ trend + fourier(y, K = K))
  X0 <- cbind(1, length(y) + 1:24, fourier(y, K = K, h = 24))
  fits[[length(fits) + 1]] <- fit_case(sprintf("co2_fourier_K%d", K), y, fit, 24,
    list(trend = TRUE, season = "fourier", K = K, fourier_period = 12),
    X0, newdata = data.frame(fourier(y, K = K, h = 24)),
    extra = list(auto_K = K == Kbest, aicc_by_K = a))
}

# A weekly series with the non-integer period 52.18: synthetic (trend, a
# yearly cycle with two harmonics, Gaussian noise), 6 years; K by AICc over
# 1..26.
set.seed(5218)
n <- 313
t <- seq_len(n)
w <- 200 + 0.08 * t + 6 * sin(2 * pi * t / 52.18) - 4 * cos(2 * pi * t / 52.18) +
  2 * sin(4 * pi * t / 52.18) + rnorm(n, sd = 1.5)
y <- ts(w, frequency = 52.18)
a <- aicc_by_K(26)
K <- Kbest <- which.min(a)
fit <- tslm(y ~ trend + fourier(y, K = K))
X0 <- cbind(1, n + 1:104, fourier(y, K = Kbest, h = 104))
fits[[length(fits) + 1]] <- fit_case("weekly52.18_fourier", y, fit, 104,
  list(trend = TRUE, season = "fourier", K = Kbest, fourier_period = 52.18),
  X0, newdata = data.frame(fourier(y, K = Kbest, h = 104)),
  extra = list(auto_K = TRUE, aicc_by_K = a))

# Regressors: Seatbelts drivers ~ trend + season + PetrolPrice + law, fitted
# on 1969-1983 and forecast over 1984 with that year's regressors.
sb <- Seatbelts
train <- window(sb, end = c(1983, 12))
test <- window(sb, start = c(1984, 1))
drivers <- train[, "drivers"]
PetrolPrice <- train[, "PetrolPrice"]
law <- train[, "law"]
Xf <- cbind(PetrolPrice = as.numeric(test[, "PetrolPrice"]), law = as.numeric(test[, "law"]))
fit <- tslm(drivers ~ trend + season + PetrolPrice + law)
fits[[length(fits) + 1]] <- fit_case("Seatbelts_xreg", drivers, fit, 12,
  list(trend = TRUE, season = "dummies", K = 0, fourier_period = 0),
  cbind(future_trend_season(drivers, 12), Xf), newdata = data.frame(Xf),
  xreg = cbind(PetrolPrice, law), xreg_future = Xf)

# Rank-deficient: a third regressor 1 - law is aliased (with the intercept
# and law); lm drops it (NA coefficient), and so must we.
nolaw <- 1 - law
Xf3 <- cbind(Xf, nolaw = 1 - Xf[, "law"])
fit <- tslm(drivers ~ trend + season + PetrolPrice + law + nolaw)
stopifnot(names(which(is.na(coef(fit)))) == "nolaw")
fits[[length(fits) + 1]] <- fit_case("Seatbelts_aliased", drivers, fit, 12,
  list(trend = TRUE, season = "dummies", K = 0, fourier_period = 0),
  cbind(future_trend_season(drivers, 12), Xf), newdata = data.frame(Xf3),
  xreg = cbind(PetrolPrice, law, nolaw), xreg_future = Xf3)

# LM: regressors only (no trend, no season).
fit <- tslm(drivers ~ PetrolPrice + law)
fits[[length(fits) + 1]] <- fit_case("Seatbelts_LM", drivers, fit, 12,
  list(trend = FALSE, season = "none", K = 0, fourier_period = 0),
  cbind(1, Xf), newdata = data.frame(Xf),
  xreg = cbind(PetrolPrice, law), xreg_future = Xf)

# Zeros: a monthly count series with many zeros.
set.seed(12)
m <- 60
cnt <- rpois(m, lambda = 0.4 + 1.5 * (((seq_len(m) - 1) %% 12) %in% c(5, 6, 11)))
y <- ts(cnt, start = c(2000, 1), frequency = 12)
fit <- tslm(y ~ trend + season)
fits[[length(fits) + 1]] <- fit_case("counts_zeros", y, fit, 12,
  list(trend = TRUE, season = "dummies", K = 0, fourier_period = 0),
  future_trend_season(y, 12))

# Constant series: an exact fit; R's bounds collapse onto the mean.
y <- ts(rep(42, 48), start = c(2000, 1), frequency = 12)
fit <- suppressWarnings(tslm(y ~ trend + season))
fits[[length(fits) + 1]] <- suppressWarnings(fit_case("constant42", y, fit, 6,
  list(trend = TRUE, season = "dummies", K = 0, fourier_period = 0),
  future_trend_season(y, 6)))

out <- list(r = R.version.string, forecast = as.character(packageVersion("forecast")),
            levels = levels, fourier = fouriers, fits = fits)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, na = "null", null = "null", pretty = FALSE),
           "tslm_reference.json")
