# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""render_devices and render_into: worker processes give the serial render's items and files, in the same order,
to the byte; workers that write their devices' files leave the output exactly as one process does."""

import os

import jinja2
import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import docs, render
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import (
    OutputError, StagedOutput, read_manifest)
from tests.unit.utils.files import read_tree
from tests.unit.utils.paths import ROOT

POD1K = os.path.join(ROOT, 'fabrics', 'pod1k.yml')


def test_two_workers_render_what_one_renders(monkeypatch):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    serial = list(render.render_devices(design, names, workers=1, pages=True))
    monkeypatch.setattr(render, 'PARALLEL_MIN_DEVICES', 1)
    monkeypatch.setattr(render, 'CHUNK', 7)  # many chunks, so that their order matters
    started = []
    real_pool = render.multiprocessing.get_context('fork').Pool

    def pool(workers, **options):
        started.append(workers)
        return real_pool(workers, **options)
    monkeypatch.setattr(render.multiprocessing.get_context('fork'), 'Pool', pool, raising=False)
    parallel = list(render.render_devices(design, names, workers=2, pages=True))
    assert started == [2]  # the worker processes did the rendering
    assert [item['name'] for item in parallel] == names
    assert parallel == serial
    assert all(item['files'] and item['page'] for item in parallel)


