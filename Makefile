# Two entry points for a fresh machine: `make demo` runs the site with demo data, `make test` runs the tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NAF_DATA ?= ../shared/data/naf
HOST ?= 127.0.0.1:8000
# manage.py alone takes the safe base settings (no debug pages, no key); make's commands run a
# developer's site: debug pages and the development key. The tests take their own (as pytest.ini says).
DJANGO_SETTINGS_MODULE ?= ratingsite.settings.local
MANAGE = DJANGO_SETTINGS_MODULE=$(DJANGO_SETTINGS_MODULE) $(PY) manage.py

# Installs come from the hashed locks only: requirements.txt (production), requirements-test.txt
# (tests and checks), requirements-bench.txt (benchmarks). Each is compiled from its .in by `make lock`.
PIP_INSTALL := $(VENV)/bin/pip install --quiet --require-hashes

# The lock tool, pinned; `make lock LOCK_FLAGS=--upgrade` also moves the indirect dependencies
# (`--upgrade-package NAME` for one), otherwise the pins in the locks are kept where they still fit.
UV_VERSION := 0.13.9
LOCK_FLAGS ?=
COMPILE = $(VENV)/bin/uv pip compile --quiet --universal --generate-hashes --python-version 3.11 $(LOCK_FLAGS)

.PHONY: install install-prod bench-install lock demo serve test test-engines test-bounds migrate chromium gettext messages mutants

# Browser tests drive Debian's Chromium; install it when it is missing (root, or sudo).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Production set (what `make demo` needs).
$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(PIP_INSTALL) -r requirements.txt
# NAF Elo's compiled kernels into numba's cache (__pycache__), so no run waits for their compile
	$(PY) -m rating_engines.naf_elo.compiled
# and Glicko's (rating_engines/glicko/compiled.py)
	$(PY) -m rating_engines.glicko.compiled
# and KNSB's (rating_engines/knsb/compiled.py)
	$(PY) -m rating_engines.knsb.compiled
	touch $@

# Production + test set (what `make test` needs); the test lock is constrained by the production lock.
$(VENV)/.installed-test: $(VENV)/.installed requirements-test.txt
	$(PIP_INSTALL) -r requirements.txt -r requirements-test.txt
	touch $@

# Production + benchmark set (bench/engines.py's PyPI glicko2 comparison).
$(VENV)/.installed-bench: $(VENV)/.installed requirements-bench.txt
	$(PIP_INSTALL) -r requirements.txt -r requirements-bench.txt
	touch $@

# A developer's venv: production + test (what `make test` needs).
install: $(VENV)/.installed-test

# Production only (what `make demo` needs).
install-prod: $(VENV)/.installed

bench-install: $(VENV)/.installed-bench

# Recompile the three locks from requirements*.in (needs PyPI); the production lock first, as it
# constrains the other two.
lock:
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet uv==$(UV_VERSION)
	$(COMPILE) requirements.in -o requirements.txt
	$(COMPILE) requirements-test.in -o requirements-test.txt
	$(COMPILE) requirements-bench.in -o requirements-bench.txt

migrate: install-prod
	$(MANAGE) migrate --noinput

demo: migrate
	$(MANAGE) import_fumbbl $(NAF_DATA)/fumbbl_matches.csv
	$(MANAGE) seed_demo
	$(MANAGE) recalculate
	$(MANAGE) seed_demo --report-late
	$(MANAGE) recalculate
	$(MANAGE) refresh_stats
	$(MANAGE) demo_logins
	$(MANAGE) runserver $(HOST)

# The site again, as `make demo` left it: nothing imported or recomputed.
serve: migrate
	$(MANAGE) runserver $(HOST)

chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# GNU gettext: makemessages and compilemessages, and the test that the Dutch catalogue holds every
# marked string (tests/test_translations.py). The site itself reads the committed .mo and needs none.
gettext:
	@command -v xgettext >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gettext >/dev/null; }

# The Dutch catalogue after a string was added or changed: locale/nl/LC_MESSAGES/django.po gains the
# new strings (translate them, and remove any "fuzzy" mark), then `make messages` again compiles
# the django.mo the site loads. Commit both.
MESSAGES_IGNORE := -i .venv -i tests -i bench -i tools -i staticfiles -i static
messages: install gettext
	$(MANAGE) makemessages -l nl --no-obsolete --no-wrap $(MESSAGES_IGNORE)
	$(MANAGE) compilemessages -l nl $(MESSAGES_IGNORE)

# The tests run in PYTEST_WORKERS processes (pytest-xdist): 2, for a 2-core machine such as CI's, where
# the tests' waits on servers and subprocesses leave a core free often enough; `auto` takes one a core,
# 0 runs them in this one process. Each worker has a test database of its own (test_<name>_gw0, ...)
# and, with CELERY_BROKER_URL, the Redis database N after its own for worker gwN (ratingsite.settings.test).
# Tests marked xdist_group(name) run one after another on one worker (--dist loadgroup).
PYTEST_WORKERS ?= 2
# More pytest arguments: CI's SQLite pass gives -m "not backend_neutral" (pytest.ini's markers).
PYTEST_ARGS ?=

# The checks first (lint, types of the engines and services, the import contracts of .importlinter, migrations), then the tests.
test: install chromium gettext
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(MANAGE) makemigrations --check --dry-run
	$(PY) -m pytest --ds=ratingsite.settings.test -n $(PYTEST_WORKERS) --dist loadgroup --durations=30 $(PYTEST_ARGS)

# The engines' own tests as plain Python: no Django plugin, no settings, no database (the
# conftest above tests/engines is the site's). `make test` runs them with the rest too.
ENGINES_PYTEST = $(PY) -m pytest -p no:django --confcutdir=tests/engines -W ignore::pytest.PytestConfigWarning
test-engines: install
	$(ENGINES_PYTEST) tests/engines

# The compiled engines' tests with numba's bounds checks on (an index past an array raises instead of
# reading or writing beside it), in a cache of their own: the kernels compile anew, a few minutes.
test-bounds: install
	NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(CURDIR)/.numba-bounds $(ENGINES_PYTEST) tests/engines/test_*_compiled.py

# Mutation testing of the engines (tools/mutants.py): a seeded sample of one-change mutants, each of
# which some test of tests/engines must fail; prints the survivors and the score. About 10 minutes.
MUTANTS_SEED ?= 32
MUTANTS_SAMPLE ?= 40
mutants: install
	$(PY) tools/mutants.py --seed $(MUTANTS_SEED) --sample $(MUTANTS_SAMPLE)
