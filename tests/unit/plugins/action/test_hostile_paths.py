# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""No path runs a command, on every ansible-core release `make units` tests.

A project whose directory is named `p{{ lookup('pipe', 'touch templated') }}q` (an SCM project's directory in AWX, a
hostile checkout) holds the inventory, a copy of the collection and the playbooks. Everything the collection's
playbooks, roles and plugins read from a path Ansible gives must stay text: the inventory sources
(`ansible_inventory_sources`, which ansible-core 2.19 trusts as a template because it is the text of `-i`, and which
every host's hostvars carry), `playbook_dir`, `role_path` and `inventory_dir` (templated by ansible-core 2.18 and
earlier). Each place is run for real: the render, validation, performance and lab playbooks, the Kubernetes networks
role, and a plugin that reads another host's variables; the lookup must never run. Also here, because the same
playbooks take them: system directories refused as destinations, and `validate_gather` over `ansible_connection:
local`.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import INVENTORIES, LAB_INTENT, ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

LAB = os.path.join(INVENTORIES, 'lab')
HOSTILE = "p{{ lookup('pipe', 'touch templated') }}q"
SENTINEL = 'templated'  # the lookup runs in the playbook's directory, or the current one: looked for everywhere
# What a copy of the collection needs to run its playbooks and roles.
COLLECTION_PARTS = ('galaxy.yml', 'meta', 'plugins', 'roles', 'playbooks', 'scripts', 'ansible.cfg')


@pytest.fixture
def project(tmp_path):
    """<tmp>/p{{...}}q: inventory/ (the lab inventory, output_dir ../out), fabrics/lab.yml (its intent, outside the
    inventory directory as the repository keeps it), collections/ (a copy of this collection), and a current directory
    elsewhere."""
    root = tmp_path / HOSTILE
    shutil.copytree(LAB, root / 'inventory')
    (root / 'fabrics').mkdir()
    shutil.copy(LAB_INTENT, root / 'fabrics' / 'lab.yml')
    (root / 'inventory' / 'fabric.yml').write_text(
        'plugin: aifabric.fabric.fabric\nintent: ../fabrics/lab.yml\noutput_dir: ../out\n')
    collection = root / 'collections' / 'ansible_collections' / 'aifabric' / 'fabric'
    for part in COLLECTION_PARTS:
        source = os.path.join(ROOT, part)
        if os.path.isdir(source):
            shutil.copytree(source, collection / part, ignore=shutil.ignore_patterns('__pycache__'))
        else:
            collection.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, collection / part)
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    return {'root': root, 'inventory': root / 'inventory', 'intent': root / 'fabrics' / 'lab.yml',
            'collection': collection, 'cwd': elsewhere, 'out': root / 'out' / 'lab', 'tmp': tmp_path}


def _run(project, playbook, *extra, inventory=None, **variables):
    env = ansible_env(ANSIBLE_CONFIG=project['collection'] / 'ansible.cfg',
                      ANSIBLE_COLLECTIONS_PATH=project['root'] / 'collections', **variables)
    return subprocess.run(ansible_cli('playbook') + ['-i', str(inventory or project['inventory']), str(playbook)]
                          + list(extra), cwd=str(project['cwd']), env=env, capture_output=True, text=True, timeout=600,
                          check=False)


def _never_ran(project, result):
    ran = sorted(str(path) for path in project['tmp'].rglob(SENTINEL))
    assert not ran, 'the lookup in the path ran (%s)\n%s' % (ran, result.stdout[-3000:])
    assert 'Traceback' not in result.stdout + result.stderr, result.stderr[-3000:]


def _playbook(project, name):
    return project['collection'] / 'playbooks' / name


LOCAL = ['-e', 'ansible_connection=local', '-e', 'ansible_python_interpreter=%s' % sys.executable]


def test_render_finds_its_directory_without_templating_the_inventory_sources(project):
    """playbooks/render.yml: the render directory is checked against the inventory sources (it must not lie in one)."""
    result = _run(project, _playbook(project, 'render.yml'), '-e', 'aifabric_render_docs=false')
    _never_ran(project, result)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert (project['out'] / 'manifest.json').is_file()


def test_validate_writes_its_report_without_templating_the_inventory_sources(project):
    """roles/validate: the report directory, the same check (a design-only run: no device is read)."""
    result = _run(project, _playbook(project, 'validate.yml'), '-e', 'validate_gather=false')
    _never_ran(project, result)
    assert (project['out'] / 'validation' / 'report.json').is_file(), result.stdout[-3000:]


def test_perf_plans_and_writes_without_templating_any_hosts_variables(project):
    """roles/perf: the report directory; and perf_plan, which reads the other servers' registered results (copying a
    host's hostvars whole templated every variable of it, ansible_inventory_sources among them). The GPU servers are
    this machine (no GPU, no RDMA device: not applicable)."""
    result = _run(project, _playbook(project, 'perf.yml'), *LOCAL)
    _never_ran(project, result)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert json.loads((project['out'] / 'perf' / 'perf.json').read_text())['verdict'] == 'NOT APPLICABLE'


