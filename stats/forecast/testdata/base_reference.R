# Writes base_reference.json: reference values for stl.go, supsmu.go,
# baseline.go, decompose.go, theta.go and outliers.go, computed by R's
# stats and forecast (8.20) on the series of series.json
# (run from this folder: Rscript base_reference.R).
suppressPackageStartupMessages({
  library(jsonlite)
  library(forecast)
})
stopifnot(packageVersion("forecast") == "8.20")
s <- fromJSON("series.json", simplifyVector = TRUE)
series <- function(name) {
  x <- s[[name]]
  ts(x$x, frequency = x$frequency, start = x$start)
}
out <- list()

# STL: periodic robust (the tsoutliers/contest setting) and numeric
# s.window non-robust, plus a few non-default arguments.
stl_cases <- list(
  list(name = "AirPassengers", swindow = "periodic", robust = TRUE),
  list(name = "co2", swindow = "periodic", robust = TRUE),
  list(name = "nottem", swindow = "periodic", robust = TRUE),
  list(name = "USAccDeaths", swindow = "periodic", robust = TRUE),
  list(name = "AirPassengers", swindow = 7, robust = FALSE),
  list(name = "co2", swindow = 7, robust = FALSE),
  list(name = "nottem", swindow = 7, robust = FALSE),
  list(name = "USAccDeaths", swindow = 7, robust = FALSE),
  list(name = "UKgas", swindow = "periodic", robust = FALSE),
  list(name = "UKDriverDeaths", swindow = 13, robust = TRUE),
  list(name = "ldeaths", swindow = 9, robust = FALSE, sdegree = 1, tdegree = 0),
  list(name = "JohnsonJohnson", swindow = 5, robust = TRUE, twindow = 9, lwindow = 7)
)
out$stl <- lapply(stl_cases, function(c) {
  x <- series(c$name)
  args <- list(x, s.window = c$swindow, robust = c$robust)
  if (!is.null(c$sdegree)) args$s.degree <- c$sdegree
  if (!is.null(c$tdegree)) args$t.degree <- c$tdegree
  if (!is.null(c$twindow)) args$t.window <- c$twindow
  if (!is.null(c$lwindow)) args$l.window <- c$lwindow
  fit <- do.call(stl, args)
  ts <- fit$time.series
  list(
    name = c$name, period = frequency(x),
    swindow = if (is.character(c$swindow)) 0 else c$swindow, robust = c$robust,
    sdegree = fit$deg[["s"]], tdegree = fit$deg[["t"]],
    twindow = if (is.null(c$twindow)) 0 else c$twindow,
    lwindow = if (is.null(c$lwindow)) 0 else c$lwindow,
    seasonal = as.numeric(ts[, "seasonal"]), trend = as.numeric(ts[, "trend"]),
    remainder = as.numeric(ts[, "remainder"])
  )
})

# mstl() on a ts (one period), default and robust, with the seasonal
# strength of seas.heuristic.
mstl_cases <- list(
  list(name = "AirPassengers", robust = FALSE),
  list(name = "AirPassengers", robust = TRUE),
  list(name = "co2", robust = FALSE),
  list(name = "USAccDeaths", robust = TRUE),
  list(name = "nottem", robust = FALSE),
  list(name = "Nile", robust = FALSE),
  list(name = "lynx", robust = FALSE)
)
out$mstl <- lapply(mstl_cases, function(c) {
  x <- series(c$name)
  fit <- if (c$robust) mstl(x, robust = TRUE) else mstl(x)
  has_seas <- frequency(x) > 1
  list(
    name = c$name, period = frequency(x), robust = c$robust,
    trend = as.numeric(fit[, "Trend"]),
    seasonal = if (has_seas) as.numeric(fit[, 3]) else numeric(0),
    remainder = as.numeric(fit[, "Remainder"]),
    # seas.heuristic()'s formula on this fit (seas.heuristic itself calls
    # the non-robust mstl(x)).
    strength = if (has_seas) max(0, min(1, 1 - var(fit[, "Remainder"]) / var(fit[, "Remainder"] + fit[, 3]))) else 0,
    heuristic = if (has_seas) forecast:::seas.heuristic(x) else 0
  )
})

# supsmu(1:n, y) with the defaults.
supsmu_cases <- c("Nile", "lynx", "WWWusage", "LakeHuron", "AirPassengers", "sunspot.year", "discoveries")
out$supsmu <- lapply(supsmu_cases, function(name) {
  x <- as.numeric(series(name))
  list(name = name, y = supsmu(seq_along(x), x)$y)
})
short <- list(c(1, 5, 2), c(1, 5, 2, 7), c(1, 5, 2, 7, 3), c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8))
out$supsmu_short <- lapply(short, function(x) list(x = x, y = supsmu(seq_along(x), x)$y))


