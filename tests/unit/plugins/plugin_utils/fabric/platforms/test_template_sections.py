# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Section templates, over the registry: a platform whose templates/ holds a sections/ folder renders its file from
one template per configuration section. Its file's template includes every section exactly once and nothing else,
each section says in a one-line comment what it renders, and each renders alone from the renderer's context
(render.py: FILE, TEMPLATE, context(model)); the sections, concatenated in the order they are included, are the
whole file, for every switch of the platform's golden shapes, with and without the management plane's options."""

import copy
import os

import jinja2
import jinja2.meta
import jinja2.nodes
import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.environment import environment
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import get_platform, platform_names
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import with_user_hashes
from tests.unit.utils.platforms import platform_data

SECTIONS = 'sections'
SECTIONED = [name for name in platform_names() if os.path.isdir(os.path.join(get_platform(name).templates, SECTIONS))]
HASH = '$6$unitsalt$' + 'a' * 86
# Every management option the intent has, so the sections that render only with one are rendered too.
MANAGEMENT = {
    'pool': '192.168.100.0/24', 'ntp_servers': ['192.168.100.2'], 'syslog_servers': ['192.168.100.3'],
    'dns_servers': ['192.168.100.4'], 'dns_domain': 'lab.example.net', 'tacacs_servers': ['192.168.100.5'],
    'users': [{'name': 'admin'}, {'name': 'ops', 'role': 'operator'}],
    'allowed_sources': ['192.168.100.0/24', '10.255.0.7/32'],
}


def section_problems(env, template, folder) -> list:
    """What is wrong with the sections of `template` (its name in `env`) whose files are in `folder`: a section not
    included, one included twice, an include from elsewhere, anything in the template besides includes, a section
    without its one-line comment."""
    tree = env.parse(env.loader.get_source(env, template)[0])
    included = list(jinja2.meta.find_referenced_templates(tree))
    prefix = '%s/%s/' % (template.split('/', 1)[0], SECTIONS)
    files = sorted(prefix + file_name for file_name in os.listdir(folder) if file_name.endswith('.j2'))
    problems = ['%s is in %s but not included by %s' % (name, folder, template) for name in files if name not in included]
    problems += ['%s is included %d times' % (name, included.count(name)) for name in sorted(set(included))
                 if included.count(name) > 1]
    problems += ['%s includes %s, not a file of %s' % (template, name, folder) for name in included if name not in files]
    problems += ['%s holds a %s: only includes of its sections' % (template, type(node).__name__) for node in tree.body
                 if not isinstance(node, jinja2.nodes.Include)]
    for name in files:
        with open(os.path.join(folder, name[len(prefix):]), encoding='utf-8') as handle:
            first = handle.readline()
        if not (first.startswith('{# ') and first.rstrip('\n').endswith(' #}')):
            problems.append('%s does not open with a one-line {# comment #} saying what it renders' % name)
    return problems


def included_sections(env, template) -> list:
    return list(jinja2.meta.find_referenced_templates(env.parse(env.loader.get_source(env, template)[0])))


def switch_models(name):
    """Every switch of platform `name` in its golden shapes, as designed and with every management option (users
    with their hashes)."""
    for intent_path, _layout in platform_data(name).SHAPES:
        with open(intent_path, encoding='utf-8') as handle:
            intent = yaml.safe_load(handle)
        designed = design_from_intent(intent)
        switches = [device for device in designed.device_names() if designed.nodes[device].role != 'host']
        managed = copy.deepcopy(intent)
        managed['management'] = dict(managed.get('management') or {}, **MANAGEMENT)
        if not all(get_platform(designed.nodes[device].platform).management_acl for device in switches):
            del managed['management']['allowed_sources']  # a platform of the fabric has no management ACL
        for fabric, hashes in ((designed, None), (design_from_intent(managed), {'admin': HASH, 'ops': HASH})):
            for device in switches:
                if fabric.nodes[device].platform == name:
                    yield with_user_hashes(fabric.device(device), hashes)


def test_some_platform_has_sections():
    assert SECTIONED, 'no platform keeps its templates in sections'


@pytest.mark.parametrize('name', SECTIONED)
def test_the_file_template_includes_every_section_once_and_nothing_else(name):
    renderer = get_platform(name).part('render')
    assert renderer.TEMPLATE.startswith(name + '/'), 'render.py names its file template (TEMPLATE)'
    assert section_problems(environment(), renderer.TEMPLATE, os.path.join(get_platform(name).templates, SECTIONS)) == []


@pytest.mark.parametrize('name', SECTIONED)
def test_each_section_renders_alone_and_together_they_are_the_file(name):
    renderer, env = get_platform(name).part('render'), environment()
    sections = [env.get_template(section) for section in included_sections(env, renderer.TEMPLATE)]
    rendered = set()
    models = 0
    for model in switch_models(name):
        context = renderer.context(model)
        parts = [section.render(context) for section in sections]
        assert ''.join(parts) == renderer.render(model, env)[renderer.FILE], model['name']
        rendered.update(section.name for section, text in zip(sections, parts) if text)
        models += 1
    assert models > 0
    # Each section renders something for some switch: none is dead text the shapes never reach.
    assert sorted(section.name for section in sections if section.name not in rendered) == []


# --------------------------------------------------------------------------- the check itself fails where it must
def _fixture_env(tmp_path, top, sections):
    folder = tmp_path / 'p' / SECTIONS
    folder.mkdir(parents=True)
    for file_name, text in sections.items():
        (folder / file_name).write_text(text)
    (tmp_path / 'p' / 'file.j2').write_text(top)
    env = jinja2.Environment(loader=jinja2.PrefixLoader({'p': jinja2.FileSystemLoader(str(tmp_path / 'p'))}))
    return env, str(folder)


GOOD = {'a.j2': '{# renders a #}\na\n', 'b.j2': '{# renders b #}\nb\n'}


def test_the_check_passes_a_well_formed_set(tmp_path):
    env, folder = _fixture_env(tmp_path, "{% include 'p/sections/a.j2' %}{% include 'p/sections/b.j2' %}", GOOD)
    assert section_problems(env, 'p/file.j2', folder) == []


@pytest.mark.parametrize('top, sections, problem', [
    ("{% include 'p/sections/a.j2' %}", GOOD, 'p/sections/b.j2 is in'),
    ("{% include 'p/sections/a.j2' %}{% include 'p/sections/b.j2' %}{% include 'p/sections/a.j2' %}", GOOD,
     'p/sections/a.j2 is included 2 times'),
    ("{% include 'p/sections/a.j2' %}{% include 'p/sections/b.j2' %}{% include 'p/other.j2' %}", GOOD,
     'includes p/other.j2'),
    ("{% include 'p/sections/a.j2' %}\nend\n{% include 'p/sections/b.j2' %}", GOOD, 'holds a Output'),
    ("{% include 'p/sections/a.j2' %}{% include 'p/sections/b.j2' %}", dict(GOOD, **{'b.j2': 'b\n'}),
     'p/sections/b.j2 does not open with a one-line'),
])
def test_the_check_fails_on_a_broken_set(tmp_path, top, sections, problem):
    env, folder = _fixture_env(tmp_path, top, sections)
    problems = section_problems(env, 'p/file.j2', folder)
    assert any(problem in text for text in problems), problems
