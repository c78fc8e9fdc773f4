# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Galaxy tarball: what it holds, the metadata users and Galaxy read, and the collections it relies on."""

import fnmatch
import json
import os
import re
import tarfile

import pytest
import yaml

from tests.packaging.conftest import ROOT, ansible_env, run
from tests.unit.utils.ansible_cli import ansible_cli

# Must never reach users: this repository's development, CI and benchmark files, and generated files.
NOT_SHIPPED = ['.ci/', '.venv/', '.ansible/', 'benchmarks/', 'build/', 'out/', 'tests/unit/', 'tests/doubles/', 'tests/faults/', '.mypy_cache/',
               'extensions/molecule/',
               'Makefile', 'constraints.txt', 'test-requirements.txt', 'pytest.ini', 'mypy.ini', '.ansible-lint', '.gitignore',
               'ansible.cfg', 'scripts/ansible-test-pip-bootstrap.py', 'scripts/check-plugin-docs.sh',
               'scripts/run-stages.py']
# Must reach users: the metadata ansible-builder and Galaxy read, docs, licence, tests as the convention has them.
SHIPPED = ['README.md', 'CHANGELOG.md', 'LICENSES/GPL-3.0-or-later.txt', 'meta/runtime.yml', 'meta/execution-environment.yml',
           'requirements.txt', 'bindep.txt', 'execution-environment.yml', 'docs/awx.md', 'docs/usage.md',
           'scripts/setup-host.sh', 'examples/awx/render.yml', 'examples/awx/surveys/render.json',
           'tests/sanity/ignore-2.21.txt']
# Documents installed with the collection, and the top-level names of this repository a path in them may start with.
DOCUMENTS = re.compile(r'^(README\.md|CHANGELOG\.md|docs/.+\.md|roles/[^/]+/README\.md|examples/.+\.md)$')


def _git_files():
    result = run(['git', 'ls-files', '-z'], cwd=ROOT)
    assert result.returncode == 0, 'the packaging tests run in a git checkout of the collection: ' + result.stderr
    return {name for name in result.stdout.split('\0') if name}


def _galaxy():
    with open(os.path.join(ROOT, 'galaxy.yml'), encoding='utf-8') as handle:
        return yaml.safe_load(handle)


def _ignored(path, patterns):
    parts = path.split('/')
    return any(fnmatch.fnmatch('/'.join(parts[:depth]), pattern)
               for depth in range(1, len(parts) + 1) for pattern in patterns)


def test_tarball_is_every_tracked_file_but_the_ignored_ones(tarball_files):
    # ansible-galaxy always leaves out galaxy.yml (MANIFEST.json carries its content).
    expected = {name for name in _git_files() if not _ignored(name, _galaxy()['build_ignore'] + ['galaxy.yml'])}
    shipped = tarball_files - {'MANIFEST.json', 'FILES.json'}
    assert sorted(expected - shipped) == [], 'tracked files missing from the tarball'
    assert sorted(shipped - expected) == [], 'files in the tarball that are not tracked (generated or stray)'


def test_tarball_leaves_out_development_files_and_keeps_what_users_need(tarball_files):
    leaked = sorted(name for name in tarball_files for prefix in NOT_SHIPPED
                    if name == prefix or (prefix.endswith('/') and (name.startswith(prefix) or '/' + prefix in name)))
    assert leaked == []
    assert sorted(set(SHIPPED) - tarball_files) == []
    assert [name for name in tarball_files if name.startswith('tests/') and not name.startswith('tests/sanity/')] == []
    assert not any('__pycache__' in name or name.endswith('.pyc') for name in tarball_files)


def _tested_core_minors():
    with open(os.path.join(ROOT, 'Makefile'), encoding='utf-8') as handle:
        matrix = re.search(r'^CORE_MATRIX \?= (.+)$', handle.read(), re.M).group(1).split()
    with open(os.path.join(ROOT, 'constraints.txt'), encoding='utf-8') as handle:
        pinned = re.search(r'^ansible-core==(\S+)$', handle.read(), re.M).group(1)
    return sorted({tuple(int(part) for part in version.split('.')[:2]) for version in matrix + [pinned]})


