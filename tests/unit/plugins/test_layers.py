# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arrows one way: every import of the collection's Python code (module level or inside a function) goes to its own
layer or one below it, a platform's folder imports no other platform's folder, importing the code discovers no
platform, and the switch roles are spelled once. docs/design.md ("Layers") draws the same house.

The layers, from the ground up (a module belongs to the first layer whose pattern matches it):"""

import ast
import os
import subprocess
import re
import sys

import pytest

from tests.unit.utils.paths import ROOT

PLUGINS = os.path.join(ROOT, 'plugins')
PACKAGE = 'ansible_collections.aifabric.fabric.plugins'
F = 'plugin_utils.fabric.'
P = F + 'platforms.'
# A module is named by its dotted path under plugins/ (a package by its folder); in a pattern `*` is one name, `**`
# any number of them. A module is in the first layer one of whose patterns it matches.
LAYERS = (
    ('foundation', 'helpers with no knowledge of fabrics or platforms',
     [F[:-1]] + [F + name for name in ('errors', 'typed', 'jsontext', 'compile_cache', 'intent_yaml', 'asic',
                                       'progress', 'transport', 'terms', 'printable', 'forked')]),
    ('registry', 'the platform registry and what each platform is (the PLATFORM data in its folder)',
     [F + 'platforms', P + '*']),
    ('platform parts', 'what a platform folder builds on: the device model\'s types, the state seam and shared '
                       'parsers, the deploy contract, the Jinja2 environment, the output writer, lab kinds, GPU server '
                       'files, shared FRR, device text with the secrets every platform declares masked',
     [F + 'model', F + 'environment', F + 'output', F + 'lab', F + 'hosts', F + 'frrouting', F + 'frrouting.**', F + 'state',
      F + 'state.gatherer', F + 'state.reader', F + 'state.shell', F + 'state.schema', F + 'state.host',
      F + 'state.iproute2', F + 'state.lldp', F + 'state.ping', F + 'state.probe', F + 'state.rnic',
      F + 'state.counters', F + 'state.views', F + 'state.vtysh', F + 'state.ssh', F + 'deploy', F + 'deploy.contract',
      F + 'device_text']),
    ('platforms', 'the platform folders, each apart from the others', [P + '*.**']),
    ('intent', 'the intent, its schema and the switch hardware models',
     [F + 'intent', F + 'switch_models', F + 'schema_doc']),
    ('topology', 'nodes and links', [F + 'topology']),
    ('design', 'the design: addressing, overlay, lossless, device models', [F + 'design', F + 'design.**']),
    ('reading and deploying', 'the gatherer of each device, the reviewed generation a deploy pushes, batches, the '
     'check of many switches at once',
     [F + 'state.sources', F + 'deploy.reviewed', F + 'deploy.batches', F + 'deploy.fleet']),
    ('rendering', 'device files and fabric documents, and their diffs', [F + 'render', F + 'docs', F + 'config_diff', F + 'netbox']),
    ('checks', 'validation and its reports, the performance gate', [F + 'checks', F + 'checks.**', F + 'perf']),
    ('controller', 'what only the Ansible controller has: the design cache, the run\'s inventory sources and limit',
     ['plugin_utils.design_cache', 'plugin_utils.destinations', 'plugin_utils.command_line']),
    ('ansible', 'the Ansible plugins', ['action.*', 'inventory.*', 'filter.*', 'lookup.*']),
)
__doc__ += ''.join('\n%2d. %s: %s.' % (index, name, says) for index, (name, says, _patterns) in enumerate(LAYERS, 1))


_MATCHERS = [(index, name, [re.compile('^' + r'\.'.join(
    '.+' if part == '**' else '[^.]+' if part == '*' else re.escape(part) for part in pattern.split('.')) + '$')
    for pattern in patterns]) for index, (name, _says, patterns) in enumerate(LAYERS)]


def layer_of(name):
    """(index, layer name) of a module (None, None: in no layer)."""
    for index, layer, matchers in _MATCHERS:
        if any(matcher.match(name) for matcher in matchers):
            return index, layer
    return None, None


def python_files(folder):
    for parent, dirs, files in os.walk(os.path.join(PLUGINS, folder)):
        dirs[:] = sorted(name for name in dirs if name != '__pycache__')
        for name in sorted(files):
            if name.endswith('.py'):
                yield os.path.join(parent, name)


def module_name(path) -> str:
    """'plugin_utils.fabric.state.gatherer'; a package's __init__.py is the package."""
    relative = os.path.relpath(path, PLUGINS)[:-len('.py')].replace(os.sep, '.')
    return relative[:-len('.__init__')] if relative.endswith('.__init__') else relative


def _is_module(name) -> bool:
    path = os.path.join(PLUGINS, *name.split('.'))
    return os.path.isfile(path + '.py') or os.path.isfile(os.path.join(path, '__init__.py'))


def imports_of(path):
    """[(line, imported module)] of every import of the collection's own code in `path`, module level or not."""
    name = module_name(path)
    package = name if path.endswith('__init__.py') else name.rsplit('.', 1)[0]
    with open(path, encoding='utf-8') as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name[len(PACKAGE) + 1:]) for alias in node.names
                         if alias.name.startswith(PACKAGE + '.'))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split('.')
                target = '.'.join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            elif (node.module or '').startswith(PACKAGE + '.'):
                target = node.module[len(PACKAGE) + 1:]
            else:
                continue
            for alias in node.names:  # `from . import state` imports a module; `from .x import name` a name of x
                candidate = '%s.%s' % (target, alias.name)
                found.append((node.lineno, candidate if _is_module(candidate) else target))
    return found


