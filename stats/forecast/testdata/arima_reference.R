# Writes arima_reference.json: what R (4.2.2, forecast 8.20) computes for
# the ARIMA tests of package forecast — auto.arima() selections, Arima()
# fits with fixed orders, likelihoods at fixed coefficients, ndiffs(),
# nsdiffs() and KPSS statistics — on the series of series.json and a few
# synthetic ones. Run from this folder: Rscript arima_reference.R
suppressMessages({
  library(forecast)
  library(jsonlite)
  library(urca)
})
s <- fromJSON("series.json")
get_ts <- function(nm) ts(s[[nm]]$x, frequency = s[[nm]]$frequency, start = s[[nm]]$start)
cols <- function(m) if (is.null(m)) NULL else lapply(seq_len(NCOL(m)), function(j) I(as.numeric(as.matrix(m)[, j])))
# rows of a matrix, each kept a JSON array (I() stops auto_unbox).
rows <- function(m) if (length(m)) lapply(seq_len(nrow(m)), function(i) I(as.numeric(m[i, ]))) else list()

# The full ψ-weights of a fit: MA(∞) weights of theta(B) / (phi(B) Delta(B)).
psi_weights <- function(fit, h) {
  phi <- fit$model$phi
  delta <- fit$model$Delta
  a <- c(1, -phi)
  b <- c(1, -delta)
  prod <- rep(0, length(a) + length(b) - 1)
  for (i in seq_along(a)) for (j in seq_along(b)) prod[i + j - 1] <- prod[i + j - 1] + a[i] * b[j]
  full <- -prod[-1]
  c(1, ARMAtoMA(ar = full, ma = fit$model$theta, lag.max = h - 1))
}

describe <- function(fit, h, xreg_future = NULL) {
  fc <- forecast(fit, h = h, xreg = xreg_future, level = c(60, 90, 98))
  ord <- fit$arma[c(1, 6, 2, 3, 7, 4, 5)]
  vc <- fit$var.coef
  list(
    order = I(ord),
    method = forecast:::arima.string(fit),
    coef = I(as.numeric(coef(fit))),
    coef_names = I(names(coef(fit))),
    sigma2 = fit$sigma2,
    loglik = fit$loglik,
    aic = fit$aic,
    aicc = fit$aicc,
    bic = fit$bic,
    nobs = fit$nobs,
    var_coef = rows(vc),
    residuals = I(as.numeric(residuals(fit))),
    mean = I(as.numeric(fc$mean)),
    lower = lapply(1:3, function(i) I(as.numeric(fc$lower[, i]))),
    upper = lapply(1:3, function(i) I(as.numeric(fc$upper[, i]))),
    psi = I(psi_weights(fit, h))
  )
}

# auto.arima cases: series, options, regressors.
auto_cases <- list(
  list(name = "AirPassengers"),
  list(name = "USAccDeaths"),
  list(name = "UKgas"),
  list(name = "JohnsonJohnson"),
  list(name = "austres"),
  list(name = "nottem"),
  list(name = "Nile"),
  list(name = "lynx"),
  list(name = "WWWusage"),
  list(name = "discoveries"),
  list(name = "BJsales"),
  list(name = "sunspot.year"),
  list(name = "nile_yearly"),
  list(name = "ldeaths"),
  list(name = "elec_equip_monthly"),
  list(name = "co2"),
  list(name = "UKDriverDeaths"),
  list(name = "JohnsonJohnson", seasonal = FALSE),
  list(name = "UKgas", seasonal = FALSE),
  list(name = "LakeHuron", xreg = "trend"),
  list(name = "UKDriverDeaths", xreg = "law"),
  list(name = "nottem", seasonal = FALSE, xreg = "fourier2")
)
auto <- lapply(auto_cases, function(cs) {
  x <- get_ts(cs$name)
  seasonal <- if (is.null(cs$seasonal)) TRUE else cs$seasonal
  h <- if (frequency(x) > 1) 2 * frequency(x) else 10
  xreg <- NULL
  xf <- NULL
  if (!is.null(cs$xreg)) {
    if (cs$xreg == "trend") {
      xreg <- as.numeric(time(x))
      xf <- tail(as.numeric(time(x)), 1) + seq_len(h) / frequency(x)
    } else if (cs$xreg == "law") {
      xreg <- as.numeric(time(x) >= 1983 + 1 / 12)
      xf <- rep(1, h)
    } else if (cs$xreg == "fourier2") {
      xreg <- fourier(x, K = 2)
      xf <- fourier(x, K = 2, h = h)
    }
  }
  t <- system.time(fit <- auto.arima(x, seasonal = seasonal, xreg = xreg))
  out <- describe(fit, h, xf)
  c(list(name = cs$name, period = frequency(x), seasonal = seasonal, h = h,
         xreg = cols(xreg), xreg_future = cols(xf), r_seconds = unname(t["elapsed"])), out)
})