def test_lab_up_finds_its_work_directory_without_templating_a_path(project):
    """playbooks/lab_up.yml: the lab work directory (the lab inventory's aifabric_lab_dir, from the output directory,
    where it read inventory_dir), checked against the inventory sources. Check mode: nothing is built."""
    result = _run(project, _playbook(project, 'lab_up.yml'), '--check')
    _never_ran(project, result)
    assert 'item=%s' % (project['root'] / 'build' / 'labs' / 'lab') in result.stdout, result.stdout[-3000:]


def test_kubernetes_manifests_go_to_the_output_directory_without_templating_a_path(project):
    """roles/host_k8s_network: the manifests' directory (it read playbook_dir), in check mode on this machine."""
    intent = yaml.safe_load(project['intent'].read_text())
    intent['hosts']['kubernetes'] = {'mode': 'macvlan'}
    project['intent'].write_text(yaml.safe_dump(intent))
    playbook = project['root'] / 'k8s.yml'
    playbook.write_text('- hosts: gpu0001\n  gather_facts: false\n  roles:\n    - role: aifabric.fabric.host_k8s_network\n'
                        '      host_k8s_network_check_nodes: false\n')
    result = _run(project, playbook, '--check', *LOCAL)
    _never_ran(project, result)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert 'manifests in %s' % (project['out'] / 'k8s') in result.stdout, result.stdout[-3000:]


def test_kubernetes_manifests_without_the_fabric_inventory_ask_for_their_directory(project):
    """A plain inventory gives no aifabric_output_dir: the role says which variable to set, it never falls back on a
    path Ansible was given (playbook_dir)."""
    intent = yaml.safe_load(project['intent'].read_text())
    intent['hosts']['kubernetes'] = {'mode': 'macvlan'}
    # A plain inventory's values are the user's own, templated by design: this one's paths hold no template.
    (project['cwd'] / 'k8s-intent.yml').write_text(yaml.safe_dump(intent))
    plain = project['cwd'] / 'plain.yml'
    plain.write_text(yaml.safe_dump({'all': {'hosts': {'gpu0001': {'aifabric_intent': str(project['cwd'] / 'k8s-intent.yml')}}}}))
    playbook = project['root'] / 'k8s.yml'
    playbook.write_text('- hosts: gpu0001\n  gather_facts: false\n  roles:\n    - role: aifabric.fabric.host_k8s_network\n'
                        '      host_k8s_network_check_nodes: false\n')
    result = _run(project, playbook, '--check', *LOCAL, inventory=plain)
    _never_ran(project, result)
    assert result.returncode != 0
    assert 'host_k8s_network_dest is not set and gpu0001 has no aifabric_output_dir' in ' '.join(result.stdout.split())


# The magic variables that hold a path or a text Ansible was given (a directory name anyone can choose, the limit an
# AWX user types at launch): ansible-core templates them when a template reads them (2.19 to 2.21:
# ansible_inventory_sources and inventory_file, the text of -i, and ansible_limit, the text of --limit; 2.18 and
# earlier: all of them).
PATH_VARIABLES = ('ansible_inventory_sources', 'inventory_dir', 'inventory_file', 'playbook_dir', 'role_path',
                  'ansible_config_file', 'ansible_search_path', 'ansible_playbook_python', 'ansible_limit')
# An AWX job's limit, typed at launch; no comma in the template, since Ansible splits a limit's patterns at commas.
HOSTILE_LIMIT = "leaf001,x{{ lookup(*(['pipe'] + ['touch templated'])) }}"
# Its second pattern names no host: Ansible's default warns and goes on (ansible-test sets 'error' for its tests).
AS_USERS_RUN = {'ANSIBLE_HOST_PATTERN_MISMATCH': 'warning'}
TEMPLATE = re.compile(r'\{\{.*?\}\}|\{%.*?%\}', re.S)


def _templates(path):
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    return TEMPLATE.findall(text)


def test_render_reads_the_limit_without_templating_it(project):
    """playbooks/render.yml read ansible_limit (the play's hosts, the devices to render), which ansible-core 2.19 and
    later template: a limit ran its lookup. The devices the limit names are rendered, the rest of it names nothing."""
    result = _run(project, _playbook(project, 'render.yml'), '-e', 'aifabric_render_docs=false', '-l', HOSTILE_LIMIT,
                  **AS_USERS_RUN)
    _never_ran(project, result)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    files = json.loads((project['out'] / 'manifest.json').read_text())['files']
    assert sorted(files) == ['configs/leaf001/frr.conf', 'configs/leaf001/interfaces.json'], sorted(files)[:20]