def test_supported_ansible_core_range_is_the_tested_one(tarball_files):
    """requires_ansible spans exactly the releases `make sanity/units` run, each with its sanity ignore file, and
    requirements.txt and the EE definition ask for the same range."""
    minors = _tested_core_minors()
    assert len(minors) > 1 and minors == [(minors[0][0], minor) for minor in range(minors[0][1], minors[-1][1] + 1)]
    low, high = minors[0], minors[-1]
    expected = '>=%d.%d.0,<%d.%d.0' % (low[0], low[1], high[0], high[1] + 1)
    with open(os.path.join(ROOT, 'meta', 'runtime.yml'), encoding='utf-8') as handle:
        assert yaml.safe_load(handle)['requires_ansible'] == expected
    with open(os.path.join(ROOT, 'execution-environment.yml'), encoding='utf-8') as handle:
        assert yaml.safe_load(handle)['dependencies']['ansible_core']['package_pip'] == 'ansible-core' + expected
    assert _requirements()['ansible-core'] == '>=%d.%d,<%d.%d' % (low + (high[0], high[1] + 1))
    for major, minor in minors:
        assert 'tests/sanity/ignore-%d.%d.txt' % (major, minor) in tarball_files


def _requirements():
    ranges = {}
    with open(os.path.join(ROOT, 'requirements.txt'), encoding='utf-8') as handle:
        for line in handle:
            line = line.split('#')[0].strip()
            if line:
                match = re.match(r'^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\S.*)?$', line)
                assert match and not line.startswith('-'), 'not a plain requirement: %r' % line
                ranges[match.group(1)] = (match.group(2) or '').replace(' ', '')
    return ranges


def test_requirements_are_ranges_not_pins():
    for name, spec in _requirements().items():
        clauses = spec.split(',')
        assert any(clause.startswith('>=') for clause in clauses), '%s: no lower bound (%r)' % (name, spec)
        assert any(clause.startswith('<') and not clause.startswith('<=') for clause in clauses), \
            '%s: no upper bound (%r)' % (name, spec)
        assert not any(clause.startswith(('==', '===', '~=')) for clause in clauses), '%s is pinned (%r)' % (name, spec)


# --------------------------------------------------------------------------- collections the content relies on
FQCN = r'([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*'
JINJA_PLUGIN = re.compile(r'(?:\|\s*|\bis\s+(?:not\s+)?|lookup\(\s*[\'"]|query\(\s*[\'"])' + FQCN)
# Keys whose string value names a plugin, role or playbook (a `roles:` list names roles too).
NAMING_KEYS = ('role', 'name', 'ansible.builtin.import_playbook', 'ansible_connection', 'ansible_network_os')


def _yaml_files(*tops):
    for top in tops:
        for directory, _unused, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith(('.yml', '.yaml', '.j2')):
                    yield os.path.join(directory, name)


def _collections_named(node, found):
    """Collections of module/action keys, roles, imported playbooks and connection plugins in loaded YAML."""
    if isinstance(node, dict):
        for key, value in node.items():
            match = re.fullmatch(FQCN, str(key))
            if match:
                found.add(match.group(1))
            named = [value] if key in NAMING_KEYS else value if key == 'roles' and isinstance(value, list) else []
            for name in named:
                match = re.fullmatch(FQCN, name) if isinstance(name, str) else None
                if match:
                    found.add(match.group(1))
            _collections_named(value, found)
    elif isinstance(node, list):
        for item in node:
            _collections_named(item, found)


def used_collections():
    found = {}
    for path in _yaml_files('playbooks', 'roles', 'extensions', 'examples', 'inventories'):
        with open(path, encoding='utf-8') as handle:
            text = handle.read()
        names = set(match.group(1) for match in JINJA_PLUGIN.finditer(text))
        if not path.endswith('.j2'):
            for document in yaml.safe_load_all(text):
                _collections_named(document, names)
        for name in names:
            found.setdefault(name, os.path.relpath(path, ROOT))
    return found


