# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render device models into configuration files: one template set per platform, formatting only.

Contract: plugins/plugin_utils/fabric/platforms/<platform>/render.py defines
    render(model: dict, env: jinja2.Environment) -> dict[str, str]   # file name -> content
and hosts.py does the same for GPU servers; render_fabric() returns the files of the fabric as a whole.
Renderers must not compute design data; they format the model. Templates are named '<folder>/<file>': the
platform's own under its name (platforms/<platform>/templates/), the shared ones (templates/docs, templates/hosts).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal

from .environment import environment
from .model import DeviceModel
from .output import CONFIGS, DOCS
from .platforms import registered


def _renderer(kind: str):
    if kind == 'host':
        from . import hosts
        return hosts.render
    return registered()[kind].part('render').render


# --------------------------------------------------------------------------- secrets
USERS_VARIABLE = 'aifabric_switch_users'
# SHA-512 crypt (`mkpasswd -m sha-512`, `openssl passwd -6`): the one hash every platform's NOS accepts.
SHA512_CRYPT = re.compile(r'^\$6\$(?:rounds=[0-9]{4,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$')


class SecretsError(ValueError):
    """A secret the rendered configuration needs is missing or malformed (the message never holds its value)."""


def switch_user_hashes(declared, users) -> dict:
    """{name: hash} for the users the intent declares, from the Ansible variable aifabric_switch_users.

    `declared`: the intent's management.users; `users`: the variable's value ({name: hash}) or None."""
    if not declared:
        return {}
    if not isinstance(users, dict):
        raise SecretsError('%s is not set: management.users declares %s; give each a SHA-512 crypt hash '
                           '({name: "$6$..."}, from `mkpasswd -m sha-512`), best from Ansible Vault'
                           % (USERS_VARIABLE, ', '.join(user['name'] for user in declared)))
    problems = []
    for user in declared:
        value = users.get(user['name'])
        if value is None:
            problems.append('%s.%s is missing (management.users declares it)' % (USERS_VARIABLE, user['name']))
        elif not isinstance(value, str) or not SHA512_CRYPT.match(value):
            problems.append('%s.%s is not a SHA-512 crypt hash ("$6$<salt>$<86 characters>"); clear-text '
                            'passwords are refused' % (USERS_VARIABLE, user['name']))
    if problems:
        raise SecretsError('; '.join(problems))
    return {user['name']: users[user['name']] for user in declared}


def with_user_hashes(model: DeviceModel, hashes) -> DeviceModel:
    """The model with each management user's hash (a copy: design models are cached and shared). hashes=None is a
    design view (the state parsers read the rendered QoS from it): no users at all, never a file to deploy."""
    if model['role'] == 'host' or not model['management']['users']:
        return model
    management = model['management']
    if hashes is None:
        return {**model, 'management': {**management, 'users': []}}
    missing = [user['name'] for user in management['users'] if not (hashes or {}).get(user['name'])]
    if missing:
        raise SecretsError('%s: no password hash for %s (set %s)' % (model['name'], ', '.join(missing), USERS_VARIABLE))
    users = [dict(user, hash=hashes[user['name']]) for user in management['users']]
    return {**model, 'management': {**management, 'users': users}}


def render_model(model: DeviceModel, user_hashes=None) -> dict[str, str]:
    """Files for one device model: {relative file name: content}. `user_hashes`: see switch_user_hashes(); None
    renders a design view without local users (see with_user_hashes)."""
    kind = 'host' if model['role'] == 'host' else model['platform']
    return _renderer(kind)(with_user_hashes(model, user_hashes), environment())


def render_device(design, name: str, user_hashes=None) -> dict:
    """The files of one device as they are deployed: every declared user needs its hash."""
    return render_model(design.device(name), {} if user_hashes is None else user_hashes)


def render_fabric(design) -> dict:
    """Files that belong to the fabric, not to one device: the Kubernetes rail networks (once per fabric)."""
    if not design.hosts():
        return {}
    from . import hosts
    return hosts.render_kubernetes(design.kubernetes(), design.name, environment())


