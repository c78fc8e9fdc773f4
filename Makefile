# Two entry points for people (README): `make demo` and `make test`. Both install what they need.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV ?= .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PY_COLORS := 0
export ANSIBLE_NOCOLOR := 1
# Python keeps compiled bytecode (its default; __pycache__ is git- and build-ignored): an environment that turns it
# off makes pytest rewrite every test module's asserts again in each worker and every ansible-playbook the tests
# start compile the collection again.
unexport PYTHONDONTWRITEBYTECODE
COLLECTION_LINK := .ansible/collections/ansible_collections/aifabric/fabric
# ansible-test wants the collection at .../ansible_collections/aifabric/fabric, outside this git tree: a directory
# of this clone's own (named by a hash of its path), so that two clones on one machine never overwrite each other.
# sanity and units each get a copy (ansible-test keeps its work files in the copy), so they can run at the same time.
TEST_ROOT ?= $(or $(TMPDIR),/tmp)/aifabric-ansible-test-$(shell printf '%s' '$(CURDIR)' | sha256sum | cut -c1-12)
SANITY_COPY := $(TEST_ROOT)/sanity/ansible_collections/aifabric/fabric
UNITS_COPY := $(TEST_ROOT)/units/ansible_collections/aifabric/fabric
# The copy's tests/output is ansible-test's own (its results and its delegation venv, reused by the next run): kept.
copy_collection = mkdir -p $(1) && rsync -a --delete --delete-excluded --filter 'protect /tests/output/' \
  --exclude .git --exclude .venv --exclude .ansible \
  --exclude out --exclude /build --exclude tests/output --exclude __pycache__ --exclude .pytest_cache --exclude .hypothesis \
  --exclude benchmarks/results ./ $(1)/
# The venv's Python and ansible-core (constraints.txt pins the release): the newest line, 2.21, runs on Python 3.12
# to 3.14. scripts/find-python.sh finds an interpreter of that version (on PATH, pyenv's or uv's); `make setup-host`
# installs one with uv where the machine has none (Debian 12 ships 3.11).
PYTHON_VERSION ?= 3.12
# pytest workers (pytest-xdist): `unit` is CPU-bound (one per CPU); `integration` waits on playbooks, device doubles'
# confirm timers and SSH, so it runs more workers than CPUs. Each test file stays on one worker (--dist loadfile):
# the tests of a file share its fleet of doubles and some run in order.
UNIT_WORKERS ?= auto
INTEGRATION_WORKERS ?= 4
# Integration tests: everything that starts ansible-playbook (tests/conftest.py marks them), the device doubles, the
# deploy drivers and playbooks against them, containerlab, the host roles. xdist hands out the files in collection
# order (--no-loadscope-reorder; its default hands out the files with the most tests first, which started the
# 23-minute chain of test_switches_playbook.py last, alone on one worker): the modules marked long_module first
# (tests/conftest.py), then these directories, the slower first (tests/lab holds the clab_faults judge's test, a
# minute of waiting out the round's retries).
INTEGRATION_PATHS := tests/deploy tests/lab tests/doubles tests/unit tests/roles
INTEGRATION_ORDER := --dist loadfile --no-loadscope-reorder
# Lab scenarios share one lab (the default scenario's create and destroy). clab_fabric first: it converges the lab
# (switches and host roles), twice, and validates it; hosts_lab and clab_faults then skip their own converge.
LAB_SCENARIOS ?= clab_fabric hosts_lab clab_faults
# `make molecule LAB_LOCK=/path` holds that flock(1) lock while a lab exists (machines shared by several people).
LAB_LOCK ?=
# `make sanity` and `make units` also run with these ansible-core releases, each on its own Python (RELEASE@PYTHON):
# with the venv's own (constraints.txt) they are the range meta/runtime.yml declares. 2.19 is the last line that
# runs on Python 3.11 (Debian 12's, RHEL 9's default); 2.20 runs on 3.12 to 3.14 and is tested on 3.13, so the three
# supported lines cover three Pythons. Each release gets a small venv with only ansible-core; ansible-test builds its
# test venvs from it (its --python is that venv's interpreter, found on PATH in the venv's bin).
CORE_MATRIX ?= 2.19.14@3.11 2.20.10@3.13
core_release = $(firstword $(subst @, ,$(1)))
core_python = $(lastword $(subst @, ,$(1)))
CORE_VENVS := $(foreach core,$(CORE_MATRIX),$(VENV)/cores/$(call core_release,$(core))/.installed)
# The Pythons setup-host makes sure of (uv installs a missing one)
PYTHONS_NEEDED := $(sort $(PYTHON_VERSION) $(foreach core,$(CORE_MATRIX),$(call core_python,$(core))))
# On the older releases, the sanity tests whose verdict depends on the release: those that load the collection
# with that release's code (import, ansible-doc, validate-modules, action-plugin-docs) or read a file in that
# release's format (runtime-metadata: meta/runtime.yml; ignores: tests/sanity/ignore-<release>.txt). The others
# (pylint, pep8, yamllint, shellcheck, compile, text rules) check the files alone and run once, on the newest.
SANITY_CORE_TESTS := action-plugin-docs ansible-doc ignores import runtime-metadata validate-modules
# On the older releases through ansible-test (its collection loader), the tests of the plugins that call ansible-core
# APIs: inventory (with its error path on hostile intents through ansible-inventory), action, filter and lookup plugins,
# modules (argument handling, check mode). The playbooks (tests/unit/playbooks) and everything else run once, on the
# newest release, with pytest (`make unit integration`); sanity's import test runs each release's loader. So does the
# invalid-intent corpus, whose 202 cases test the intent's validation (this collection's code), not the release.
# (Directories end in '/': ansible-test takes a pattern without it for a file.)
CORE_UNIT_TESTS := tests/unit/plugins/inventory/ tests/unit/plugins/action/ tests/unit/plugins/filter/ \
  tests/unit/plugins/lookup/ tests/unit/plugins/modules/
# ... but not the render killed with SIGKILL and the renders racing for one directory (the 1,024-GPU pod rendered six
# times, 10 CPU-s a release): they test the staged output writer and its lock, this collection's code; the render
# playbook's own test (test_render.py) runs the render action through each release's ansible-playbook, and Ctrl-C
# during a render (test_render_ctrl_c.py: the message is the release's) runs on each too.
CORE_UNIT_EXCLUDE := tests/unit/plugins/action/test_render_interrupted.py
# ansible-test of each release bootstraps pip in its venvs with get-pip <version> (see setup-python).
GET_PIP_CACHE := $(HOME)/.ansible/test/cache
# The pip release each ansible-test bootstraps (ansible_test/_internal/python_requirements.py, get_venv_packages):
# 2.19: 24.2; 2.20 and 2.21: 25.2.
GET_PIP_SCRIPTS := $(GET_PIP_CACHE)/get_pip_24_2.py $(GET_PIP_CACHE)/get_pip_25_2.py
# What `make test` runs: STAGE[:the stages it waits for], in order of priority (the longest first);
# scripts/run-stages.py runs up to STAGE_JOBS at once, each prints its wall time and a table of them closes the run.
STAGES ?= setup-host setup-python:setup-host setup-cores:setup-host molecule-lab:setup-python integration:setup-python \
  sanity:setup-python+setup-cores units:setup-python+setup-cores unit:setup-python lint:setup-python \
  packaging:setup-python molecule-render:setup-python build:setup-python
STAGE_JOBS ?= 4
# The lab's stage is the critical path and mostly waits (containers, BGP timers, settling): it keeps normal priority,
# the others run under nice in a low-weight cpu cgroup and take the CPU it leaves (a starved lab converges and
# settles slower, not less).
FAVOURED_STAGES ?= molecule-lab

.PHONY: help setup setup-host setup-python setup-cores demo render lab-up lab-down lab-faults test test-exhaustive unit integration role-tests lint sanity \
        units build packaging ee-context molecule molecule-render molecule-lab clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s "$$(printf '\t')"

setup: setup-host setup-python  ## install everything: apt packages, Docker engine, containerlab, Python tools

setup-host:
	PYTHONS='$(PYTHONS_NEEDED)' scripts/setup-host.sh

setup-python: $(VENV)/.installed-python$(PYTHON_VERSION) $(COLLECTION_LINK) $(GET_PIP_SCRIPTS)

setup-cores: $(CORE_VENVS)  ## the venvs of the older ansible-core releases (make sanity, make units)

# requirements*.txt hold ranges; the pins of this project's CI come from constraints.txt, here only. --no-compile:
# Python compiles a module when something first imports it (about 1,500 files), not every file installed (47,000).
# It is the first step of every run, and every other stage waits for it.
# mkdir first: setup-cores makes $(VENV)/cores/... at the same time, and venv fails when its directory appears
# between its own check and its mkdir.
# A venv of another Python (an earlier PYTHON_VERSION) is replaced, its cores kept.
$(VENV)/.installed-python$(PYTHON_VERSION): constraints.txt requirements.txt test-requirements.txt
	mkdir -p $(VENV)
	@python=$$(scripts/find-python.sh $(PYTHON_VERSION)) || exit 1; \
	  grep -qs '^version = $(subst .,\.,$(PYTHON_VERSION))\.' $(VENV)/pyvenv.cfg || \
	    rm -rf $(VENV)/bin $(VENV)/lib $(VENV)/lib64 $(VENV)/include $(VENV)/pyvenv.cfg $(VENV)/.installed*; \
	  echo "$$python -m venv $(VENV)"; "$$python" -m venv $(VENV)
	PIP_CONSTRAINT=constraints.txt scripts/with-progress.sh "pip: the collection's and the tests' Python packages into $(VENV) \
	  (about a minute)" $(BIN)/pip install -q --no-compile -r test-requirements.txt
	touch $@

$(VENV)/cores/%/.installed: constraints.txt
	@python=$$(scripts/find-python.sh $(call core_python,$(filter $*@%,$(CORE_MATRIX)))) || exit 1; \
	  echo "$$python -m venv $(VENV)/cores/$*"; "$$python" -m venv $(VENV)/cores/$*
	grep -v '^ansible-core==' constraints.txt > $(VENV)/cores/$*/constraints.txt
	PIP_CONSTRAINT=$(VENV)/cores/$*/constraints.txt scripts/with-progress.sh "pip: ansible-core $* into $(VENV)/cores/$*" \
	  $(VENV)/cores/$*/bin/pip install -q ansible-core==$*
	touch $@

$(COLLECTION_LINK):
	mkdir -p $(dir $@)
	ln -sfn $(CURDIR) $@

# ansible-test bootstraps pip in its virtual environments with a script it downloads from a host these
# machines cannot reach; it uses a cached copy first (see scripts/ansible-test-pip-bootstrap.py).
$(GET_PIP_CACHE)/get_pip_%.py: scripts/ansible-test-pip-bootstrap.py
	mkdir -p $(dir $@)
	cp $< $@

demo: setup  ## build the lab fabric from inventories/lab, configure it, prove it, print where the report is
	ansible-playbook playbooks/render.yml
	ansible-playbook playbooks/lab_up.yml
	ansible-playbook playbooks/site.yml
	ansible-playbook playbooks/validate.yml

render: setup-python  ## render every configuration and the fabric docs of the lab intent into out/lab
	ansible-playbook playbooks/render.yml

lab-up: setup  ## start the containerlab lab of inventories/lab
	ansible-playbook playbooks/lab_up.yml

lab-down: setup-python  ## remove the lab
	ansible-playbook playbooks/lab_down.yml

test:  ## every test: the full CI run (setup, then stages in parallel, each with its wall time; docs/testing.md)
	python3 scripts/run-stages.py --jobs $(STAGE_JOBS) $(addprefix --favour ,$(filter $(FAVOURED_STAGES),$(foreach stage,$(STAGES),$(firstword $(subst :, ,$(stage)))))) $(STAGES)

unit: setup-python  ## unit tests: plain pytest, in-process only (no ansible-playbook, doubles or lab), on every CPU
	pytest -q -n $(UNIT_WORKERS) --dist loadfile -m 'not integration' tests/unit

integration: setup  ## ansible-playbook runs, device doubles, deploy, host roles, containerlab validate (pytest)
	pytest -q -n $(INTEGRATION_WORKERS) $(INTEGRATION_ORDER) --durations=25 -m integration $(INTEGRATION_PATHS)

# The generated sweeps that `make test` samples (tests/unit/utils/sampling.py: a seeded share of every stratum, the
# seed printed), whole: every single-field mutation of the doubles' rendered configurations, every rendered switch of
# every golden fabric shape and switch model through the doubles' rules. Run less often than `make test` (nightly,
# before a release, after changing a double's rules): the two sweeps whole take about 24 CPU-s, 13 more than their
# samples (docs/testing.md).
EXHAUSTIVE_TESTS := tests/doubles/test_mutation.py tests/doubles/test_corpus.py
test-exhaustive: setup-python  ## the generated sweeps `make test` samples, every case (run less often: docs/testing.md)
	AIFABRIC_EXHAUSTIVE=1 pytest -q -n $(INTEGRATION_WORKERS) --dist load $(EXHAUSTIVE_TESTS)

role-tests: setup-python  ## roles run for real against a fake sysfs/proc tree and stub tools (part of integration)
	pytest -q -n $(INTEGRATION_WORKERS) $(INTEGRATION_ORDER) tests/roles

lint: setup-python  ## ansible-lint (production profile), the changelog fragments (antsibull-changelog lint), mypy (mypy.ini)
	ansible-lint
	antsibull-changelog lint
	mypy --config-file mypy.ini

sanity: setup-python $(CORE_VENVS)  ## ansible-test sanity: all of it on the newest ansible-core, per release what differs
	$(call copy_collection,$(SANITY_COPY))
	cd $(SANITY_COPY) && ansible-test sanity --venv --python $(PYTHON_VERSION)
	for core in $(CORE_MATRIX); do \
	  version=$${core%@*} python=$${core#*@}; bin=$(CURDIR)/$(VENV)/cores/$$version/bin; \
	  echo "== ansible-test sanity, ansible-core $$version on Python $$python: $(SANITY_CORE_TESTS)"; \
	  (cd $(SANITY_COPY) && PATH=$$bin:$$PATH $$bin/ansible-test sanity --venv --python $$python \
	    $(addprefix --test ,$(SANITY_CORE_TESTS))) || exit 1; \
	done

units: setup-python $(CORE_VENVS)  ## ansible-test units of the code that calls ansible-core, on the older releases supported
	$(call copy_collection,$(UNITS_COPY))
	for core in $(CORE_MATRIX); do \
	  version=$${core%@*} python=$${core#*@}; bin=$(CURDIR)/$(VENV)/cores/$$version/bin; \
	  echo "== ansible-test units, ansible-core $$version on Python $$python: $(CORE_UNIT_TESTS) (not $(CORE_UNIT_EXCLUDE))"; \
	  (cd $(UNITS_COPY) && PATH=$$bin:$$PATH $$bin/ansible-test units --venv --python $$python --requirements \
	      $(addprefix --exclude ,$(CORE_UNIT_EXCLUDE)) $(CORE_UNIT_TESTS)) \
	    || exit 1; \
	done

build: setup-python  ## build the collection tarball, install it elsewhere, render every plugin's docs
	rm -rf build/dist build/collections && mkdir -p build/dist build/collections
	ansible-galaxy collection build --force --output-path build/dist .
	ansible-galaxy collection install --force -p build/collections build/dist/aifabric-fabric-*.tar.gz
	scripts/check-plugin-docs.sh build/collections

# execution-environment.yml installs the collection from build/ee-collection/aifabric-fabric.tar.gz (a stable name).
ee-context: setup-python  ## execution environment build context in build/ee (ansible-builder create; offline)
	rm -rf build/ee build/ee-collection && mkdir -p build/ee-collection
	ansible-galaxy collection build --force --output-path build/ee-collection .
	mv build/ee-collection/aifabric-fabric-*.tar.gz build/ee-collection/aifabric-fabric.tar.gz
	ansible-builder create --file execution-environment.yml --context build/ee

packaging: setup-python  ## the Galaxy tarball, the execution environment build context, AWX jobs through ansible-runner
	pytest -q -p no:cacheprovider tests/packaging

molecule: molecule-render molecule-lab  ## molecule scenarios: render-only, then GPU hosts, containerlab fabric, fault injection on one lab

molecule-render: setup-python  ## the render-only molecule scenario (no lab)
	molecule test -s render

# molecule keeps the shared state of the lab scenarios under ~/.ansible/tmp, named after this directory's name (two
# clones of one name share it, and a run cut short leaves its state to the next), and records there the modification
# time of the first scenario's molecule.yml, then warns "modified since the scenario was created" for every scenario
# whose file has another time. Each run gets a fresh state of this clone's own, and the scenarios' files one time.
# (The default scenario's create takes down a lab left by an earlier run before it brings the lab up.)
MOLECULE_LAB_STATE := $(CURDIR)/build/molecule-lab
molecule-lab: setup  ## the lab's molecule scenarios on one lab: GPU hosts, containerlab fabric, fault injection
	rm -rf $(MOLECULE_LAB_STATE) && mkdir -p $(MOLECULE_LAB_STATE)
	touch -r extensions/molecule/default/molecule.yml $(foreach scenario,$(LAB_SCENARIOS),extensions/molecule/$(scenario)/molecule.yml)
	$(if $(LAB_LOCK),flock $(LAB_LOCK)) env MOLECULE_EPHEMERAL_DIRECTORY=$(MOLECULE_LAB_STATE) \
	  molecule test --shared-state $(addprefix -s ,$(LAB_SCENARIOS))

# A fault campaign on the live lab, longer than clab_faults in CI: drawn faults in rounds, each judged and compared with
# the simulated fabric (benchmarks/lab_faults.py; needs make lab-up and playbooks/site.yml). FAULTS_SEED replays one.
FAULTS_ROUNDS ?= 6
FAULTS_PER_ROUND ?= 3
FAULTS_SEED ?=
lab-faults: setup-python  ## a campaign of generated faults on the running lab (not in CI): seed, figures, lab vs simulation
	python benchmarks/lab_faults.py --rounds $(FAULTS_ROUNDS) --per-round $(FAULTS_PER_ROUND) $(if $(FAULTS_SEED),--seed $(FAULTS_SEED))

clean:  ## remove generated files (not a running lab's work directory build/labs: see lab-down)
	rm -rf out build/dist build/collections build/ee build/ee-collection $(MOLECULE_LAB_STATE) $(TEST_ROOT) tests/output