def test_a_failing_device_is_reported_from_a_worker_and_the_others_still_render(monkeypatch):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    victim = names[len(names) // 2]
    original = render.render_model

    def exploding(model, user_hashes=None):
        if model['name'] == victim:
            raise ValueError('template exploded')
        return original(model)
    monkeypatch.setattr(render, 'render_model', exploding)
    monkeypatch.setattr(render, 'PARALLEL_MIN_DEVICES', 1)
    items = {item['name']: item for item in render.render_devices(design, names, workers=2)}
    assert items[victim]['error'] == 'ValueError: template exploded' and items[victim]['files'] is None
    assert all(item['files'] for name, item in items.items() if name != victim)


def _render_into(design, names, dest, workers, **options):
    """One render of `names` into dest; (items, summary, files in put() order, on_change calls)."""
    changes = []
    with StagedOutput(str(dest), on_change=lambda relative, old, new: changes.append((relative, old, new)),
                      check_mode=options.pop('check_mode', False)) as output:
        items = list(render.render_into(design, names, output, workers=workers, **options))
        written = list(output.written)
        summary = output.finish(roots=['configs', 'docs'], prune=['configs', 'docs'])
    return items, summary, written, changes


@pytest.fixture(name='many_chunks')
def fixture_many_chunks(monkeypatch):
    monkeypatch.setattr(render, 'PARALLEL_MIN_DEVICES', 1)
    monkeypatch.setattr(render, 'CHUNK', 7)


def test_workers_write_what_one_process_writes(tmp_path, many_chunks):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    documents = [('docs/%s' % relative, make) for relative, make in docs.fabric_documents(design)]
    serial = _render_into(design, names, tmp_path / 'serial', 1, pages=True, documents=documents)
    parallel = _render_into(design, names, tmp_path / 'parallel', 2, pages=True, documents=documents)
    assert parallel[0] == serial[0]  # items: names, file counts, sizes, in order, the documents last
    assert [item['name'] for item in parallel[0]] == names + [relative for relative, _unused in documents]
    assert all(item['files'] and not item['error'] for item in parallel[0])
    assert parallel[2][-len(documents):] == [relative for relative, _unused in documents]
    assert parallel[2] == serial[2]  # every file put, in the same order
    assert parallel[3] == serial[3]  # on_change saw the same files with the same content, in the parent
    assert (parallel[1]['written'], parallel[1]['files']) == (serial[1]['written'], serial[1]['files'])
    tree = read_tree(tmp_path / 'parallel')
    serial_tree = read_tree(tmp_path / 'serial')
    assert tree.pop('manifest.json') != b'' and serial_tree.pop('manifest.json') != b''  # created: differs
    assert tree == serial_tree
    assert read_manifest(str(tmp_path / 'parallel'))['files'] == read_manifest(str(tmp_path / 'serial'))['files']
    assert sum(item['bytes'] for item in parallel[0]) == sum(len(data) for data in tree.values())


def test_workers_find_unchanged_files_and_report_changed_ones(tmp_path, many_chunks):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    _render_into(design, names, tmp_path / 'out', 2)
    items, summary, written, changes = _render_into(design, names, tmp_path / 'out', 2)
    assert (summary['changed'], summary['written'], written, changes) == (False, 0, [], [])
    assert summary['unchanged'] == sum(item['files'] for item in items)
    # one device's file edited by hand: the workers find and report exactly that one
    relative = 'configs/%s/%s' % (names[5], sorted(render.render_device(design, names[5]))[0])
    victim = os.path.join(str(tmp_path / 'out'), relative)
    with open(victim, encoding='utf-8') as handle:
        original = handle.read()
    os.chmod(victim, 0o644)
    os.unlink(victim)  # a hard link shared with the previous generation: replace, do not edit in place
    with open(victim, 'w', encoding='utf-8') as handle:
        handle.write('edited\n')
    _items, summary, written, changes = _render_into(design, names, tmp_path / 'out', 2)
    assert written == [relative] and summary['written'] == 1
    assert changes == [(relative, b'edited\n', original.encode())]
    with open(victim, encoding='utf-8') as handle:
        assert handle.read() == original


def test_workers_in_check_mode_write_nothing(tmp_path, many_chunks):
    design = design_from_file(POD1K)
    _items, summary, written, changes = _render_into(design, list(design.nodes), tmp_path / 'out', 2,
                                                     check_mode=True)
    assert summary['changed'] is True and len(written) == summary['written'] == len(changes) > 0
    assert os.listdir(tmp_path) == []


def test_a_file_name_a_worker_refuses_fails_the_render_and_leaves_the_output(tmp_path, many_chunks, monkeypatch):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    _render_into(design, names, tmp_path / 'out', 2)
    before = read_tree(tmp_path / 'out')
    original = render.render_model

    def hostile(model, user_hashes=None):
        files = original(model, user_hashes)
        if model['name'] == names[-1]:
            files['../../escaped'] = 'x'
        return files
    monkeypatch.setattr(render, 'render_model', hostile)
    with pytest.raises(OutputError, match='escaped'):
        _render_into(design, names, tmp_path / 'out', 2)
    assert read_tree(tmp_path / 'out') == before
    assert sorted(os.listdir(tmp_path)) == ['.out.generations', '.out.lock', 'out']
    assert sorted(os.listdir(tmp_path / '.out.generations')) == ['g000001', 'store']
    assert os.listdir(tmp_path / '.out.generations' / 'store') == ['g000001']  # the failed one's directories: gone


def test_without_an_output_the_workers_only_count(many_chunks):
    design = design_from_file(POD1K)
    names = list(design.nodes)
    items = list(render.render_into(design, names, None, workers=2))
    expected = {name: render.render_device(design, name) for name in names}
    assert [(item['name'], item['files'], item['bytes']) for item in items] == [
        (name, len(files), sum(len(text.encode()) for text in files.values())) for name, files in expected.items()]


def test_templates_read_dict_fields_and_still_reach_dict_methods():
    env = render.environment()
    model = {'ip': '10.0.0.1', 'keys': 'a field named like a method', 'nested': {'name': 'x'}}
    text = env.from_string('{{ m.ip }} {{ m.nested.name }} {{ m.keys() | sort | join(",") }}').render(m=model)
    assert text == '10.0.0.1 x ip,keys,nested'
    with pytest.raises(jinja2.UndefinedError):
        env.from_string('{{ m.absent }}').render(m=model)


def test_a_failing_document_is_reported_from_a_worker_and_the_others_are_written(tmp_path, many_chunks):
    design = design_from_file(POD1K)
    names = list(design.nodes)

    def broken():
        raise ValueError('no such table')
    documents = [('docs/index.md', lambda: 'index\n'), ('docs/broken.md', broken), ('docs/last.md', lambda: 'last\n')]
    with StagedOutput(str(tmp_path / 'out')) as output:
        items = list(render.render_into(design, names, output, workers=2, documents=documents))
        assert [(item['name'], item['files'], item['error']) for item in items[len(names):]] == [
            ('docs/index.md', 1, None), ('docs/broken.md', 0, 'ValueError: no such table'), ('docs/last.md', 1, None)]
        assert list(output.written)[-2:] == ['docs/index.md', 'docs/last.md']