def _platform_folder(name):
    parts = name.split('.')
    return parts[3] if name.startswith(P) and len(parts) > 4 else None


def all_modules():
    return [(path, module_name(path)) for folder in ('plugin_utils', 'action', 'inventory', 'filter', 'lookup')
            for path in python_files(folder)]


def all_imports():
    for path, source in all_modules():
        for line, target in imports_of(path):
            yield os.path.relpath(path, ROOT), line, source, target


def test_every_module_has_a_layer():
    unplaced = sorted(name for _path, name in all_modules() if layer_of(name)[0] is None)
    assert not unplaced, 'modules in no layer of %s: %s' % (__name__, ', '.join(unplaced))


def test_nothing_imports_upward():
    upward = []
    for path, line, source, target in all_imports():
        (mine, my_layer), (its, its_layer) = layer_of(source), layer_of(target)
        if its is not None and mine is not None and its > mine:
            upward.append('%s:%d: %s (%s) imports %s (%s)' % (path, line, source, my_layer, target, its_layer))
    assert not upward, 'imports that run up the house:\n' + '\n'.join(upward)


def test_a_platform_folder_imports_no_other_platform_folder():
    crossing = ['%s:%d: %s imports %s' % (path, line, source, target) for path, line, source, target in all_imports()
                if _platform_folder(source) and _platform_folder(target)
                and _platform_folder(source) != _platform_folder(target)]
    assert not crossing, 'shared code belongs below the platforms that share it:\n' + '\n'.join(crossing)


def test_the_analysis_sees_what_it_must(tmp_path):
    """The rules bite: the analysis resolves relative, absolute and function-level imports to modules."""
    found = {(source, target) for _path, _line, source, target in all_imports()}
    assert (F + 'platforms.eos.state', F + 'platforms.eos.eapi') in found  # from .eapi import EAPI
    assert (F + 'render', F + 'hosts') in found  # inside a function
    assert ('action.validate_gather', F + 'state.reader') in found  # absolute, through the collection's package
    assert layer_of(F + 'state.sources')[1] == 'reading and deploying'
    assert layer_of(F + 'state.shell')[1] == 'platform parts' and layer_of(F + 'deploy.reviewed')[1] != 'platform parts'
    assert layer_of(P + 'sonic')[1] == 'registry' and layer_of(P + 'sonic.render')[1] == 'platforms'


def test_module_utils_and_modules_stay_apart_from_the_controller_code():
    """module_utils run on the managed hosts (stdlib only) and modules import only them."""
    crossing = []
    for folder in ('module_utils', 'modules'):
        for path in python_files(folder):
            crossing.extend('%s:%d: %s' % (os.path.relpath(path, ROOT), line, target) for line, target in imports_of(path)
                            if not target.startswith('module_utils'))
    assert not crossing, '\n'.join(crossing)


def test_importing_the_code_discovers_no_platform():
    """A module's import reads no schema and asks the registry nothing: discovery happens when something is asked
    of the registry (a platform folder added later is then seen; importing a module costs no folder scan)."""
    names = sorted(module_name(path) for path in python_files('plugin_utils') if not path.endswith('design_cache.py'))
    script = '\n'.join([
        'import importlib, sys',
        'sys.path.insert(0, %r)' % ROOT,
        'import tests.conftest',
        'from %s.plugin_utils.fabric import platforms' % PACKAGE,
        'for name in %r:' % names,
        '    importlib.import_module(%r + "." + name)' % PACKAGE,
        'print(platforms._registry.cache_info().currsize)',
    ])
    run = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[-1] == '0', 'importing the code discovered the platforms'


ROLE_WORDS = {'leaf', 'spine', 'super_spine'}


@pytest.mark.parametrize('folder', ['plugin_utils', 'action', 'inventory', 'filter', 'lookup'])
def test_the_switch_roles_are_spelled_once(folder):
    """terms.py names the roles; a tuple of them spelled out elsewhere drifts when a tier is added."""
    spelled = []
    for path in python_files(folder):
        if path.endswith(os.path.join('fabric', 'terms.py')):
            continue
        with open(path, encoding='utf-8') as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                words = {item.value for item in node.elts if isinstance(item, ast.Constant)}
                if ROLE_WORDS <= words:
                    spelled.append('%s:%d' % (os.path.relpath(path, ROOT), node.lineno))
    assert not spelled, 'use terms.SWITCH_ROLES / terms.ROLES: ' + ', '.join(spelled)


def test_the_core_never_branches_on_a_platform_name():
    """Outside the platform folders code reads a platform's capabilities (Platform fields), never compares a
    platform's name with a literal one ('sonic', 'eos', ...)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import platform_names
    names = set(platform_names())
    branching = []
    for path, name in all_modules():
        if _platform_folder(name) or layer_of(name)[1] == 'registry':
            continue
        with open(path, encoding='utf-8') as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                for item in [node.left] + node.comparators:
                    values = item.elts if isinstance(item, (ast.Tuple, ast.List, ast.Set)) else [item]
                    if any(isinstance(value, ast.Constant) and value.value in names for value in values):
                        branching.append('%s:%d' % (os.path.relpath(path, ROOT), node.lineno))
    assert not branching, 'compares with a platform name: ' + ', '.join(branching)