# Forecasts: R's level = c(60, 90, 98) are our quantile levels 0.2/0.8,
# 0.05/0.95 and 0.01/0.99.
levels <- c(60, 90, 98)
fc_list <- function(name, method, period, h, mean, lower, upper, median = mean) {
  list(name = name, method = method, period = period, h = h, mean = as.numeric(mean),
       median = as.numeric(median),
       lower = lapply(1:3, function(i) as.numeric(lower[, i])),
       upper = lapply(1:3, function(i) as.numeric(upper[, i])))
}
h_of <- function(x) if (frequency(x) > 1) 2 * frequency(x) else 10

base_cases <- c("AirPassengers", "USAccDeaths", "co2", "nottem", "UKgas", "Nile", "discoveries", "JohnsonJohnson")
out$baselines <- list()
for (name in base_cases) {
  x <- series(name)
  h <- h_of(x)
  f <- naive(x, h = h, level = levels)
  out$baselines[[length(out$baselines) + 1]] <- fc_list(name, "naive", frequency(x), h, f$mean, f$lower, f$upper)
  if (frequency(x) > 1) {
    f <- snaive(x, h = h, level = levels)
    out$baselines[[length(out$baselines) + 1]] <- fc_list(name, "seasonal_naive", frequency(x), h, f$mean, f$lower, f$upper)
  }
}

# Seasonal mean / median: our own definition (no R function), written
# out independently here: point = mean/median of all past values of the
# season; quantile p at step k = point + quantile(type 7) of the k-step
# errors of the model refitted at every origin o = m..n-k, and for steps
# with fewer than min(10, n-m) errors those of the longest step that has
# that many; the point forecast is the median level and each step's
# seven quantiles are sorted.
seas_stat <- function(x, m, o, pos, fun) fun(x[seq(((pos - 1) %% m) + 1, o, by = m)])
seasonal_avg <- function(x, m, h, fun) {
  n <- length(x)
  mean <- sapply(1:h, function(k) seas_stat(x, m, n, n + k, fun))
  minerr <- min(10, n - m)
  kmax <- max(1, n - m + 1 - minerr)
  probs <- c(0.01, 0.05, 0.2, 0.8, 0.95, 0.99)
  q <- t(sapply(1:h, function(k) {
    kk <- min(k, kmax)
    e <- sapply(m:(n - kk), function(o) x[o + kk] - seas_stat(x, m, o, o + kk, fun))
    quantile(e, probs, type = 7, names = FALSE)
  }))
  # Each step's quantiles, with the point forecast as the median, sorted
  # so that they never cross.
  q <- t(apply(cbind(q[, 1:3, drop = FALSE] + mean, mean, q[, 4:6, drop = FALSE] + mean), 1, sort))
  list(mean = mean, lower = q[, 3:1, drop = FALSE], upper = q[, 5:7, drop = FALSE], median = q[, 4])
}
for (name in c("AirPassengers", "USAccDeaths", "nottem", "UKgas", "co2")) {
  x <- as.numeric(series(name))
  m <- frequency(series(name))
  h <- 2 * m
  for (meth in c("seasonal_mean", "seasonal_median")) {
    r <- seasonal_avg(x, m, h, if (meth == "seasonal_mean") mean else median)
    out$baselines[[length(out$baselines) + 1]] <- fc_list(name, meth, m, h, r$mean, r$lower, r$upper, r$median)
  }
}
# A long horizon (beyond the steps with 10 errors) on a short series.
x <- as.numeric(window(USAccDeaths, end = c(1974, 12)))
for (meth in c("seasonal_mean", "seasonal_median")) {
  r <- seasonal_avg(x, 12, 30, if (meth == "seasonal_mean") mean else median)
  out$baselines[[length(out$baselines) + 1]] <- fc_list("USAccDeaths[1:24]", meth, 12, 30, r$mean, r$lower, r$upper, r$median)
}
out$short_usaccdeaths <- x

# decompose()
dec_cases <- list(
  list("AirPassengers", "multiplicative"), list("AirPassengers", "additive"),
  list("co2", "additive"), list("nottem", "additive"), list("UKgas", "multiplicative"),
  list("JohnsonJohnson", "multiplicative"), list("USAccDeaths", "additive")
)
na2nan <- function(v) { v <- as.numeric(v); v[is.na(v)] <- NaN; v }
out$decompose <- lapply(dec_cases, function(c) {
  d <- decompose(series(c[[1]]), type = c[[2]])
  list(name = c[[1]], type = c[[2]], trend = na2nan(d$trend), seasonal = as.numeric(d$seasonal),
       random = na2nan(d$random), figure = d$figure)
})

