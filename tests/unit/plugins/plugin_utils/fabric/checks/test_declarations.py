# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks are declared units: each says what it is about, what it takes from the design, what it reads, how a failure
reads, with an example; docs/validation.md's per-check tables are generated from those declarations; the base owns
the not-applicable and error branches."""

import ast
import os
import subprocess
import sys

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import docgen
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

from tests.unit.plugins.plugin_utils.fabric.state.captures import INTENT, REPO, scenario_states

CHECKS_DIR = os.path.join(REPO, 'plugins', 'plugin_utils', 'fabric', 'checks')
DOC = os.path.join(REPO, 'docs', 'validation.md')


def test_every_check_declares_what_the_documentation_needs():
    for check in checks.REGISTRY.values():
        for field in ('title', 'per', 'inputs', 'description', 'failure', 'example'):
            assert getattr(check, field), '%s declares no %s' % (check.id, field)
        assert check.category in docgen.CATEGORIES and check.roles
        assert check.example.split(' [', 1)[0].split(' ')[1] == check.id, check.example


def test_the_per_check_tables_of_the_validation_doc_are_generated_from_the_declarations():
    with open(DOC, encoding='utf-8') as handle:
        current = handle.read()
    assert current == docgen.update(current), ('docs/validation.md is out of date with the check declarations: run '
                                               'python scripts/gen-check-doc.py')
    for check in checks.REGISTRY.values():
        assert '| `%s` | %s' % (check.id, docgen._cell(check.per)) in current  # pylint: disable=protected-access


def test_the_script_finds_a_stale_table(tmp_path):
    script = os.path.join(REPO, 'scripts', 'gen-check-doc.py')
    with open(DOC, encoding='utf-8') as handle:
        stale = handle.read().replace('| `bgp_session` |', '| `bgp_sessions` |', 1)
    doc = tmp_path / 'validation.md'
    doc.write_text(stale, encoding='utf-8')
    result = subprocess.run([sys.executable, script, '--check', '--doc', str(doc)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 1 and 'out of date' in result.stdout
    assert subprocess.run([sys.executable, script, '--doc', str(doc)], check=False).returncode == 0
    assert doc.read_text(encoding='utf-8') == docgen.update(stale) and '| `bgp_sessions` |' not in doc.read_text()


def test_checks_do_not_import_each_others_private_names():
    for name in os.listdir(CHECKS_DIR):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(CHECKS_DIR, name), encoding='utf-8') as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                private = [alias.name for alias in node.names if alias.name.startswith('_')]
                assert not private, '%s imports %s from .%s' % (name, private, node.module)


def test_results_are_built_by_the_base_only():
    """One place builds Results: the checks return outcomes, the base turns them into results."""
    for name in os.listdir(CHECKS_DIR):
        if name.endswith('.py') and name != 'base.py':
            with open(os.path.join(CHECKS_DIR, name), encoding='utf-8') as handle:
                assert 'Result(' not in handle.read(), name


def test_unreadable_state_is_an_error_a_platform_gap_is_not_applicable_once_with_the_reason_said_once():
    design = design_from_file(INTENT)
    states = scenario_states('healthy')
    states['gpu0001']['rnic'] = {'not_applicable': 'not applicable: no RDMA device on this host', 'interfaces': {},
                                 'devices': {}, 'errors': []}
    del states['spine001']['interfaces']
    ctx = checks.Context(design, states, {'lossless_phases': ('deployed',)})
    results = checks.run(ctx, devices=['gpu0001', 'spine001'], check_ids={'host_switch_pfc', 'interface_mtu'})
    host = [item for item in results if item.check == 'host_switch_pfc']
    # the leaf (FRR) gives the reason first; said once, not "not applicable: not applicable: ..."
    assert len(host) == 1 and host[0].status == checks.NOT_APPLICABLE and host[0].subject == 'all rails'
    assert host[0].message.count('not applicable') == 1 and 'FRR on Linux has no lossless data plane' in host[0].message
    assert 'no lossless data plane) has no lossless data plane' not in host[0].message
    errors = [item for item in results if item.check == 'interface_mtu' and item.device == 'spine001']
    assert errors and {item.status for item in errors} == {checks.ERROR} and all(item.seen == 'not gathered' for item in errors)
    # a result about a cabled port names its link by the lower end (the leaf uplink)
    links = {'%s %s' % (item['peer'], item['peer_interface']) for item in design.device('spine001')['interfaces']}
    assert {item.link for item in errors} == links
    assert checks.not_applicable_text('not applicable: not applicable: no RDMA device') == 'not applicable: no RDMA device'