def test_every_collection_the_content_uses_is_declared():
    declared = set(_galaxy()['dependencies']) | {'ansible.builtin', 'aifabric.fabric'}
    used = used_collections()
    assert {'ansible.builtin', 'aifabric.fabric'} <= set(used)  # the scan sees module keys, roles and filters
    undeclared = {name: where for name, where in used.items() if name not in declared}
    assert undeclared == {}, 'collections used but not in galaxy.yml dependencies (first use shown)'


def test_the_scan_finds_a_collection_in_each_place_it_looks(tmp_path, monkeypatch):
    """The same scan on content that uses four other collections: each way of using one is seen."""
    monkeypatch.setattr('tests.packaging.test_galaxy_package.ROOT', str(tmp_path))
    (tmp_path / 'playbooks').mkdir()
    (tmp_path / 'playbooks' / 'x.yml').write_text(
        '- hosts: all\n  roles: [community.general.foo]\n  tasks:\n'
        '    - ansible.utils.validate: {data: "{{ x | ansible.netcommon.parse_cli }}"}\n'
        '      vars: {ansible_connection: cisco.ios.ios}\n')
    assert set(used_collections()) == {'community.general', 'ansible.utils', 'ansible.netcommon', 'cisco.ios'}


def test_installed_alone_every_playbook_resolves(installed, empty_config, tmp_path):
    """Only this collection installed (no ansible.netcommon, arista.eos, ...): every collection playbook and every
    example wrapper passes --syntax-check, which resolves each module and role."""
    env = ansible_env(collections_path=installed, config=empty_config)
    playbooks = ['aifabric.fabric.' + name[:-4] for name in sorted(os.listdir(os.path.join(ROOT, 'playbooks')))]
    playbooks += sorted(os.path.join(ROOT, 'examples', 'awx', name) for name in os.listdir(os.path.join(ROOT, 'examples', 'awx'))
                        if name.endswith('.yml'))
    for playbook in playbooks:
        result = run(ansible_cli('playbook') + ['--syntax-check', '-i', 'localhost,', playbook], env=env, cwd=str(tmp_path))
        assert result.returncode == 0, '%s: %s%s' % (playbook, result.stdout, result.stderr)


