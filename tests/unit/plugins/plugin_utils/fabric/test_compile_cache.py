"""The per-user cache of compiled templates and schema validators: used when it is safe, invalidated by content,
and only ever a matter of speed (a missing, unsafe, read-only or corrupt cache gives the same results)."""

import os
import stat
import subprocess
import sys

import fastjsonschema
import jinja2
import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import compile_cache

SCHEMA = {'$schema': 'http://json-schema.org/draft-07/schema#', 'type': 'object', 'required': ['name'],
          'properties': {'name': {'type': 'string', 'pattern': '^[a-z]+$'}, 'ip': {'type': 'string', 'format': 'ipv4'}},
          'additionalProperties': False}
FORMATS = {'ipv4': lambda text: text.count('.') == 3}
INSTANCES = [{'name': 'leaf'}, {'name': 'Leaf'}, {'name': 'leaf', 'ip': '10.0.0.1'}, {'name': 'leaf', 'ip': '10.0'},
             {}, {'name': 'leaf', 'other': 1}, {'name': 3}]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / 'cache'
    monkeypatch.setenv(compile_cache.CACHE_ENV, str(directory))
    compile_cache.cache_directory.cache_clear()
    yield directory
    compile_cache.cache_directory.cache_clear()


def entries(directory):
    return sorted(os.path.relpath(os.path.join(root, name), directory)
                  for root, dummy, files in os.walk(directory) for name in files)


def verdicts(validate):
    found = []
    for instance in INSTANCES:
        try:
            validate(dict(instance))
            found.append(True)
        except fastjsonschema.JsonSchemaException:
            found.append(False)
    return found


def render(template_dir, cache):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir)), bytecode_cache=cache, trim_blocks=True)
    return env.get_template('device.j2').render(name='leaf001')


def test_the_directory_is_created_private_and_used(cache_dir):
    assert compile_cache.cache_directory() == str(cache_dir)
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700
    compile_cache.write('kind', 'key', b'data')
    assert compile_cache.read('kind', 'key') == b'data'
    assert entries(cache_dir) == ['kind/key']


@pytest.mark.parametrize('value', ['off', 'OFF', '', '0'])
def test_the_cache_can_be_turned_off(cache_dir, monkeypatch, value):
    monkeypatch.setenv(compile_cache.CACHE_ENV, value)
    compile_cache.cache_directory.cache_clear()
    assert compile_cache.cache_directory() is None
    compile_cache.write('kind', 'key', b'data')
    assert compile_cache.read('kind', 'key') is None
    assert not cache_dir.exists()


def test_a_directory_others_can_write_is_not_used(cache_dir):
    cache_dir.mkdir(mode=0o700)
    os.chmod(cache_dir, 0o777)  # anyone could plant code there: never read it
    compile_cache.cache_directory.cache_clear()
    assert compile_cache.cache_directory() is None
    (cache_dir / 'kind').mkdir()
    (cache_dir / 'kind' / 'key').write_bytes(b'planted')
    assert compile_cache.read('kind', 'key') is None
    validate = compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)
    assert verdicts(validate) == verdicts(fastjsonschema.compile(SCHEMA, formats=FORMATS, use_default=False))
    assert entries(cache_dir) == ['kind/key']


def test_writes_that_fail_cost_only_speed(cache_dir):
    """A cache that cannot take an entry (here a file where its folder should be; for root, whom permissions do
    not stop, this is what a read-only or full file system looks like) changes nothing but speed."""
    cache_dir.mkdir(mode=0o700)
    compile_cache.cache_directory.cache_clear()
    namespace = 'fastjsonschema-%s-%s' % (fastjsonschema.VERSION, sys.implementation.cache_tag)
    (cache_dir / namespace).write_text('not a directory')
    for dummy in range(2):
        validate = compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)
        assert verdicts(validate) == [True, False, True, False, False, False, False]
    assert entries(cache_dir) == [namespace]


def test_an_unwritable_cache_costs_only_speed(cache_dir):
    cache_dir.write_text('a file where the directory should be')
    compile_cache.cache_directory.cache_clear()
    assert compile_cache.cache_directory() is None
    validate = compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)
    assert verdicts(validate) == [True, False, True, False, False, False, False]


def test_the_schema_validator_is_compiled_once_and_judges_like_fastjsonschema(cache_dir):
    expected = verdicts(fastjsonschema.compile(SCHEMA, formats=FORMATS, use_default=False))
    assert expected == [True, False, True, False, False, False, False]
    assert verdicts(compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)) == expected
    (stored,) = entries(cache_dir)
    assert verdicts(compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)) == expected  # from the cache
    assert entries(cache_dir) == [stored]
    # Another schema is another entry; the first stays valid for its own schema.
    stricter = dict(SCHEMA, required=['name', 'ip'])
    assert verdicts(compile_cache.schema_validator(stricter, FORMATS, use_default=False)) == \
        [False, False, True, False, False, False, False]
    assert len(entries(cache_dir)) == 2


def test_a_corrupt_schema_entry_is_compiled_again(cache_dir):
    compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)
    (stored,) = entries(cache_dir)
    (cache_dir / stored).write_bytes(b'\x00not marshal data')
    assert verdicts(compile_cache.schema_validator(SCHEMA, FORMATS, use_default=False)) == \
        [True, False, True, False, False, False, False]
    assert (cache_dir / stored).read_bytes() != b'\x00not marshal data'


