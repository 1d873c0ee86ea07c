# Everything bootstraps from a machine that has only Python 3.11+ and pip:
# uv comes from PyPI into .tools/ when it is not on PATH, then `uv sync` builds .venv.
SHELL := /bin/bash
# uv trusts the system's certificate store, so that a machine behind a TLS-inspecting proxy (whose
# authority is installed there) reaches the package index as pip does.
export UV_NATIVE_TLS := 1
PYTHON ?= python3
UV := $(shell command -v uv 2>/dev/null || echo .tools/bin/uv)
RUN := $(UV) run --no-sync
MEMBERS := $(wildcard libs/*/pyproject.toml services/*/pyproject.toml proto/pyproject.toml cli/pyproject.toml)

.PHONY: run test check deploy-check lint typecheck pytest schemas bench format sync clean

run: sync ## run the whole system on one port (REDLINE_PORT, default 8080)
	$(RUN) redline up

test: sync check deploy-check pytest ## the gate: format, lint, types, schema drift, docs site, deploy manifests, tests

# Last, the documentation site: it builds offline with every link checked (NO_MKDOCS_2_WARNING
# silences the notice Material prints on every build about its end of life).
check: sync
	$(RUN) ruff format --check .
	$(RUN) ruff check .
	$(RUN) mypy
	$(RUN) python -m redline.proto.schema --check
	$(RUN) python scripts/declared_dependencies.py
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict --quiet --site-dir site

# Tests wait on servers more than they compute: three workers keep two cores busy. Tests of one
# file share a worker, so a file's session fixtures (the split topology) start once. Then the
# black-box suite runs again against the split topology, but for its sweeps of the input space.
# Last, alone on the machine, the noisy-neighbour suite: it compares one tenant's latency under
# another's attack with the same load alone, which other tests running beside it would blur.
pytest: sync
	$(RUN) pytest -n 3 --dist loadfile -m "not noisy_neighbour"
	$(RUN) pytest tests/api --target split -m "not input_sweep" -n 2 --dist loadfile
	$(RUN) pytest tests/e2e -m noisy_neighbour

schemas: sync ## regenerate proto/schemas/ from the event types
	$(RUN) python -m redline.proto.schema

bench: sync ## print throughput and latency figures beside their baselines
	$(RUN) python -m tests.bench

format: sync
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

sync: .venv/.synced

.venv/.synced: uv.lock pyproject.toml $(MEMBERS) | $(UV)
	$(UV) sync --all-packages --locked
	@touch $@

.tools/bin/uv:
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet 'uv>=0.9,<0.14'

clean:
	rm -rf .venv .tools .mypy_cache .ruff_cache .pytest_cache .hypothesis site

deploy-check: sync ## offline checks of the Dockerfiles, k8s/ and the Tiltfile (tools pinned, run by uv)
	$(RUN) python -m scripts.deploy_check
