# darkguard: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV   := .venv
PYTHON ?= python3
STAMP  := $(VENV)/.installed
# Debian packages the browser stages need: Chromium and the fonts the pages are set in.
BROWSER_PKGS := chromium fonts-liberation fonts-dejavu-core
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export HF_HUB_OFFLINE := 1
export PYTHONHASHSEED := 0

.PHONY: help setup browser chartlibs repro plots test lint format lab clean-env

help: ## Show this help.
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	# torch first, so that no later resolution swaps its build.
	$(VENV)/bin/pip install -q torch==2.14.1 torchvision==0.29.1
	$(VENV)/bin/pip install -q -e '.[dev]'
	@touch $(STAMP)

browser: ## Install Chromium and the page fonts (Debian) if missing.
	@dpkg -s $(BROWSER_PKGS) >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BROWSER_PKGS) >/dev/null; }
	@test -x /usr/bin/chromium

# Chart libraries of the offline `dvc plots show` page (vega, vega-lite, vega-embed; pinned in
# package-lock.json), from the npm registry; Node.js from Debian if missing.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nodejs npm >/dev/null; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $(NODE_STAMP)

chartlibs: $(NODE_STAMP) ## Install the chart libraries of the offline plots page (npm).

setup: $(STAMP) browser chartlibs ## Create .venv, install Chromium and the chart libraries if missing.

repro: setup ## Run the whole pipeline (dvc repro) on the profile in params.yaml.
	dvc repro

plots: setup ## Render the DVC plots into dvc_plots/index.html (works offline).
	dvc plots show

# Test processes (pytest-xdist), each taking whole files: a file's tests share fixtures and the
# repository's DVC lock. 2 (the default) on two cores; 0: one process. A browser test's hung page
# was once let go only after it answered, at 60 s, with two (benchmarks/results/releases.md,
# "Tests"); the arena's watchdog now ends such a browser at its deadline (envs/arena/watchdog.py).
TEST_WORKERS ?= 2

test: setup ## Run the test suite (TEST_WORKERS processes, default 2; 0: one).
	pytest -n $(TEST_WORKERS) --dist loadfile

lint: $(STAMP) ## ruff check + format check (notebooks included) + the import layers.
	ruff check .
	ruff format --check .
	lint-imports

format: $(STAMP) ## Apply ruff fixes and formatting.
	ruff check --fix .
	ruff format .

lab: setup ## Serve the notebooks with JupyterLab on 127.0.0.1.
	jupyter lab --no-browser --ip=127.0.0.1 --ServerApp.root_dir=$(CURDIR) $(if $(filter 0,$(shell id -u)),--allow-root)

clean-env: ## Remove the .venv environment.
	rm -rf $(VENV)