MIXED = {'name': 'mixed',
         'topology': {'rail_optimized': {'servers': 2, 'rails': 2, 'leaf_radix': 4},
                      'platform': {'leaf': 'eos', 'spine': 'nvue', 'super_spine': 'sonic'}},
         'overlay': {'networks': [{'name': 'r0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]},
                                  {'name': 'r1', 'vlan': 101, 'subnet': '10.101.0.0/24', 'rails': [1]}]}}
ON_EVERY_SWITCH = """- name: A task on every EOS and NVUE switch that needs no device
  hosts: platform_eos:platform_nvue
  gather_facts: false
  tasks:
    - name: Runs on the controller, yet Ansible loads each host's connection plugin first
      ansible.builtin.assert:
        that: aifabric_platform in ['eos', 'nvue']
"""


@pytest.mark.parametrize('connection_vars, error', [
    (None, None),
    ({'platform_eos': {'ansible_connection': 'ansible.netcommon.httpapi', 'ansible_network_os': 'arista.eos.eos'}},
     "the connection plugin 'ansible.netcommon.httpapi' was not found"),
])
def test_tasks_on_eos_and_nvue_switches_need_no_other_collection(installed, empty_config, tmp_path, connection_vars, error):
    """The inventory plugin's connection defaults: with them a task runs on every switch; with the former default
    (ansible.netcommon.httpapi, not declared, not installed) the same task fails before it starts."""
    inventory = tmp_path / 'inventories' / 'mixed'
    inventory.mkdir(parents=True)
    (tmp_path / 'mixed.yml').write_text(yaml.safe_dump(MIXED))
    config = {'plugin': 'aifabric.fabric.fabric', 'intent': '../../mixed.yml'}
    if connection_vars:
        config['connection_vars'] = connection_vars
    (inventory / 'fabric.yml').write_text(yaml.safe_dump(config))
    (tmp_path / 'play.yml').write_text(ON_EVERY_SWITCH)
    result = run(ansible_cli('playbook') + ['-i', str(inventory), str(tmp_path / 'play.yml')],
                 env=ansible_env(collections_path=installed, config=empty_config), cwd=str(tmp_path))
    if error is None:
        assert result.returncode == 0, result.stdout + result.stderr
        assert re.search(r'leaf001 +: ok=1 ', result.stdout) and re.search(r'spine001 +: ok=1 ', result.stdout)
    else:
        assert result.returncode != 0
        assert error in result.stdout + result.stderr


# --------------------------------------------------------------------------- documents installed with the collection
URL = re.compile(r'[a-z][a-z0-9+.-]*://\S+')
MARKDOWN_LINK = re.compile(r'\]\(([^)\s]+)\)')
URL_LINK = re.compile(r'\[[^\]]*\]\([a-z][a-z0-9+.-]*://[^)]*\)')  # [text](https://...): points at the repository, explicitly
CODE = re.compile(r'```.*?```|`[^`\n]*`', re.S)  # links are never inside code; paths often are


# Every Ansible project has one: a bare mention means the reader's own file, not this repository's.
GENERIC_NAMES = {'ansible.cfg'}


# A fenced block right after a line that says it runs in a checkout of the repository (the test commands).
IN_A_CHECKOUT = re.compile(r'checkout of the repository[^\n]*:\n\n?```.*?```', re.S)


def document_problems(files, read, documents=None):
    """Links and repository paths in the installed documents that lead outside the installed collection: relative
    links that leave it or name a missing file, and paths of this repository (a top-level name followed by /...,
    or a top-level file name) that neither the tarball nor one of its example projects holds. Placeholders (<name>,
    {x}, *) end the checked part; a
    code block introduced as run in a checkout of the repository is left alone."""
    tracked = _git_files()
    tops = sorted({name.split('/')[0] for name in tracked}, key=len, reverse=True)
    top_files = {name for name in tracked if '/' not in name} - GENERIC_NAMES
    path_token = re.compile(r'(?<![\w./$~-])((?:%s)(?:/[\w.<>{}*-]+)*/?)' % '|'.join(re.escape(top) for top in tops))
    directories = {'/'.join(name.split('/')[:depth]) for name in files for depth in range(1, name.count('/') + 1)}
    # A path of the collection, or of one of its example projects (the docs describe their layout).
    bases = [''] + sorted({'/'.join(name.split('/')[:2]) + '/' for name in files
                           if name.startswith('examples/') and name.count('/') >= 2})
    problems = []
    for document in documents or sorted(name for name in files if DOCUMENTS.match(name)):
        text = IN_A_CHECKOUT.sub(' ', read(document))
        for target in MARKDOWN_LINK.findall(CODE.sub(' ', text)):
            if URL.match(target) or target.startswith(('#', 'mailto:')):
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(document), target.split('#')[0]))
            if '..' in target.split('/') or resolved.startswith('..') or (resolved not in files and resolved not in directories):
                problems.append('%s: link %s' % (document, target))
        for token in path_token.findall(URL.sub(' ', URL_LINK.sub(' ', text))):
            token = token.rstrip('.,:;')
            if '/' not in token.rstrip('/'):
                if token in top_files and token not in files:
                    problems.append('%s: path %s' % (document, token))
                continue  # otherwise a word that happens to be a top-level directory name ("docs", "tests")
            placeholder = re.search(r'[<{*]', token)
            fixed = (token[:token.rfind('/', 0, placeholder.start())] if placeholder else token).rstrip('/')
            if not any(base + fixed in files or base + fixed in directories for base in bases):
                problems.append('%s: path %s' % (document, token))
    return problems


def test_installed_documents_point_only_inside_the_collection(tarball, tarball_files):
    with tarfile.open(tarball) as archive:
        def read(name):
            return archive.extractfile(name).read().decode('utf-8')
        assert document_problems(tarball_files, read) == []


