# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The invalid-intent corpus (tests/unit/fixtures/invalid_intents): every file is refused, through the Python API and
through `ansible-playbook playbooks/render.yml`, with a message that names the field (or the file and line), no
traceback, no exception class name, and nothing written.

Each corpus file starts with comments: a description, then one `# expect: <path> :: <words>` line per problem that
must be reported, and `# absent: <words>` for text of the file that must never be shown (a file that is not an
intent at all is refused without echoing its content). `{file}` stands for the intent file's path; `{file}:` alone
means "some line of the file".
The files are named *.intent, not *.yml: ansible-test's yamllint would try (and fail) to parse them.
"""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import MAX_BYTES
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

CORPUS = os.path.join(ROOT, 'tests', 'unit', 'fixtures', 'invalid_intents')
FABRIC_CONFIG = 'plugin: aifabric.fabric.fabric\nintent: intent.yml\n'
# An exception class name in what a user sees means a crash leaked through, whatever the exit code.
EXCEPTION_NAME = re.compile(r'\b[A-Z][A-Za-z]*(?:Error|Exception)\b|Traceback')
PLAYBOOK_WORKERS = 4
INVENTORY_SAMPLE_STEP = 7  # one ansible-playbook per intent costs about a second: a sample goes through the inventory


def _cases():
    cases = []
    for name in sorted(os.listdir(CORPUS)):
        expects = []
        with open(os.path.join(CORPUS, name), 'rb') as handle:
            lines = [raw.decode('utf-8').rstrip('\n') for raw in iter(handle.readline, b'') if raw.startswith(b'#')]
        for line in lines:
            if line.startswith('# expect: '):
                path, words = line[len('# expect: '):].split(' :: ', 1)
                expects.append((path, words))
            elif line.startswith('# absent: '):
                expects.append((ABSENT, line[len('# absent: '):]))
        assert any(path is not ABSENT for path, _words in expects), '%s has no "# expect:" line' % name
        cases.append((name, expects))
    return cases


ABSENT = None  # an expects entry (ABSENT, words): the words must not appear in what the user sees
CASES = _cases()


def _generated(tmp_path):
    """Cases too big to keep in the repository: written at test time."""
    huge = tmp_path / 'huge.yml'
    with open(huge, 'wb') as handle:
        handle.write(b'name: huge\n')
        handle.write(b'# padding\n' * (5 * 1024 * 1024))  # 50 MiB of comments
    sparse = tmp_path / 'sparse.yml'
    with open(sparse, 'wb') as handle:
        handle.truncate(MAX_BYTES + 1)  # a sparse file: large by size, nothing on disk
    latin1 = tmp_path / 'latin1.yml'  # not in the corpus directory: sanity tests read every file there as UTF-8
    latin1.write_bytes(b'name: caf\xe9\ntopology: {rail_optimized: {servers: 4}}\n')
    return [(str(huge), [('{file}', 'an intent may be at most')]), (str(sparse), [('{file}', 'an intent may be at most')]),
            (str(latin1), [('{file}:1', 'is not UTF-8')])]


def _matches(issue_path, expected, path):
    expected = expected.replace('{file}', path)
    if expected.endswith(':') and expected.startswith(path):
        return issue_path.startswith(expected)
    return issue_path == expected


def test_the_corpus_is_large_and_distinct():
    assert len(CASES) >= 120
    bodies = set()
    for name, _expects in CASES:
        with open(os.path.join(CORPUS, name), 'rb') as handle:
            body = b''.join(line for line in handle if not line.startswith(b'#'))
        assert body not in bodies, '%s duplicates another case' % name
        bodies.add(body)


# A guard against hangs and blow-ups, not a speed target (benchmarks/ measure speed on a quiet machine).
HANG_GUARD_S = 60


def _check_api(path, expects):
    started = time.perf_counter()
    with pytest.raises(IntentError) as caught:
        design_from_file(path)
    elapsed = time.perf_counter() - started
    report = caught.value.report()
    for expected, words in expects:
        if expected is ABSENT:
            assert words not in report, 'the file\'s own text %r is shown:\n%s' % (words, report)
            continue
        found = [issue for issue in caught.value.issues if _matches(issue.path, expected, path)]
        assert found, 'no issue at %s in:\n%s' % (expected, report)
        assert any(words in issue.message for issue in found), 'no "%s" at %s in:\n%s' % (words, expected, report)
    assert not EXCEPTION_NAME.search(report), report
    assert elapsed < HANG_GUARD_S, 'took %.1f s' % elapsed  # a YAML bomb or a huge range must not hang


@pytest.mark.parametrize('name, expects', CASES, ids=[name for name, _unused in CASES])
def test_python_api_refuses(name, expects):
    _check_api(os.path.join(CORPUS, name), expects)


def test_python_api_refuses_generated(tmp_path):
    for path, expects in _generated(tmp_path):
        _check_api(path, expects)


def _playbook(inventory, *args):
    env = ansible_env(ANSIBLE_CALLBACK_RESULT_FORMAT='json', ANSIBLE_CALLBACK_FORMAT_PRETTY='false')
    return subprocess.run(ansible_cli('playbook') + ['-i', inventory, os.path.join(ROOT, 'playbooks', 'render.yml')]
                          + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def _jobs(tmp_path):
    """(label, intent path, expects) of every corpus file and of the generated cases, each in its own directory with
    a fabric.yml next to it (so the same directory also serves as an inventory)."""
    sources = [(name, os.path.join(CORPUS, name), expects) for name, expects in CASES] + [
        (os.path.basename(path), path, expects) for path, expects in _generated(tmp_path)]
    jobs = []
    for index, (name, source, expects) in enumerate(sources):
        case_dir = tmp_path / ('case%03d' % index)
        case_dir.mkdir()
        (case_dir / 'fabric.yml').write_text(FABRIC_CONFIG)
        intent = case_dir / 'intent.yml'
        try:
            os.link(source, intent)  # the 50 MiB case need not be copied
        except OSError:
            shutil.copy(source, intent)
        jobs.append(('case%03d' % index, name, str(intent), expects))
    return jobs


RESULT_LINE = re.compile(r'^(failed|ok|changed): \[localhost\] \(item=(case\d+)\) => (\{.*\})$', re.MULTILINE)


def test_playbook_refuses_every_case(tmp_path):
    """All cases through playbooks/render.yml in ONE run: its render task loops over the intents (the
    items of the aifabric.fabric.render_targets lookup, given whole as the extra variable aifabric_render_targets), and
    every item must fail alone with its own message. One ansible-playbook for the corpus keeps this under a minute on two cores."""
    jobs = _jobs(tmp_path)
    out = tmp_path / 'out'
    extra = tmp_path / 'extra.json'
    extra.write_text(json.dumps({'aifabric_render_targets': [
        {'fabric': label, 'intent': intent, 'directory': str(out), 'by_base': True, 'group': None, 'devices': None}
        for label, _name, intent, _unused in jobs]}))
    result = _playbook('localhost,', '-e', '@%s' % extra)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert not EXCEPTION_NAME.search(output), EXCEPTION_NAME.search(output).group(0) + '\n' + output[-3000:]
    items = {match.group(2): (match.group(1), json.loads(match.group(3))) for match in RESULT_LINE.finditer(output)}
    assert len(items) == len(jobs), output[-3000:]
    failures = []
    for label, name, intent, expects in jobs:
        status, item = items.get(label, ('missing', {}))
        message = item.get('msg', '')
        problems = [] if status == 'failed' else ['status %s' % status]
        for expected, words in expects:
            if expected is ABSENT:
                if words in message.replace(intent, ''):
                    problems.append('shows "%s"' % words)
                continue
            where = expected.replace('{file}', intent)
            if where not in message or words not in message:
                problems.append('no "%s" ... "%s"' % (where, words))
        if problems:
            failures.append('%s (%s): %s\n%s' % (name, label, '; '.join(problems), message[:1500]))
    assert not failures, '\n\n'.join(failures[:10]) + '\n(%d failing cases)' % len(failures)
    assert not out.exists(), 'something was written'


def test_inventory_reports_a_bad_intent_once(tmp_path):
    """Through the inventory plugin (-i <dir with fabric.yml>), a sample of the corpus (every 7th case and the generated
    ones): exit code 4, the field named, ONE error message, no exception name, nothing written."""
    jobs = _jobs(tmp_path)
    sample = jobs[::INVENTORY_SAMPLE_STEP] + [job for job in jobs if job[1] in ('huge.yml', 'sparse.yml', 'latin1.yml')]

    def run(job):
        label, _name, intent, _expects = job
        return job, _playbook(os.path.dirname(intent), '-e', 'aifabric_render_out=%s' % (tmp_path / ('out-' + label)))

    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=PLAYBOOK_WORKERS) as pool:
        for (label, name, intent, expects), result in pool.map(run, sample):
            output = result.stdout + result.stderr
            # ansible-core < 2.19 wraps errors at 80 columns, at spaces and after hyphens: compare without whitespace.
            unwrapped = ''.join(output.split())
            problems = [] if result.returncode == 4 else ['exit code %d' % result.returncode]
            for expected, words in expects:
                if expected is ABSENT:
                    if words in output.replace(intent, ''):
                        problems.append('shows "%s"' % words)
                    continue
                where = expected.replace('{file}', intent)
                if ''.join(where.split()) not in unwrapped or ''.join(words.split()) not in unwrapped:
                    problems.append('no "%s" ... "%s"' % (where, words))
            if EXCEPTION_NAME.search(output):
                problems.append('exception name %r' % EXCEPTION_NAME.search(output).group(0))
            if output.count('[ERROR]') != 1 or '[WARNING]' in output:
                problems.append('%d errors and %d warnings, not one error' % (output.count('[ERROR]'),
                                                                              output.count('[WARNING]')))
            if (tmp_path / ('out-' + label)).exists():
                problems.append('output written')
            if problems:
                failures.append('%s: %s\n%s' % (name, '; '.join(problems), output[-1500:]))
    assert not failures, '\n\n'.join(failures[:10]) + '\n(%d failing cases)' % len(failures)