# --------------------------------------------------------------------------- many devices, both cores
PARALLEL_MIN_DEVICES = 256  # below this, starting worker processes costs more than it saves
CHUNK = 64
_WORK = {}  # what forked workers inherit: the design, what to render and where to put it


def renderer_missing(exc_name, exc_module, model) -> bool:
    """True when the error says the renderer module of this device's platform does not exist (yet)."""
    if exc_name != 'ModuleNotFoundError':
        return False
    if model['role'] == 'host':
        return (exc_module or '').rsplit('.', 1)[-1] == 'hosts'
    platform = registered().get(model['platform'])
    return platform is not None and exc_module == '%s.render' % platform.package


def _render_one(design, name, pages, user_hashes=None):
    """{name, files, page, error, missing}: one device, errors as text (they cross process boundaries)."""
    model = design.device(name)
    item = {'name': name, 'files': None, 'page': None, 'error': None, 'missing': None}
    try:
        item['files'] = render_model(model, user_hashes)
    except Exception as exc:  # one device's failure must not hide the others'
        if renderer_missing(type(exc).__name__, getattr(exc, 'name', None), model):
            item['missing'] = 'GPU servers (hosts.py)' if model['role'] == 'host' else 'platform %s' % model['platform']
        else:
            item['error'] = '%s: %s' % (type(exc).__name__, exc)
        return item
    if pages:
        from . import docs
        item['page'] = docs.device_page(design, model, sorted(item['files']))
    return item


def _put_texts(item, texts, output, secrets=()):
    """Put `texts` into `output`; a file that carries one of `secrets` (password hashes) is private (mode 0600)."""
    item['files'] = item['bytes'] = 0
    for relative, text in texts:
        item['files'] += 1
        item['bytes'] += len(text) if text.isascii() else len(text.encode('utf-8'))
        if output is not None:
            output.put(relative, text, private=any(secret in text for secret in secrets))
    return item


def _put_device(design, name, pages, user_hashes, output):
    """_render_one with the files and page put into `output` (None: dropped); the item keeps their count and size."""
    item = _render_one(design, name, pages, user_hashes)
    files, page = item.pop('files'), item.pop('page')
    texts = [('%s/%s/%s' % (CONFIGS, name, file_name), files[file_name]) for file_name in sorted(files or ())]
    if page:
        texts.append(('%s/%s' % (DOCS, page[0]), page[1]))
    return _put_texts(item, texts, output, secrets=tuple((user_hashes or {}).values()))


def _put_document(relative, make, output):
    """One fabric-wide file, made by make() and put into `output`; an item like a device's, named by its path."""
    item = {'name': relative, 'error': None, 'missing': None}
    try:
        text = make()
    except Exception as exc:  # reported like a device's failure
        item['error'] = '%s: %s' % (type(exc).__name__, exc)
        return _put_texts(item, (), output)
    return _put_texts(item, [(relative, text)], output)


def _render_chunk(names):
    return [_render_one(_WORK['design'], name, _WORK['pages'], _WORK['user_hashes']) for name in names]


def _put_task(task):
    """One task of render_into's workers: ('devices', names) or ('document', index); the items and what the
    worker's output recorded."""
    kind, payload = task
    output = _WORK['output']
    if kind == 'devices':
        items = [_put_device(_WORK['design'], name, _WORK['pages'], _WORK['user_hashes'], output) for name in payload]
    else:
        items = [_put_document(*_WORK['documents'][payload], output)]
    return items, output.take_changes() if output is not None else None


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _start_worker():
    # A worker forked from Ansible's task worker inherits its SIGTERM/SIGINT handler (WorkerProcess._term), which
    # raises in a process it did not start instead of ending it; Pool.terminate() then waits for ever on a worker that
    # lived on. Workers end on these signals, as processes do by default; they are born with both blocked (see
    # _pool_results), so one sent before this point ends the worker here.
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    if _WORK.get('output') is not None:
        _WORK['output'].start_worker()


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _parallel(workers, devices) -> int:
    """Worker processes for `devices` devices: 0 when one process is better (few devices, one CPU, no fork)."""
    workers = default_workers() if workers is None else max(1, workers)
    if workers == 1 or devices < PARALLEL_MIN_DEVICES or 'fork' not in multiprocessing.get_all_start_methods():
        return 0
    return workers


