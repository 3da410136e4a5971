# Quick start on a fresh machine with only Python and pip:
#   make demo   -- set up .venv, install the package, run the built-in example
#   make test   -- set up .venv, install the package with test extras, run the tests
#   make docs   -- build the documentation site (mkdocs --strict) into site/
#   make docs-outputs -- rerun the examples of README.md and docs/, rewrite stale outputs
#   make figures -- draw the tutorials' figures into figures/ (mkdocs build draws them too)
#   make reproduction-table -- rerun every reproduction, rewrite docs/reproduction.md
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: demo test test-slow lint bench docs docs-outputs figures reproduction-table clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/oed warmup
	$(VENV)/bin/oed demo

test: $(STAMP)
	$(PY) -m ruff check design rounding bandits tests benchmarks scripts
	$(PY) -m pytest

test-slow: $(STAMP)
	$(PY) -m pytest -m slow

lint: $(STAMP)
	$(PY) -m ruff check design rounding bandits tests benchmarks scripts

docs: $(STAMP)
	$(PY) -m pip install --quiet -e ".[docs]"
	$(PY) -m mkdocs build --strict -d site

docs-outputs: $(STAMP)
	$(PY) scripts/docs_outputs.py --write

figures: $(STAMP)
	$(PY) scripts/make_figures.py figures

reproduction-table: $(STAMP)
	$(PY) -m bandits.cli reproduce all --out out --markdown docs/reproduction.md

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