def test_validate_reads_the_limit_without_templating_it(project):
    """playbooks/validate.yml (the play's host) and the validate role (the devices judged) read it too."""
    result = _run(project, _playbook(project, 'validate.yml'), '-e', 'validate_gather=false', '-l', HOSTILE_LIMIT,
                  **AS_USERS_RUN)
    _never_ran(project, result)
    assert (project['out'] / 'validation' / 'report.json').is_file(), result.stdout[-3000:]


def test_no_template_of_the_collection_reads_a_path_ansible_was_given():
    """The class, not only the places above: no playbook, role or shipped inventory of the collection reads such a
    variable in a template (a plugin computes the path from data instead: the inventory plugin's aifabric_output_dir,
    lab_topology's script paths), and no plugin copies a host's hostvars whole."""
    found = []
    for top in ('playbooks', 'roles', 'inventories'):
        for folder, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith(('.yml', '.yaml', '.j2')):
                    path = os.path.join(folder, name)
                    for template in _templates(path):
                        found.extend('%s: %s' % (os.path.relpath(path, ROOT), word) for word in PATH_VARIABLES
                                     if re.search(r'\b%s\b' % word, template))
    whole = re.compile(r'dict\(\s*hostvars|hostvars(?:\[[^\]]+\]|\.get\([^)]*\))\.(?:items|values|keys)\(')
    for folder, _dirs, files in os.walk(os.path.join(ROOT, 'plugins')):
        for name in files:
            if name.endswith('.py'):
                with open(os.path.join(folder, name), encoding='utf-8') as handle:
                    if whole.search(handle.read()):
                        found.append('%s: a host\'s hostvars copied whole' % os.path.relpath(os.path.join(folder, name), ROOT))
    assert not found, found


def test_the_guard_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / 'sample.yml'
    sample.write_text('a: "{{ ansible_inventory_sources | first }}"\nb: "{{ role_path }}/x"\nc: role_path\n')
    words = [word for template in _templates(str(sample)) for word in PATH_VARIABLES if re.search(r'\b%s\b' % word, template)]
    assert words == ['ansible_inventory_sources', 'role_path']


# --------------------------------------------------------------------------- system directories
@pytest.mark.parametrize('variable, value, target', [
    ('aifabric_render_out', '/etc', '/etc/lab'),
    ('aifabric_render_dest', '/usr/local/share/fabric', '/usr/local/share/fabric'),
    ('aifabric_render_out', '/', '/lab'),
])
def test_render_refuses_a_system_directory_unless_told(project, variable, value, target):
    """An AWX survey exposes the output directory as free text: /etc would become /etc/lab."""
    existed = os.path.lexists(target)
    try:
        result = _run(project, _playbook(project, 'render.yml'), '-e', '%s=%s' % (variable, value))
        assert not os.path.lexists(target) or existed, 'rendered into %s' % target
    finally:
        if not existed:  # a render that went there anyway: remove what it made (link, generations, lock)
            parent, name = os.path.split(target)
            for made in (target, os.path.join(parent, '.%s.generations' % name), os.path.join(parent, '.%s.lock' % name)):
                if os.path.islink(made) or os.path.isfile(made):
                    os.unlink(made)
                elif os.path.isdir(made):
                    shutil.rmtree(made)
    assert result.returncode != 0, result.stdout[-3000:]
    text = ' '.join((result.stdout + result.stderr).split())
    assert 'The render directory of fabric lab %s' % value in text and 'aifabric_allow_system_dir' in text, text[-3000:]


def test_validate_refuses_a_system_report_directory(project):
    result = _run(project, _playbook(project, 'validate.yml'), '-e', 'validate_gather=false',
                  '-e', 'validate_report_dir=/var/lib')
    assert result.returncode != 0
    text = ' '.join((result.stdout + result.stderr).split())
    assert 'The validation report directory /var/lib is /var/lib, which holds the directories' in text, text[-3000:]


# --------------------------------------------------------------------------- a local connection
def test_validate_gather_reads_a_device_over_a_local_connection(project):
    """`ansible_connection: local` (the module documents it among the connections that take a script on standard
    input): the reading runs here, on ansible-core 2.19 too, which refused text there ("memoryview: a bytes-like object
    is required")."""
    playbook = project['root'] / 'gather.yml'
    playbook.write_text('- hosts: leaf001\n  gather_facts: false\n  tasks:\n'
                        '    - aifabric.fabric.validate_gather: {counters: false}\n      register: gathered\n'
                        '    - ansible.builtin.debug: {var: gathered.state.interfaces}\n')
    result = _run(project, playbook, *LOCAL)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    shown = json.loads(re.search(r'"gathered.state.interfaces": (\{.*?\n    \})', result.stdout, re.S).group(1))
    assert shown['rc'] == 0 and json.loads(shown['stdout']), shown  # `ip -j -d addr show` ran on this machine
