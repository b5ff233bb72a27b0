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

writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = FALSE), "base_reference.json")
