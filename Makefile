# Headroom — the two set-up commands are `make run` and `make test`.
GO        ?= go
BIN       ?= bin/headroom
OUT       ?= out
FUZZTIME  ?= 3m
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
# The ECharts runtime inlined into HTML reports (see report/htmlreport/assets).
ECHARTS_VERSION := 5.6.0
ECHARTS_SHA256  := bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1
ASSETS_DIR      := report/htmlreport/assets

.PHONY: all build run test test-short test-browser bench bench-goals perf fuzz lint compare-simpy clean assets browser node-sdks

all: lint test build

## assets: fetch the pinned ECharts runtime for HTML reports (no-op when present; warns and goes on without npm)
assets:
	@bash scripts/fetch-echarts.sh $(ECHARTS_VERSION) $(ECHARTS_SHA256) $(ASSETS_DIR)

## node-sdks: install the official Node SDKs (openai, @anthropic-ai/sdk, pinned in model/serve/testdata/node) that serve's Node test drives (no-op when present; warns and goes on without node or npm, and the test skips)
NODE_SDK_DIR := model/serve/testdata/node
node-sdks:
	@if [ -f $(NODE_SDK_DIR)/node_modules/openai/package.json ] && [ -f $(NODE_SDK_DIR)/node_modules/@anthropic-ai/sdk/package.json ]; then :; \
	elif command -v node >/dev/null && command -v npm >/dev/null; then \
		(cd $(NODE_SDK_DIR) && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null) || \
		echo "node-sdks: npm ci failed; the Node SDK test will skip" >&2; \
	else echo "node-sdks: node or npm absent; the Node SDK test will skip" >&2; fi

## browser: install Debian's chromium for the HTML report's browser test (skipped when /usr/bin/chromium exists)
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
		echo "browser: could not install chromium; the browser test will skip" >&2; \
	else echo "browser: chromium absent and not root with apt-get; the browser test will skip" >&2; fi

## build: compile the headroom binary into bin/ (static: nothing it does needs cgo, and a static binary starts about a millisecond sooner)
build: assets
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/headroom

## run: simulate the embedded default scenario and write its outputs to out/
run: build
	$(BIN) run --json $(OUT)/morning-peak.json --csv $(OUT)/morning-peak

## test: vet and run every test (what CI runs); the browser test's pages and screenshots go to out/screenshots.
## HEADROOM_EXCERPTS=all: the README's plan excerpts are checked too (50 s to 2½ minutes more, with the machine's load).
## model/serve runs last and alone: its tests drive a live server by the wall clock, and beside the
## other packages' tests on two cores its clients would be starved of CPU
SERVE_PKG := ./model/serve/
test: assets node-sdks
	$(GO) vet ./...
	rm -rf $(OUT)/screenshots
	HEADROOM_EXCERPTS=all HEADROOM_SCREENSHOTS=$(CURDIR)/$(OUT)/screenshots $(GO) test -count=1 $$($(GO) list ./... | grep -v '/model/serve$$')
	$(GO) test -count=1 $(SERVE_PKG)

## test-browser: only the HTML report's headless-chromium test (installs chromium if absent), pages and screenshots in out/screenshots
test-browser: assets browser
	rm -rf $(OUT)/screenshots
	HEADROOM_SCREENSHOTS=$(CURDIR)/$(OUT)/screenshots $(GO) test -count=1 -run Browser -v ./report/htmlreport/

## test-short: skip the long statistical checks
test-short:
	$(GO) test -short ./...

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-goals: the three speed goals' benchmarks (M/M/8, the hosted and the cluster hour) on one core, built with the CLI's profile as bin/headroom is; read cpu-ns/customer and cpu-ns/request
bench-goals:
	GOMAXPROCS=1 $(GO) test -run '^$$' -bench 'Benchmark(MM8|HostedHour|ClusterHour)$$' -benchtime 3x -count 5 -pgo=$(CURDIR)/cmd/headroom/default.pgo ./model/

## perf: one simulated day at 100 requests/s, timed on one core, with peak memory
perf: build
	GOMAXPROCS=1 /usr/bin/time -f "%e s wall, %U s user, %M KB max resident" $(BIN) run testdata/perf/hosted-day.toml --quiet

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzIndex$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzOverride$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzMergePart$$' -fuzztime $(FUZZTIME) ./report/shard/
	$(GO) test -run '^$$' -fuzz '^FuzzSimulate$$' -fuzztime $(FUZZTIME) ./model/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./model/serve/
	$(GO) test -run '^$$' -fuzz '^FuzzBatchInput$$' -fuzztime $(FUZZTIME) ./model/serve/
	$(GO) test -run '^$$' -fuzz '^FuzzAzureTrace$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzMooncakeTrace$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzGenericCSVTrace$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzGenericJSONLTrace$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzServeGenTrace$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzServeGenPMF$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzParseDatetime$$' -fuzztime $(FUZZTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzLoadTestParse$$' -fuzztime $(FUZZTIME) ./model/loadtest/

## lint: formatting and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## compare-simpy: the same M/M/c model in Headroom and SimPy 3, timed
compare-simpy:
	bash scripts/compare-simpy.sh

clean:
	rm -rf bin $(OUT)