def test_the_document_check_finds_links_and_paths_outside(tarball_files):
    text = {'docs/a.md': 'See [the benchmarks](../benchmarks/README.md), `benchmarks/run_all.py`, '
                         '[usage](usage.md), `docs/platform-<nos>.md`, `constraints.txt`, '
                         '[Makefile](https://github.com/aifabric/aifabric.fabric/blob/main/Makefile) and '
                         'https://github.com/aifabric/aifabric.fabric/blob/main/benchmarks/README.md.\n'
                         'The AWX project holds `fabrics/pod1.yml`, not `fabrics/pod2.yml`.\n'
                         '\n```\npytest tests/unit/plugins\n```\n\n'
                         'In a checkout of the repository (the tarball leaves the test suites out):\n\n'
                         '```\npytest tests/roles\n```\n'}
    files = set(tarball_files) | {'docs/a.md'}
    problems = document_problems(files, text.get, documents=['docs/a.md'])
    assert problems == ['docs/a.md: link ../benchmarks/README.md', 'docs/a.md: path benchmarks/run_all.py',
                        'docs/a.md: path constraints.txt', 'docs/a.md: path fabrics/pod2.yml',
                        'docs/a.md: path tests/unit/plugins']


def test_manifest_names_the_collection_and_its_dependencies(tarball):
    with tarfile.open(tarball) as archive:
        manifest = json.load(archive.extractfile('MANIFEST.json'))['collection_info']
    galaxy = _galaxy()
    assert (manifest['namespace'], manifest['name'], manifest['version']) == (galaxy['namespace'], galaxy['name'],
                                                                              galaxy['version'])
    assert manifest['dependencies'] == galaxy['dependencies']
    assert 'networking' in manifest['tags']


# --------------------------------------------------------------------------- Python packages the plugins import
def imported_modules(top):
    """{module: first file importing it} of every absolute import in the Python files under `top`."""
    import ast  # pylint: disable=import-outside-toplevel
    found = {}
    for directory, _unused, names in os.walk(top):
        for name in sorted(names):
            if name.endswith('.py'):
                path = os.path.join(directory, name)
                with open(path, encoding='utf-8') as handle:
                    tree = ast.parse(handle.read(), path)
                for node in ast.walk(tree):
                    modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                               else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                               else [])
                    for module in modules:
                        found.setdefault(module, os.path.relpath(path, ROOT))
    return found


def undeclared_or_private(modules, requirements, distributions):
    """Third-party imports whose distribution requirements.txt does not name, and imports of private modules."""
    import sys  # pylint: disable=import-outside-toplevel
    declared = {re.sub(r'[-_.]+', '-', name).lower() for name in requirements}
    problems = []
    for module, where in sorted(modules.items()):
        top = module.split('.')[0]
        if top in sys.stdlib_module_names or top in ('__future__', 'ansible', 'ansible_collections'):
            continue
        if any(part.startswith('_') for part in module.split('.')[1:]):
            problems.append('%s imports the private module %s' % (where, module))
        names = {re.sub(r'[-_.]+', '-', name).lower() for name in distributions.get(top, [])}
        if not names & declared:
            problems.append('%s imports %s (distribution %s), not in requirements.txt'
                            % (where, module, ', '.join(sorted(names)) or 'unknown'))
    return problems


def test_every_python_package_the_plugins_import_is_declared_and_public():
    """What the collection's controller code imports is named in requirements.txt (where ansible-builder and users
    read it), and only through the package's public modules (a private one such as anta._runner may change in any
    release)."""
    import importlib.metadata  # pylint: disable=import-outside-toplevel
    modules = imported_modules(os.path.join(ROOT, 'plugins'))
    assert {'yaml', 'jinja2', 'napalm', 'netmiko'} <= {module.split('.')[0] for module in modules}  # the scan sees them
    assert undeclared_or_private(modules, _requirements(), importlib.metadata.packages_distributions()) == []


def test_the_import_scan_finds_undeclared_and_private_imports():
    modules = {'yaml': 'a.py', 'anta._runner': 'b.py', 'pyeapi.eapilib': 'c.py', 'os.path': 'd.py'}
    distributions = {'yaml': ['PyYAML'], 'anta': ['anta'], 'pyeapi': ['pyeapi']}
    assert undeclared_or_private(modules, {'PyYAML': '>=6', 'anta': '>=1'}, distributions) == [
        'b.py imports the private module anta._runner',
        'c.py imports pyeapi.eapilib (distribution pyeapi), not in requirements.txt']
