# Tandem — two commands do everything on a fresh Debian machine:
#   make run    install missing system packages, build (release), serve on the default config
#   make test   install missing system packages, build, run the whole test suite
# and `make bench` prints the performance figures, `make fuzz` runs the libFuzzer harnesses (docs/fuzzing.md).
SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
CONFIG ?= Config/tandem.json
RELEASE_BIN := .build/release/tandem
DEBUG_BIN := .build/debug/tandem

FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 4
FUZZ_HARNESSES ?=

.PHONY: run test bench bench-compare build release bootstrap unit integration fuzz fuzz-smoke clean help

help:
	@echo "make run     build (release) and serve $(CONFIG) on http://127.0.0.1:8080"
	@echo "make test    unit tests (swift test) and black-box integration tests"
	@echo "make bench   every benchmark (HTTP, store, timers, providers, memory) and a summary table"
	@echo "make bench-compare BASE=<revision>   rows 1-3 of make bench for BASE beside this tree, in one run"
	@echo "make fuzz    every libFuzzer harness for FUZZ_SECONDS (60) each, executions per harness in a table"

bootstrap:
	@scripts/bootstrap.sh build

release: bootstrap
	$(SWIFT) build -c release --product tandem

build: bootstrap
	$(SWIFT) build --build-tests

run: release
	TANDEM_CONFIG=$(CONFIG) $(RELEASE_BIN) serve

test:
	@scripts/bootstrap.sh test
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory unit integration fuzz-smoke

# Provider tests start Python protocol peers (h2, PyJWT, smpp34, smpp.twisted3) from the venv. They run in
# their own test process: a dozen Python start-ups take both cores for seconds, and the HTTP and API
# suites' in-process servers would compete with them for the cooperative threads. The HTTP server's suites
# run in a process of their own too: they time real sockets against async handlers on the cooperative pool,
# which the CPU-heavy synchronous suites of the other modules (timer-wheel models, 8 MiB bodies) hold for
# seconds at a time on two cores.
unit: $(VENV)/.ready
	TANDEM_PYTHON=$(abspath $(VENV))/bin/python $(SWIFT) test --skip-build --skip TandemProvidersTests --skip TandemHTTPTests
	$(SWIFT) test --skip-build --filter TandemHTTPTests
	TANDEM_PYTHON=$(abspath $(VENV))/bin/python $(SWIFT) test --skip-build --filter TandemProvidersTests

$(VENV)/.ready: Tests/integration/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r Tests/integration/requirements.txt
	touch $@

# The whole black-box suite on SQLite, then the part that exercises the store on PostgreSQL (every sender API, the
# device API, the scenarios and the kill -9 test) again with each server on a database of a throwaway PostgreSQL
# cluster the tests start and remove (TANDEM_TEST_STORE=postgresql).
INTEGRATION_ON_POSTGRES ?= test_gateway.py test_device_api.py test_scenarios.py test_crash.py test_bwmi.py test_mymsp.py \
	test_scg.py test_cospace.py
integration: $(VENV)/.ready
	TANDEM_BIN=$(abspath $(DEBUG_BIN)) $(VENV)/bin/python -m pytest -q Tests/integration
	TANDEM_TEST_STORE=postgresql TANDEM_BIN=$(abspath $(DEBUG_BIN)) $(VENV)/bin/python -m pytest -q \
		$(addprefix Tests/integration/,$(INTEGRATION_ON_POSTGRES))

# Each harness for FUZZ_SECONDS (one at a time, niced); fails on a crash, a hang over 1 s, a leak or a harness
# that does not build. FUZZ_HARNESSES picks some (scripts/fuzz.sh list names them).
fuzz: bootstrap
	nice -n 19 scripts/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# The test suite's share: every harness builds and runs for a few seconds on its corpus.
fuzz-smoke: bootstrap
	nice -n 19 scripts/fuzz.sh run $(FUZZ_SMOKE_SECONDS)

bench: $(VENV)/.ready
	@scripts/bootstrap.sh bench
	$(SWIFT) build -c release --product tandem
	@PYTHON=$(abspath $(VENV))/bin/python scripts/bench.sh $(RELEASE_BIN)

# BASE (a git revision) is built in a worktree under .build/ (removed afterwards) and measured beside this tree.
bench-compare:
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<git revision> [ROUNDS=2]"; exit 2; }
	@scripts/bootstrap.sh bench
	$(SWIFT) build -c release --product tandem
	rm -rf .build/bench-base && git worktree prune && git worktree add --detach .build/bench-base $(BASE)
	cd .build/bench-base && $(SWIFT) build -c release --product tandem
	scripts/bench-compare.sh .build/bench-base/.build/release/tandem $(RELEASE_BIN) $(or $(ROUNDS),2); \
	  status=$$?; git worktree remove --force .build/bench-base; exit $$status

clean:
	rm -rf .build $(VENV) data
