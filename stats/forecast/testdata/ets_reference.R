# Writes ets_reference.json: what R's forecast 8.20 ets() and forecast.ets()
# compute on the series of series.json, for ets_test.go (run from this
# folder: Rscript ets_reference.R). Sections:
#   auto:   ets(y) with R's defaults, and forecast(fit, h, level = c(60, 90, 98))
#   fixed:  ets(y, model = form, damped = d) for every form ets(y) tries
#   start:  the starting point of each form (initparam, initstate) and the
#           likelihood R's recursion gives there (deterministic, no optimiser)
#   options: ets(y, ...) with non-default ic, additive.only, damped, model
#   admissible: forecast:::admissible on random parameter draws
library(forecast)
library(jsonlite)

s <- fromJSON("series.json")
series <- function(name) {
  x <- s[[name]]
  ts(x$x, frequency = x$frequency, start = x$start)
}
horizon <- function(y) if (frequency(y) > 1) 2 * frequency(y) else 10

par4 <- function(fit) {
  p <- fit$par
  get <- function(k) if (k %in% names(p)) unname(p[[k]]) else NULL
  list(alpha = get("alpha"), beta = get("beta"), gamma = get("gamma"), phi = get("phi"))
}

describe <- function(fit, y) {
  h <- horizon(y)
  fc <- forecast(fit, h = h, level = c(60, 90, 98))
  n <- length(y)
  c(
    list(
      method = fit$method, components = fit$components,
      loglik = fit$loglik, aic = fit$aic, aicc = fit$aicc, bic = fit$bic,
      sigma2 = fit$sigma2, mse = fit$mse, amse = fit$amse,
      npar = length(fit$par),
      initstate = unname(fit$initstate), laststate = unname(fit$states[n + 1, ]),
      residuals_head = unname(as.numeric(fit$residuals[1:5])),
      fitted_head = unname(as.numeric(fit$fitted[1:5])),
      h = h, mean = as.numeric(fc$mean),
      lower = unname(as.matrix(fc$lower)), upper = unname(as.matrix(fc$upper))
    ),
    par4(fit)
  )
}

# The forms ets(y) tries, in its own order.
forms <- function(y) {
  m <- frequency(y)
  pos <- min(y) > 0
  out <- list()
  for (e in c("A", "M")) for (t in c("N", "A")) for (se in c("N", "A", "M")) for (d in c(TRUE, FALSE)) {
    if (t == "N" && d) next
    if (e == "A" && se == "M") next
    if (!pos && e == "M") next
    if (se != "N" && (m == 1 || m > 24 || length(y) <= m)) next
    out[[length(out) + 1]] <- list(form = paste0(e, t, se), damped = d)
  }
  out
}

auto_names <- c(
  "AirPassengers", "USAccDeaths", "Nile", "LakeHuron", "austres", "WWWusage",
  "UKgas", "co2", "JohnsonJohnson", "ldeaths", "nottem", "UKDriverDeaths",
  "lynx", "BJsales", "elec_equip_monthly", "sunspot.year", "discoveries"
)
auto <- list()
for (nm in auto_names) {
  y <- series(nm)
  fit <- ets(y)
  auto[[nm]] <- describe(fit, y)
}

fixed_names <- c("AirPassengers", "USAccDeaths", "Nile", "WWWusage", "austres", "UKgas", "JohnsonJohnson")
fixed <- list()
start <- list()
lower <- c(rep(1e-04, 3), 0.8)
upper <- c(rep(0.9999, 3), 0.98)
for (nm in fixed_names) {
  y <- series(nm)
  fixed[[nm]] <- list()
  start[[nm]] <- list()
  for (f in forms(y)) {
    key <- paste0(f$form, if (f$damped) "d" else "")
    et <- substr(f$form, 1, 1); tt <- substr(f$form, 2, 2); st <- substr(f$form, 3, 3)
    fit <- try(ets(y, model = f$form, damped = f$damped), silent = TRUE)
    if (!inherits(fit, "try-error")) fixed[[nm]][[key]] <- describe(fit, y)
    m <- if (st != "N") frequency(y) else 1
    p <- forecast:::initparam(NULL, NULL, NULL, NULL, tt, st, f$damped, lower, upper, m, "both")
    init <- forecast:::initstate(y, tt, st)
    full <- init
    if (st != "N") full <- c(init, m * (st == "M") - sum(init[(2 + (tt != "N")):length(init)]))
    g <- function(k, def) if (k %in% names(p)) unname(p[[k]]) else def
    e <- forecast:::pegelsresid.C(y, m, full, et, tt, st, f$damped,
      g("alpha", NULL), g("beta", 0), g("gamma", 0), g("phi", 1), 3)
    start[[nm]][[key]] <- list(
      par = unname(p), initstate = unname(init), lik = e$lik,
      amse = e$amse, e_head = as.numeric(e$e[1:5])
    )
  }
}

# A multiplicative-trend model (point forecasts are deterministic; its
# intervals come from simulation) and the constant-series fallback.
mmn <- ets(series("AirPassengers"), model = "MMN", damped = FALSE)
set.seed(2024) # forecast() simulates MMN's intervals
extra <- list(
  AirPassengers_MMN = describe(mmn, series("AirPassengers")),
  constant = describe(ets(ts(rep(5, 30))), ts(rep(5, 30)))
)

# ets(y, ...) with options other than the defaults.
options <- list(
  list(series = "AirPassengers", ic = "bic"),
  list(series = "USAccDeaths", ic = "aic"),
  list(series = "AirPassengers", additive.only = TRUE),
  list(series = "AirPassengers", allow.multiplicative.trend = TRUE),
  list(series = "UKgas", damped = FALSE),
  list(series = "austres", damped = TRUE),
  list(series = "co2", model = "AZZ"),
  list(series = "ldeaths", model = "ZZN")
)
for (i in seq_along(options)) {
  o <- options[[i]]
  args <- o[names(o) != "series"]
  fit <- do.call(ets, c(list(y = series(o$series)), args))
  options[[i]]$method <- fit$method
  options[[i]]$aicc <- fit$aicc
  options[[i]]$aic <- fit$aic
  options[[i]]$bic <- fit$bic
}

set.seed(42)
adm <- list()
for (i in 1:600) {
  m <- sample(c(2, 3, 4, 7, 12, 24), 1)
  seasonal <- runif(1) < 0.8
  trend <- runif(1) < 0.6
  damped <- trend && runif(1) < 0.5
  alpha <- runif(1, 0, 1.2)
  beta <- if (trend) runif(1, -0.1, 1) * alpha else NULL
  gamma <- if (seasonal) runif(1, -0.1, 1.2) * (1 - alpha) else NULL
  phi <- if (damped) runif(1, 0.5, 1) else NULL
  a <- forecast:::admissible(alpha, beta, gamma, phi, if (seasonal) m else 1)
  adm[[i]] <- list(
    m = if (seasonal) m else 1, alpha = alpha, beta = if (trend) beta else 0,
    gamma = if (seasonal) gamma else 0, phi = if (damped) phi else 1,
    trend = trend, seasonal = seasonal, damped = damped, admissible = a == 1
  )
}

out <- list(auto = auto, fixed = fixed, start = start, extra = extra, options = options, admissible = adm)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", pretty = FALSE), "ets_reference.json")