# Arima() with fixed orders.
arima_cases <- list(
  list(name = "LakeHuron", order = c(2, 0, 0), include.mean = TRUE),
  list(name = "lynx", order = c(2, 0, 2), include.mean = TRUE),
  list(name = "AirPassengers", order = c(2, 1, 1), seasonal = c(0, 1, 0)),
  list(name = "USAccDeaths", order = c(0, 1, 1), seasonal = c(0, 1, 1)),
  list(name = "austres", order = c(1, 1, 0), include.drift = TRUE),
  list(name = "JohnsonJohnson", order = c(3, 1, 1), seasonal = c(0, 1, 0)),
  list(name = "UKgas", order = c(1, 0, 1), seasonal = c(1, 1, 0), include.drift = TRUE),
  list(name = "WWWusage", order = c(1, 1, 1), method = "ML"),
  list(name = "Nile", order = c(1, 0, 1), include.mean = TRUE, method = "CSS"),
  list(name = "co2", order = c(1, 1, 1), seasonal = c(1, 1, 2)),
  list(name = "sunspot.year", order = c(2, 0, 3), include.mean = FALSE),
  list(name = "UKDriverDeaths", order = c(1, 0, 1), seasonal = c(0, 1, 1), xreg = "law")
)
fixed_orders <- lapply(arima_cases, function(cs) {
  x <- get_ts(cs$name)
  seasonal <- if (is.null(cs$seasonal)) c(0, 0, 0) else cs$seasonal
  im <- if (is.null(cs$include.mean)) TRUE else cs$include.mean
  idr <- if (is.null(cs$include.drift)) FALSE else cs$include.drift
  method <- if (is.null(cs$method)) "CSS-ML" else cs$method
  h <- if (frequency(x) > 1) 2 * frequency(x) else 10
  xreg <- NULL
  xf <- NULL
  if (!is.null(cs$xreg) && cs$xreg == "law") {
    xreg <- as.numeric(time(x) >= 1983 + 1 / 12)
    xf <- rep(1, h)
  }
  fit <- Arima(x, order = cs$order, seasonal = seasonal, include.mean = im,
               include.drift = idr, method = method, xreg = xreg)
  out <- if (method == "CSS") {
    fc <- forecast(fit, h = h, level = c(60, 90, 98))
    vc <- fit$var.coef
    list(order = I(fit$arma[c(1, 6, 2, 3, 7, 4, 5)]), method = forecast:::arima.string(fit),
         coef = I(as.numeric(coef(fit))), coef_names = I(names(coef(fit))), sigma2 = fit$sigma2,
         var_coef = rows(vc),
         residuals = I(as.numeric(residuals(fit))), mean = I(as.numeric(fc$mean)),
         lower = lapply(1:3, function(i) I(as.numeric(fc$lower[, i]))),
         upper = lapply(1:3, function(i) I(as.numeric(fc$upper[, i]))), psi = I(psi_weights(fit, h)))
  } else describe(fit, h, xf)
  c(list(name = cs$name, period = frequency(x), spec_order = I(cs$order), spec_seasonal = I(seasonal),
         include_mean = im, include_drift = idr, fit_method = method, h = h,
         xreg = cols(xreg), xreg_future = cols(xf)), out)
})

# Exact likelihoods at fixed coefficients (no optimisation):
# stats::arima(x, order, seasonal, fixed = coef, transform.pars = FALSE).
lik_cases <- list(
  list(name = "LakeHuron", order = c(2, 0, 1), seasonal = c(0, 0, 0), fixed = c(0.9, -0.2, 0.3, 579)),
  list(name = "lynx", order = c(3, 0, 2), seasonal = c(0, 0, 0), fixed = c(1.2, -0.5, -0.1, 0.2, 0.1, 1500)),
  list(name = "AirPassengers", order = c(1, 1, 1), seasonal = c(1, 1, 1), fixed = c(0.3, -0.6, 0.2, -0.5)),
  list(name = "co2", order = c(2, 1, 1), seasonal = c(2, 1, 1), fixed = c(0.2, 0.1, -0.5, 0.1, -0.1, -0.8)),
  list(name = "USAccDeaths", order = c(0, 1, 2), seasonal = c(0, 1, 1), fixed = c(-0.4, 0.1, -0.55)),
  list(name = "austres", order = c(2, 2, 1), seasonal = c(1, 0, 0), fixed = c(0.5, -0.2, -0.7, 0.3)),
  list(name = "UKgas", order = c(0, 1, 1), seasonal = c(0, 1, 2), fixed = c(-0.3, -0.4, 0.1)),
  list(name = "Nile", order = c(0, 0, 3), seasonal = c(0, 0, 0), fixed = c(0.5, 0.3, 0.2, 900))
)
likelihoods <- lapply(lik_cases, function(cs) {
  x <- get_ts(cs$name)
  nd <- cs$order[2] + cs$seasonal[2]
  fit <- stats::arima(x, order = cs$order, seasonal = list(order = cs$seasonal, period = frequency(x)),
                      include.mean = nd == 0, fixed = cs$fixed, transform.pars = FALSE)
  list(name = cs$name, period = frequency(x), order = I(cs$order), seasonal = I(cs$seasonal),
       fixed = I(cs$fixed), loglik = fit$loglik, sigma2 = fit$sigma2,
       residuals = I(as.numeric(residuals(fit))))
})

