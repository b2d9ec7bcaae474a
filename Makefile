# Headroom — the two set-up commands are `make run` and `make test`.
GO        ?= go
BIN       ?= bin/headroom
OUT       ?= out
FUZZTIME  ?= 30s
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all build run test test-short bench perf fuzz lint compare-simpy clean

all: lint test build

## build: compile the headroom binary into bin/
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/headroom

## run: simulate the embedded default scenario and write its outputs to out/
run: build
	$(BIN) run --json $(OUT)/morning-peak.json --csv $(OUT)/morning-peak

## test: vet and run every test (what CI runs)
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## test-short: skip the long statistical checks
test-short:
	$(GO) test -short ./...

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## perf: one simulated day at 100 requests/s, timed on one core, with peak memory
perf: build
	GOMAXPROCS=1 /usr/bin/time -f "%e s wall, %U s user, %M KB max resident" $(BIN) run testdata/perf/hosted-day.toml --quiet

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeStrict$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzIndex$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzSet$$' -fuzztime $(FUZZTIME) ./scenarios/

## lint: formatting and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## compare-simpy: the same M/M/c model in Headroom and SimPy 3, timed
compare-simpy:
	bash scripts/compare-simpy.sh

clean:
	rm -rf bin $(OUT)
