# Two entry points for a fresh machine: `make demo` runs the site with demo data, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NAF_DATA ?= ../shared/data/naf
HOST ?= 127.0.0.1:8000

.PHONY: install demo test migrate chromium

# Browser tests drive Debian's Chromium; install it when it is missing (root, or sudo).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py import_fumbbl $(NAF_DATA)/fumbbl_matches.csv
	$(PY) manage.py seed_demo
	$(PY) manage.py recalculate
	$(PY) manage.py refresh_stats
	$(PY) manage.py runserver $(HOST)

chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

test: install chromium
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest
