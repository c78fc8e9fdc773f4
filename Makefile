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
COLLECTION_LINK := .ansible/collections/ansible_collections/aifabric/fabric
# ansible-test wants the collection at .../ansible_collections/aifabric/fabric, outside this git tree.
TEST_ROOT ?= /tmp/aifabric-ansible-test
COLLECTION_COPY := $(TEST_ROOT)/ansible_collections/aifabric/fabric
ANSIBLE_TEST := cd $(COLLECTION_COPY) && ansible-test
PYTHON_VERSION := 3.11
SCENARIOS ?= render clab_fabric clab_faults hosts_lab
# `make sanity` and `make units` also run with these ansible-core releases (the venv's own is pinned in
# constraints.txt): together they are the range meta/runtime.yml declares. Python 3.11 runs 2.17 to 2.19.
# Each release gets a small venv with only ansible-core; ansible-test builds its test venvs from it.
CORE_MATRIX ?= 2.17.14 2.18.19
CORE_VENVS := $(foreach version,$(CORE_MATRIX),$(VENV)/cores/$(version)/.installed)
# ansible-test of each release bootstraps pip in its venvs with get-pip <version> (see setup-python).
GET_PIP_CACHE := $(HOME)/.ansible/test/cache
GET_PIP_SCRIPTS := $(GET_PIP_CACHE)/get_pip_24_2.py $(GET_PIP_CACHE)/get_pip_23_1_2.py

.PHONY: help setup setup-host setup-python demo render lab-up lab-down test unit role-tests lint sanity units \
        build packaging ee-context molecule collection-copy clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s "$$(printf '\t')"

setup: setup-host setup-python  ## install everything: apt packages, Docker engine, containerlab, Python tools

setup-host:
	scripts/setup-host.sh

setup-python: $(VENV)/.installed $(COLLECTION_LINK) $(GET_PIP_SCRIPTS)

# requirements*.txt hold ranges; the pins of this project's CI come from constraints.txt, here only.
$(VENV)/.installed: constraints.txt requirements.txt test-requirements.txt
	python3 -m venv $(VENV)
	PIP_CONSTRAINT=constraints.txt $(BIN)/pip install -q -r test-requirements.txt
	touch $@

$(VENV)/cores/%/.installed: constraints.txt
	python3 -m venv $(VENV)/cores/$*
	grep -v '^ansible-core==' constraints.txt > $(VENV)/cores/$*/constraints.txt
	PIP_CONSTRAINT=$(VENV)/cores/$*/constraints.txt $(VENV)/cores/$*/bin/pip install -q ansible-core==$*
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

test: setup unit role-tests lint sanity units build packaging molecule  ## every test: the full CI run

unit: setup-python  ## fast unit tests with plain pytest (ansible-test units runs tests/unit in CI), device doubles, deploy
	pytest -q -p no:cacheprovider tests/unit tests/doubles tests/deploy tests/lab

role-tests: setup-python  ## roles run for real against a fake sysfs/proc tree and stub tools
	pytest -q -p no:cacheprovider tests/roles

lint: setup-python  ## ansible-lint, production profile
	ansible-lint

collection-copy:
	mkdir -p $(COLLECTION_COPY)
	rsync -a --delete --delete-excluded --exclude .git --exclude .venv --exclude .ansible --exclude out --exclude /build \
	  --exclude tests/output --exclude __pycache__ --exclude .pytest_cache --exclude .hypothesis --exclude benchmarks/results \
	  ./ $(COLLECTION_COPY)/

sanity: setup-python collection-copy $(CORE_VENVS)  ## ansible-test sanity, on every ansible-core release supported
	$(ANSIBLE_TEST) sanity --venv --python $(PYTHON_VERSION)
	for version in $(CORE_MATRIX); do \
	  echo "== ansible-test sanity, ansible-core $$version"; \
	  (cd $(COLLECTION_COPY) && $(CURDIR)/$(VENV)/cores/$$version/bin/ansible-test sanity --venv --python $(PYTHON_VERSION)) \
	    || exit 1; \
	done

units: setup-python collection-copy $(CORE_VENVS)  ## ansible-test units, on every ansible-core release supported
	$(ANSIBLE_TEST) units --venv --python $(PYTHON_VERSION) --requirements
	for version in $(CORE_MATRIX); do \
	  echo "== ansible-test units, ansible-core $$version"; \
	  (cd $(COLLECTION_COPY) && $(CURDIR)/$(VENV)/cores/$$version/bin/ansible-test units --venv --python $(PYTHON_VERSION) \
	    --requirements) || exit 1; \
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

molecule: setup  ## molecule scenarios: render-only, containerlab fabric, fault injection, GPU hosts
	for scenario in $(SCENARIOS); do molecule test -s $$scenario || exit 1; done

clean:  ## remove generated files (not a running lab's work directory build/labs: see lab-down)
	rm -rf out build/dist build/collections build/ee build/ee-collection $(TEST_ROOT) tests/output
