# Two commands a newcomer needs: `make demo` and `make test`. Both build .venv on first use.
# `make lint` is what CI checks besides the tests (cog: the docs' generated parts match the code). `make fmt` fixes what ruff can and rewrites the mypy
# baseline to today's errors: review `git diff mypy-baseline.txt`, it should only lose lines.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,lint]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/newsdesk demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/python -m ruff format --check
	$(BIN)/python -m ruff check
	$(BIN)/python -m mypy | $(BIN)/python -m mypy_baseline filter --hide-stats
	$(BIN)/python -m cogapp -I docs --check --verbosity=0 docs/*.md CONTRIBUTING.md

fmt: $(STAMP)
	$(BIN)/python -m ruff check --fix
	$(BIN)/python -m ruff format
	$(BIN)/python -m mypy | $(BIN)/python -m mypy_baseline sync
	$(BIN)/python -m cogapp -I docs -r --verbosity=0 docs/*.md CONTRIBUTING.md

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) demo-output .pytest_cache

.PHONY: setup demo test lint fmt bench clean