# thetaf()'s seasonality test.
seas_test <- function(x) {
  m <- frequency(x); n <- length(x)
  if (m > 1 && !is.constant(x) && n > 2 * m) {
    r <- as.numeric(acf(x, lag.max = m, plot = FALSE)$acf)[-1]
    stat <- sqrt((1 + 2 * sum(r[-m]^2)) / n)
    list(seasonal = (abs(r[m]) / stat > qnorm(0.95)), stat = abs(r[m]) / stat)
  } else list(seasonal = FALSE, stat = 0)
}
seas_names <- c("AirPassengers", "co2", "UKDriverDeaths", "USAccDeaths", "ldeaths", "nottem", "austres",
                "JohnsonJohnson", "UKgas", "elec_equip_monthly", "Nile")
out$seasonality <- lapply(seas_names, function(name) {
  x <- series(name)
  r <- seas_test(x)
  list(name = name, period = frequency(x), seasonal = r$seasonal, stat = r$stat)
})

# naive2 (M4 benchmark) with thetaf's seasonality test.
naive2 <- function(x, h) {
  m <- frequency(x)
  if (seas_test(x)$seasonal) {
    d <- decompose(x, type = "multiplicative")
    des <- x / d$seasonal
    si <- head(rep(tail(d$seasonal, m), h), h)
  } else {
    des <- x
    si <- rep(1, h)
  }
  f <- naive(des, h = h, level = levels)
  list(mean = f$mean * si, lower = f$lower * si, upper = f$upper * si)
}
theta_cases <- c("AirPassengers", "co2", "USAccDeaths", "nottem", "UKgas", "JohnsonJohnson", "austres",
                 "elec_equip_monthly", "Nile", "WWWusage", "lynx", "LakeHuron", "BJsales", "sunspot.year",
                 "discoveries", "UKDriverDeaths")
out$naive2 <- lapply(theta_cases, function(name) {
  x <- series(name)
  h <- h_of(x)
  f <- naive2(x, h)
  fc_list(name, "naive2", frequency(x), h, f$mean, f$lower, f$upper)
})

# thetaf()
out$theta <- lapply(theta_cases, function(name) {
  x <- series(name)
  h <- h_of(x)
  f <- thetaf(x, h = h, level = levels)
  fit <- ses(if (seas_test(x)$seasonal) seasadj(decompose(x, "multiplicative")) else x, h = 1)
  c(fc_list(name, "theta", frequency(x), h, f$mean, f$lower, f$upper),
    list(alpha = f$model$alpha[[1]], drift = f$model$drift[[1]], sigma2 = f$model$sigma,
         level0 = fit$model$par[["l"]], seasonal = seas_test(x)$seasonal))
})

# tsoutliers() and tsclean() on series as they are and with injected
# spikes (values multiplied by 3, or by -2 for a negative spike).
spike <- function(x, at, f = 3) { x[at] <- x[at] * f; x }
daily <- ts(100 + 0.05 * (1:300) + 10 * sin(2 * pi * (1:300) / 7) + 3 * cos(1:300), frequency = 7)
out_cases <- list(
  list("AirPassengers", series("AirPassengers")),
  list("AirPassengers*3", spike(series("AirPassengers"), c(10, 50, 100))),
  list("Nile*3", spike(series("Nile"), c(20, 60))),
  list("Nile ends", spike(series("Nile"), c(1, 100))),
  list("USAccDeaths", series("USAccDeaths")),
  list("USAccDeaths*3", spike(series("USAccDeaths"), c(5, 30, 60))),
  list("USAccDeaths[1:20]*3", spike(window(series("USAccDeaths"), end = c(1974, 8)), 9)),
  list("nottem*3", spike(series("nottem"), c(15, 100, 200))),
  list("co2*3", spike(series("co2"), c(50, 300))),
  list("lynx", series("lynx")),
  list("sunspot.year", series("sunspot.year")),
  list("discoveries", series("discoveries")),
  list("UKgas", series("UKgas")),
  list("elec_equip_monthly", series("elec_equip_monthly")),
  list("ldeaths-2", spike(series("ldeaths"), c(30), -2)),
  list("daily*3", spike(daily, c(3, 77, 150, 151, 299))),
  list("WWWusage", series("WWWusage"))
)
out$outliers <- lapply(out_cases, function(c) {
  x <- c[[2]]
  o <- tsoutliers(x)
  list(name = c[[1]], period = frequency(x), x = as.numeric(x), index = I(as.integer(o$index)),
       replacement = I(as.numeric(o$replacements)), clean = as.numeric(tsclean(x)))
})

writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = FALSE), "base_reference.json")
