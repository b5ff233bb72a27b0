# Writes series.json: the series the forecast tests and their reference
# scripts share, each with its frequency and start, from R's datasets and
# ../../../../shared/data (run from this folder: Rscript series.R).
library(jsonlite)
s <- list(
  AirPassengers = AirPassengers, co2 = co2, UKDriverDeaths = UKDriverDeaths,
  USAccDeaths = USAccDeaths, ldeaths = ldeaths, nottem = nottem,
  Nile = Nile, lynx = lynx, WWWusage = WWWusage, LakeHuron = LakeHuron,
  austres = austres, JohnsonJohnson = JohnsonJohnson, UKgas = UKgas,
  sunspot.year = sunspot.year, discoveries = discoveries, BJsales = BJsales
)
shared <- "../../../../shared/data"
e <- read.csv(file.path(shared, "elec_equip_monthly.csv"))
s$elec_equip_monthly <- ts(e$orders, start = c(1995, 1), frequency = 12)
n <- read.csv(file.path(shared, "nile_yearly.csv"))
s$nile_yearly <- ts(n$volume, start = 1871, frequency = 1)
out <- lapply(s, function(x) list(frequency = frequency(x), start = start(x), x = as.numeric(x)))
writeLines(toJSON(out, digits = NA, auto_unbox = FALSE, pretty = FALSE), "series.json")
