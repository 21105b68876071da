# "From n-grams to BERT": the two commands of the README.
#   make lab    create .venv, install the course, build the student notebooks if needed, open JupyterLab on notebooks/
#   make test   create .venv, install the course with its cluster extra (Dask), run every test
#   make lecture NB=04   a lecture as live slides (RISE); make lecture-deck NB=04: its static HTML deck
#   make test-fast   the developer's lane: no grading pipeline, no browser, nothing marked slow
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
CLUSTER_STAMP := $(VENV)/.installed-cluster-$(shell cksum pyproject.toml | cut -d' ' -f1)
LAB_ARGS ?=
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab lecture lecture-deck test test-fast install notebooks benchmark

install: $(STAMP)

# $(call install_course,EXTRAS): the virtual environment, the course in it (editable) and the students' Lab settings.
# pip writes no bytecode; compileall writes it afterwards on every core (pip does it one file at a time) and,
# like pip, passes over the few files that are not Python 3.11 (torch ships one for 3.12).
define install_course
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The course needs Python 3.11; run make with PYTHON=/path/to/python3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.$(1)'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp lab/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	mkdir -p $(VENV)/etc/jupyter/labconfig
	cp lab/page_config.json $(VENV)/etc/jupyter/labconfig/page_config.json
endef

$(STAMP): pyproject.toml
	$(call install_course,)
	rm -f $(VENV)/.installed-* && touch $@

# the developer's lanes also lint (ruff, the dev extra; its rules are pyproject.toml's [tool.ruff])
DEV_STAMP := $(VENV)/.installed-dev-$(shell cksum pyproject.toml | cut -d' ' -f1)
$(DEV_STAMP): pyproject.toml
	$(call install_course,[dev])
	rm -f $(VENV)/.installed-* && touch $(STAMP) $@

notebooks: $(STAMP)
	@test -n "$$(ls notebooks/*.ipynb 2>/dev/null)" || PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m autograder build

lab: notebooks
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

# the lecturer's: a lecture as live slides (RISE, offline) in the same Lab, e.g. make lecture NB=04;
# make lecture-deck NB=04 runs it and writes its static deck, lectures/html/04_lstm.slides.html (no kernel, no network)
NB ?= 01
# lectures/labextensions: lets ipywidgets draw on the slideshow page (see its remoteEntry.js)
RISE_WIDGETS = --LabApp.extra_labextensions_path=$(CURDIR)/lectures/labextensions \
	--RiseApp.extra_labextensions_path=$(CURDIR)/lectures/labextensions
LECTURE = $(notdir $(firstword $(wildcard lectures/$(NB)*.ipynb)))

lecture: $(STAMP)
	@test -n "$(LECTURE)" || { echo "no lecture matches lectures/$(NB)*.ipynb (run: python -m autograder build)"; exit 1; }
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/jupyter lab --notebook-dir=lectures \
		--LabApp.default_url=/rise/$(LECTURE) $(RISE_WIDGETS) $(ROOT_FLAG) $(LAB_ARGS)

lecture-deck: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/python -m autograder lecture-deck $(NB)

# the tests grade on a real Dask scheduler and workers (tests/grading/test_cluster.py): the cluster extra,
# installed with the rest (and the dev extra's linter) in one pip run
TEST_EXTRAS := [cluster,dev]
$(CLUSTER_STAMP): pyproject.toml
	$(call install_course,$(TEST_EXTRAS))
	rm -f $(VENV)/.installed-* && touch $(STAMP) $(DEV_STAMP) $@

# the suite runs on every core (pytest-xdist; a test file's functions, or a test class, stay on one worker:
# tests/conftest.py),
# then the browser tests alone
PYTEST_PARALLEL ?= -n auto --dist loadscope

test: $(CLUSTER_STAMP)
	$(BIN)/ruff check .
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not serial" --durations=25
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -m serial

# a developer's lane: the references, the checks and the notebooks' sources, without the grading
# pipeline, the browser and the tests marked slow (a few minutes on 2 cores)
test-fast: $(DEV_STAMP)
	$(BIN)/ruff check .
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not slow and not pipeline" tests/models tests/checks tests/notebooks

benchmark: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/measured_table.py --write