# ndiffs, nsdiffs and KPSS on every series.
diffs <- lapply(names(s), function(nm) {
  x <- get_ts(nm)
  k <- ur.kpss(as.numeric(x), type = "mu", use.lag = trunc(3 * sqrt(length(x)) / 13))
  list(name = nm, period = frequency(x), ndiffs = ndiffs(x),
       nsdiffs = if (frequency(x) > 1) nsdiffs(x) else NA,
       kpss_lags = k@lag, kpss_stat = k@teststat,
       seas_strength = if (frequency(x) > 1 && length(x) > 2 * frequency(x)) forecast:::seas.heuristic(x) else NA)
})

# Synthetic series: a 2000-point daily series with a weekly cycle (the
# benchmark), edge cases.
set.seed(42)
n <- 2000
tt <- 1:n
d7 <- 100 + 0.02 * tt + 10 * sin(2 * pi * tt / 7) + 5 * cos(2 * pi * tt / 7 * 2) +
  arima.sim(list(ar = 0.6, ma = 0.3), n, sd = 3)
d7 <- ts(round(as.numeric(d7), 3), frequency = 7)
t7 <- system.time(fit7 <- auto.arima(d7))
t7b <- system.time(auto.arima(d7))
synth <- list(
  list(name = "daily2000", x = I(as.numeric(d7)), period = 7, h = 14,
       r_seconds = unname(t7["elapsed"]), r_user_seconds = unname(t7["user.self"]),
       r_seconds_2 = unname(t7b["elapsed"]), r_user_seconds_2 = unname(t7b["user.self"]),
       fit = describe(fit7, 14)),
  list(name = "linear20", x = I(as.numeric(1:20)), period = 1, h = 5, fit = describe(auto.arima(ts(1:20)), 5)),
  list(name = "seasonal_repeat", x = I(as.numeric(rep(1:4, 10))), period = 4, h = 8,
       fit = describe(auto.arima(ts(rep(1:4, 10), frequency = 4)), 8))
)
short <- lapply(3:6, function(n) {
  x <- c(3, 1, 4, 1, 5, 9)[1:n]
  list(x = I(x), method = forecast:::arima.string(auto.arima(ts(x))))
})

# Initial state covariances: R's getQ0 (Gardner et al. 1980, the default)
# and getQ0bis (Rossignol 2011, exact), which disagree for some models.
expand <- function(ar, ma, sar, sma, m) {
  phi <- c(ar, rep(0, m * length(sar)))
  for (j in seq_along(sar)) {
    phi[j * m] <- phi[j * m] + sar[j]
    for (i in seq_along(ar)) phi[j * m + i] <- phi[j * m + i] - ar[i] * sar[j]
  }
  theta <- c(ma, rep(0, m * length(sma)))
  for (j in seq_along(sma)) {
    theta[j * m] <- theta[j * m] + sma[j]
    for (i in seq_along(ma)) theta[j * m + i] <- theta[j * m + i] + ma[i] * sma[j]
  }
  list(phi = phi, theta = theta)
}
q0_cases <- list(
  list(ar = c(0.5, -0.2), ma = c(0.3, 0.2, 0.1), sar = numeric(), sma = numeric(), m = 1),
  list(ar = c(0.5), ma = c(0.3), sar = c(0.4), sma = c(-0.5), m = 12),
  list(ar = numeric(), ma = c(0.4, -0.3), sar = numeric(), sma = c(0.6), m = 4),
  list(ar = c(-0.965, -0.051), ma = c(-0.806, -0.883), sar = c(-1.08, -0.975), sma = c(-0.282, -0.317), m = 12)
)
q0 <- lapply(q0_cases, function(cs) {
  z <- expand(cs$ar, cs$ma, cs$sar, cs$sma, cs$m)
  g <- .Call(stats:::C_getQ0, z$phi, z$theta)
  b <- .Call(stats:::C_getQ0bis, z$phi, z$theta, 0)
  # The coefficients, not phi and theta: JSON keeps 15 digits, and
  # Gardner's result is so ill-conditioned in the last case that the test
  # must expand the same doubles R expands.
  list(ar = I(cs$ar), ma = I(cs$ma), sar = I(cs$sar), sma = I(cs$sma), period = cs$m,
       gardner = rows(g), rossignol = rows(b))
})

out <- list(
  r_version = R.version.string,
  forecast_version = as.character(packageVersion("forecast")),
  auto = auto, arima = fixed_orders, likelihood = likelihoods, diffs = diffs,
  synthetic = synth, short = short, q0 = q0
)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", na = "null"), "arima_reference.json")