def _device_chunks(names):
    return [names[start:start + CHUNK] for start in range(0, len(names), CHUNK)]


def _pool_results(design, names, workers, function, tasks, work):
    """function(task) for each task, in order, from `workers` forked processes that inherit `work`."""
    design.device(names[0])  # lazily built design tables, built once here rather than once per worker
    _WORK.update(work, design=design, function=function, stop=multiprocessing.get_context('fork').Event())
    try:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)  # until each worker has reset its handlers
        try:
            pool = multiprocessing.get_context('fork').Pool(workers, initializer=_start_worker)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        with pool:
            try:
                yield from pool.imap(_run_task, tasks)
            except GeneratorExit:
                # The caller stopped early (a write error, a closed generator): the workers skip what is left and
                # leave by themselves. Pool.terminate() would kill them, and one killed while it holds the result
                # queue's lock leaves the pool's own threads waiting for that lock for ever.
                _WORK['stop'].set()
            pool.close()
            pool.join()
    finally:
        _WORK.clear()


def _run_task(task):
    """A pool worker's task: `_WORK['function'](task)`, or nothing once the caller has stopped."""
    return None if _WORK['stop'].is_set() else _WORK['function'](task)


def render_devices(design, names, workers=None, pages=False, user_hashes=None):
    """Yield each device's rendered item (see _render_one), in the order of `names`.

    With more than one worker and enough devices, forked worker processes render chunks of devices while the
    caller consumes the results in order, so the output is byte-identical to a serial run."""
    user_hashes = {} if user_hashes is None else user_hashes  # files to deploy: every declared user needs a hash
    workers = _parallel(workers, len(names))
    if not workers:
        for name in names:
            yield _render_one(design, name, pages, user_hashes)
        return
    for items in _pool_results(design, names, workers, _render_chunk, _device_chunks(names),
                               {'pages': pages, 'user_hashes': user_hashes}):
        yield from items


def render_into(design, names, output, workers=None, pages=False, user_hashes=None, documents=()):
    """Render `names` and put each device's files (configs/<device>/<file>, and its page under docs/ with
    pages=True) into `output`, an open output.StagedOutput (None: render and drop, to measure the renderers alone),
    then each of `documents`, [(relative path, make() -> text)] (the fabric's own files, docs.fabric_documents).
    Yield one item per device in the order of `names`, then one per document: {name (a document's: its path),
    files (count), bytes, error, missing}.

    With more than one worker and enough devices, the workers render, compare and write the files themselves,
    so the rendered text never crosses a process boundary; the caller's output adopts what they staged in this
    same order, so the result is a serial run's, file for file."""
    user_hashes = {} if user_hashes is None else user_hashes
    documents = list(documents)
    # The fabric's documents cost what its size costs, also when only a few devices are rendered (a --limit).
    workers = _parallel(workers, max(len(names), len(design.nodes) if documents else 0)) if names else 0
    if not workers:
        for name in names:
            yield _put_device(design, name, pages, user_hashes, output)
        for relative, make in documents:
            yield _put_document(relative, make, output)
        return
    if output is not None:
        output.prepare_workers()  # before the workers fork: they all stage into one directory
    # The documents go to the workers first (the largest take longer than a chunk of devices: at the end they
    # would leave a core idle) and are adopted last, where a serial run puts them.
    tasks = [('document', index) for index in range(len(documents))] + [('devices', chunk)
                                                                        for chunk in _device_chunks(names)]
    work = {'pages': pages, 'user_hashes': user_hashes, 'output': output, 'documents': documents}
    documents_made = []
    for items, changes in _pool_results(design, names, workers, _put_task, tasks, work):
        if len(documents_made) < len(documents):
            documents_made.append((items, changes))
            continue
        if output is not None:
            output.adopt(changes)
        yield from items
    for items, changes in documents_made:
        if output is not None:
            output.adopt(changes)
        yield from items
