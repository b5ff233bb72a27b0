# Vatic build, test and run targets. The DuckDB driver links through cgo;
# the Arrow interface of duckdb-go is opt-in through the duckdb_arrow tag.
TAGS      ?= duckdb_arrow
TEST_TAGS ?= $(TAGS) assert
PURE      := ./ingest/... ./stats/... ./engine/sqlgen/... ./engine/calendar/... ./columnar/... ./bench/...
# Packages that link DuckDB: `make test` runs them a second time built
# without the duckdb_arrow tag, as `go build ./cmd/vatic` and `go install`
# build them, so both write paths pass the Store conformance suite and the
# end-to-end session tests.
DUCK      := ./duckstore ./engine/... ./api/... ./cmd/...
FUZZTIME  ?= 30s
# The per-package test timeout: the slowest packages (api, stats/forecast
# under -race) take 5–10 minutes on 2 busy cores, near go test's default
# of 10; CI bounds the whole run at 90 minutes.
TIMEOUT   ?= 40m

CRASH_N   ?= 20

.PHONY: build run test test-tagged test-plain test-race test-pure crash bench fuzz lint tidy-check

build:
	go build -tags '$(TAGS)' -o bin/ ./cmd/...

run:
	go run -tags '$(TAGS)' ./cmd/vatic serve -log-format text

test: test-tagged test-plain

test-tagged:
	go test -timeout $(TIMEOUT) -tags '$(TEST_TAGS)' ./...

test-plain:
	go test -timeout $(TIMEOUT) -tags assert $(DUCK)

test-race:
	go test -timeout $(TIMEOUT) -race -tags '$(TEST_TAGS)' ./...

test-pure:
	CGO_ENABLED=0 go test -timeout $(TIMEOUT) -tags assert $(PURE)

# The long crash test: SIGKILL the server CRASH_N times in each of a PUT, an
# import and a session, restarting it on the same data directory (`make
# test` runs it with 3).
crash:
	VATIC_CRASH_N=$(CRASH_N) go test -tags '$(TEST_TAGS)' -count 1 -timeout 30m -run '^TestCrash$$' -v ./cmd/vatic

# Micro-benchmarks beside the code (benchstat-compatible), then the
# whole-system workloads of bench/ against DuckDB's own reader.
bench: build
	go test -tags '$(TAGS)' -run '^$$' -bench . -count 6 ./ingest/... ./stats/... ./api/... | tee bench.txt
	go run ./cmd/bench -vatic bin/vatic | tee -a bench.txt

fuzz:
	go test -run '^$$' -fuzz '^FuzzCSV$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzJSON$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzArrowStream$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzParquet$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzInfer$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzParseTime$$' -fuzztime $(FUZZTIME) ./columnar
	go test -run '^$$' -fuzz '^FuzzQuoteIdent$$' -fuzztime $(FUZZTIME) ./columnar
	go test -run '^$$' -fuzz '^FuzzParseNumber$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzVerbatimStrings$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzCSVParseNumbers$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzDepthScanner$$' -fuzztime $(FUZZTIME) ./ingest
	go test -run '^$$' -fuzz '^FuzzAzureConnectionString$$' -fuzztime $(FUZZTIME) ./remote
	go test -run '^$$' -fuzz '^FuzzParseICal$$' -fuzztime $(FUZZTIME) ./engine/calendar
	go test -run '^$$' -fuzz '^FuzzLinearUnmarshal$$' -fuzztime $(FUZZTIME) ./stats/regress
	go test -run '^$$' -fuzz '^FuzzTreeUnmarshal$$' -fuzztime $(FUZZTIME) ./stats/regress
	go test -run '^$$' -fuzz '^FuzzLinearUnmarshal$$' -fuzztime $(FUZZTIME) ./stats/classify
	go test -run '^$$' -fuzz '^FuzzTreeUnmarshal$$' -fuzztime $(FUZZTIME) ./stats/classify
	go test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) ./stats/internal/codec
	go test -run '^$$' -fuzz '^FuzzUnmarshal$$' -fuzztime $(FUZZTIME) ./stats/anomaly
	go test -run '^$$' -fuzz '^FuzzTokenize$$' -fuzztime $(FUZZTIME) ./stats/text
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzParams$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzImportRequest$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzViewRequest$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzSessionRequest$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzVocabularyParams$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzPredictBody$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzTimeSeriesRequest$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzClassifierPredictBody$$' -fuzztime $(FUZZTIME) ./api
	go test -tags '$(TAGS)' -run '^$$' -fuzz '^FuzzAnomalyPredictBody$$' -fuzztime $(FUZZTIME) ./api

lint:
	test -z "$$(gofmt -l .)"
	go vet -tags '$(TAGS)' ./...
	go vet ./...
	go tool staticcheck -tags '$(TAGS)' ./...
	go tool staticcheck ./...

tidy-check:
	go mod tidy -diff