def test_templates_are_compiled_once_and_again_when_their_source_changes(cache_dir, tmp_path):
    templates = tmp_path / 'templates'
    templates.mkdir()
    (templates / 'device.j2').write_text('hostname {{ name }}\n')
    cache = compile_cache.template_cache({'trim_blocks': True})
    assert render(templates, cache) == 'hostname leaf001'
    (stored,) = entries(cache_dir)
    assert render(templates, cache) == 'hostname leaf001'  # a new environment loads the stored bytecode
    (templates / 'device.j2').write_text('hostname {{ name | upper }}\n')
    assert render(templates, cache) == 'hostname LEAF001'  # a changed source is never served stale
    assert entries(cache_dir) == [stored]  # same template: its entry is replaced


def test_stored_template_bytecode_is_what_renders(cache_dir, tmp_path):
    """The stored entry is really used: bytecode planted under the template's key (valid for its checksum) is what a
    new environment runs, so a cache hit skips compilation."""
    templates = tmp_path / 'templates'
    templates.mkdir()
    (templates / 'device.j2').write_text('hostname {{ name }}\n')
    cache = compile_cache.template_cache({'trim_blocks': True})
    render(templates, cache)
    (stored,) = entries(cache_dir)
    namespace, key = stored.split(os.sep)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)), trim_blocks=True)
    bucket = jinja2.bccache.Bucket(env, key, jinja2.bccache.BytecodeCache().get_source_checksum('hostname {{ name }}\n'))
    bucket.code = env.compile('other {{ name }}\n', 'device.j2', str(templates / 'device.j2'))
    compile_cache.write(namespace, key, bucket.bytecode_to_string())
    assert render(templates, cache) == 'other leaf001'


def test_the_template_namespace_follows_the_options(cache_dir):
    assert compile_cache.template_cache({'trim_blocks': True}).namespace != \
        compile_cache.template_cache({'trim_blocks': False}).namespace


RENDER_IN_A_FRESH_PROCESS = '''
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
design = design_from_file(sys.argv[2])
digest = hashlib.sha256()
for name in sorted(design.nodes):
    for path, text in sorted(render_model(design.device(name), user_hashes=None).items()):
        digest.update(path.encode() + b'\\0' + text.encode() + b'\\0')
print(digest.hexdigest(), 'jsonschema' in sys.modules)
'''


def test_a_fresh_process_renders_the_same_bytes_from_the_cache(cache_dir, tmp_path):
    """What render and intent validation store is what a new process uses, and it renders byte for byte what a
    process without a cache renders."""
    root = os.path.abspath(__file__)
    for dummy in range(6):  # tests/unit/plugins/plugin_utils/fabric/<this file>
        root = os.path.dirname(root)
    package = os.path.abspath(compile_cache.__file__)
    collections = package[:package.rindex(os.sep + 'ansible_collections' + os.sep)]
    intent = os.path.join(root, 'tests', 'doubles', 'fixtures', 'mixed.yml')

    def fresh(cache):
        env = dict(os.environ, **{compile_cache.CACHE_ENV: cache})
        result = subprocess.run([sys.executable, '-c', RENDER_IN_A_FRESH_PROCESS, collections, intent], env=env,
                                capture_output=True, text=True, check=False, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    without, imported = fresh('off').split()
    assert imported == 'True'  # jsonschema validated the switch models (and the intent)
    assert fresh(str(cache_dir)).split()[0] == without
    stored = entries(cache_dir)
    kinds = {name.split(os.sep)[0].split('-')[0] for name in stored}
    assert kinds == {'jinja2', 'fastjsonschema', 'switch', 'yaml'}, stored
    # From the cache: the same bytes, nothing compiled or stored again, and jsonschema never imported.
    assert fresh(str(cache_dir)) == '%s False' % without
    assert entries(cache_dir) == stored


def test_a_verdict_is_kept_for_the_same_files_only(cache_dir, tmp_path):
    model, schema = tmp_path / 'model.yml', tmp_path / 'schema.yml'
    model.write_text('name: a\n')
    schema.write_text('type: object\n')
    digest = compile_cache.files_digest([str(schema), str(model)], 'jsonschema')
    assert not compile_cache.known_valid('models', digest)
    compile_cache.note_valid('models', digest)
    assert compile_cache.known_valid('models', digest)
    model.write_text('name: b\n')
    assert compile_cache.files_digest([str(schema), str(model)], 'jsonschema') != digest
    assert compile_cache.files_digest([str(schema), str(model)], 'fastjsonschema') != \
        compile_cache.files_digest([str(schema), str(model)], 'jsonschema')


def test_shipped_yaml_is_parsed_once_per_content_and_read_back_the_same(cache_dir):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import load_package_yaml
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import SCHEMA_PATH
    import yaml
    with open(SCHEMA_PATH, encoding='utf-8') as handle:
        expected = yaml.safe_load(handle)
    assert load_package_yaml(SCHEMA_PATH) == expected and entries(cache_dir)  # parsed, then kept
    calls = []

    def parse(text):
        calls.append(text)
        return yaml.safe_load(text)
    assert compile_cache.parsed('yaml', open(SCHEMA_PATH, 'rb').read(), parse) == expected and calls == []
    assert compile_cache.parsed('yaml', b'a: 2\n', parse) == {'a': 2} and len(calls) == 1  # other bytes, other entry


def test_a_damaged_or_unmarshalable_parsed_entry_is_parsed_again(cache_dir):
    import datetime
    data = compile_cache.parsed('yaml', b'x: 1\n', lambda text: {'x': 1})
    for path in entries(cache_dir):
        (cache_dir / path).write_bytes(b'\xff\x00 not marshal')
    assert compile_cache.parsed('yaml', b'x: 1\n', lambda text: {'x': 'again'}) == {'x': 'again'} != data
    day = {'when': datetime.date(2026, 12, 2)}
    assert compile_cache.parsed('yaml', b'when: 2026-12-02\n', lambda text: day) == day  # kept only in memory
    assert compile_cache.parsed('yaml', b'when: 2026-12-02\n', lambda text: {'when': 'parsed'}) == {'when': 'parsed'}
