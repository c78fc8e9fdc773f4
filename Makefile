# Two entry points for people: `make demo` (set up + run the lab fabric end to end) and `make test`.
SHELL := /bin/bash
VENV ?= .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
COLLECTION_LINK := .ansible/collections/ansible_collections/aifabric/fabric

.PHONY: setup setup-host setup-python demo render test unit

setup: setup-host setup-python  ## install everything (system packages, Docker engine, containerlab, Python tools)

setup-host:
	scripts/setup-host.sh

setup-python: $(VENV)/.installed $(COLLECTION_LINK)

$(VENV)/.installed: constraints.txt requirements.txt test-requirements.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r test-requirements.txt
	touch $@

$(COLLECTION_LINK):
	mkdir -p $(dir $@)
	ln -sfn $(CURDIR) $@

render: setup-python  ## render every configuration and the fabric docs of the lab intent into out/lab
	ansible-playbook playbooks/render.yml

unit: setup-python
	pytest -q tests/unit

test: setup unit  ## every test: unit, golden files, sanity, lint, molecule scenarios
