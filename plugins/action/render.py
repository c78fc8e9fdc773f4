# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.render (documented in plugins/modules/render.py).

One pass on the controller: design the fabric once (shared with the inventory through design_cache), then
render device after device and write each file only when its content changed. Nothing rendered is kept
after its device is done, so memory stays flat on fabrics with thousands of devices.
"""

from __future__ import annotations

import os
import tempfile
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import docs
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_fabric, render_model

ARGUMENT_SPEC = {
    'intent': {'type': 'path'},
    'dest': {'type': 'path', 'required': True},
    'devices': {'type': 'list', 'elements': 'str'},
    'docs': {'type': 'bool', 'default': True},
    'prune': {'type': 'bool', 'default': True},
    'diff_max_files': {'type': 'int', 'default': 10},
    'diff_max_bytes': {'type': 'int', 'default': 131072},
    'max_nodes_per_tier': {'type': 'int', 'default': docs.MAX_NODES_PER_TIER},
}
CONFIGS = 'configs'
DOCS = 'docs'
FABRIC_FILES = 'k8s'  # render_fabric() output: Kubernetes rail networks, once per fabric
CHANGED_FILES_LISTED = 100
FILE_MODE = 0o644
ERRORS_LISTED = 10


class _Writer:
    """Compares rendered text with what `dest` holds and writes only what changed (nothing in check mode)."""

    def __init__(self, dest, check_mode, want_diff, diff_max_files, diff_max_bytes):
        self.dest = dest
        self.check_mode = check_mode
        self.want_diff = want_diff
        self.diff_max_files = diff_max_files
        self.diff_max_bytes = diff_max_bytes
        self.written = self.unchanged = 0
        self.changed_files = []
        self.produced = set()
        self.diffs = []
        self.diffs_left_out = 0
        self.removed = []
        self.directories = set()

    def put(self, relative, text):
        path = os.path.join(self.dest, relative)
        self.produced.add(relative)
        new = text.encode('utf-8')
        try:
            with open(path, 'rb') as handle:
                old = handle.read()
        except FileNotFoundError:
            old = None
        if old == new:
            self.unchanged += 1
            return
        self.written += 1
        if len(self.changed_files) < CHANGED_FILES_LISTED:
            self.changed_files.append(relative)
        if self.want_diff:
            self._diff(relative, old, new)
        if not self.check_mode:
            self._write(path, new, replace=old is not None)

    def _write(self, path, data, replace):
        directory = os.path.dirname(path)
        if directory not in self.directories:
            os.makedirs(directory, exist_ok=True)
            self.directories.add(directory)
        if not replace:
            # A new file: nothing to protect. If the run dies half-way, the next run sees different content and rewrites it.
            with open(path, 'wb') as stream:
                stream.write(data)
            return
        # An existing file is replaced atomically, so a reader (or deploy) never sees half of it.
        descriptor, temporary = tempfile.mkstemp(dir=directory, prefix='.%s.' % os.path.basename(path))
        try:
            with os.fdopen(descriptor, 'wb') as stream:
                stream.write(data)
            os.chmod(temporary, FILE_MODE)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def _diff(self, relative, old, new):
        if len(self.diffs) >= self.diff_max_files:
            self.diffs_left_out += 1
            return
        entry = {'before_header': relative if old is not None else '%s (absent)' % relative, 'after_header': relative}
        if max(len(old or b''), len(new)) > self.diff_max_bytes:
            entry['prepared'] = '%s: %s -> %d bytes (larger than diff_max_bytes=%d, diff not shown)\n' % (
                relative, 'absent' if old is None else '%d' % len(old), len(new), self.diff_max_bytes)
        else:
            entry['before'] = old.decode('utf-8', 'replace') if old is not None else ''
            entry['after'] = new.decode('utf-8')
        self.diffs.append(entry)

    def prune(self, roots):
        """Remove files under dest/<root> that this run did not produce (stale devices, renamed files)."""
        for root in roots:
            top = os.path.join(self.dest, root)
            for directory, subdirectories, files in os.walk(top, topdown=False):
                for name in files:
                    relative = os.path.relpath(os.path.join(directory, name), self.dest)
                    if relative not in self.produced:
                        self.removed.append(relative)
                        if not self.check_mode:
                            os.unlink(os.path.join(directory, name))
                if directory != top and not self.check_mode and not os.listdir(directory):
                    os.rmdir(directory)

    def diff_result(self):
        diffs = list(self.diffs)
        if self.diffs_left_out:
            diffs.append({'prepared': '... %d more changed files not shown (diff_max_files=%d)\n'
                          % (self.diffs_left_out, self.diff_max_files)})
        for relative in self.removed[:self.diff_max_files]:
            diffs.append({'prepared': '%s: removed (no longer produced by the intent)\n' % relative})
        return diffs


def _renderer_missing(exc, model):
    """True when `exc` says the renderer module of this device's platform does not exist (yet)."""
    expected = 'hosts' if model['role'] == 'host' else model['platform']
    return isinstance(exc, ModuleNotFoundError) and (exc.name or '').rsplit('.', 1)[-1] == expected


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _unused, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        intent = args['intent'] or task_vars.get('aifabric_intent')
        if not intent:
            raise AnsibleActionFail('No intent: set the intent option or the aifabric_intent variable '
                                    '(the aifabric.fabric.fabric inventory plugin sets it on every device).')
        for key in ('diff_max_files', 'diff_max_bytes', 'max_nodes_per_tier'):
            if args[key] < (1 if key == 'max_nodes_per_tier' else 0):
                raise AnsibleActionFail('%s must not be negative%s' % (key, ' or zero' if key == 'max_nodes_per_tier' else ''))
        started = time.perf_counter()
        design = get_design(intent)
        designed = time.perf_counter()
        dest = os.path.abspath(args['dest'])
        if os.path.exists(dest) and not os.path.isdir(dest):
            raise AnsibleActionFail('dest %s exists and is not a directory' % dest)

        names = list(design.nodes)
        if args['devices'] is not None:
            unknown = [name for name in args['devices'] if name not in design.nodes]
            if unknown:
                raise AnsibleActionFail('%s not a device of fabric %s: %s' % (
                    'is' if len(unknown) == 1 else 'are', design.name, ', '.join(unknown[:20])))
            wanted = set(args['devices'])
            names = [name for name in names if name in wanted]

        writer = _Writer(dest, self._task.check_mode, self._task.diff, args['diff_max_files'], args['diff_max_bytes'])
        errors = {}
        missing = {}
        host_rows = {}  # addressing rows of the servers rendered here, so the docs need not rebuild their models
        for name in names:
            model = design.device(name)
            try:
                files = render_model(model)
            except Exception as exc:  # one device's failure must not hide the others'
                if _renderer_missing(exc, model):
                    kind = 'GPU servers (hosts.py)' if model['role'] == 'host' else 'platform %s' % model['platform']
                    missing.setdefault(kind, []).append(name)
                else:
                    errors[name] = '%s: %s' % (type(exc).__name__, exc)
                continue
            for file_name in sorted(files):
                writer.put('%s/%s/%s' % (CONFIGS, name, file_name), files[file_name])
            if args['docs']:
                page, text = docs.device_page(design, model, sorted(files))
                writer.put('%s/%s' % (DOCS, page), text)
                if model['role'] == 'host':
                    host_rows[name] = docs.host_address_rows(model)
            del files, model

        if args['devices'] is None:
            try:
                for relative, text in sorted(render_fabric(design).items()):
                    writer.put(relative, text)
            except Exception as exc:  # reported with the device failures
                errors['(fabric)'] = '%s: %s' % (type(exc).__name__, exc)
        devices_done = time.perf_counter()
        if args['docs']:
            for relative, text in docs.fabric_docs(design, args['max_nodes_per_tier'], host_rows=host_rows):
                writer.put('%s/%s' % (DOCS, relative), text)
        failed = bool(errors or missing)
        if args['prune'] and args['devices'] is None and not failed:
            writer.prune([CONFIGS, FABRIC_FILES] + ([DOCS] if args['docs'] else []))

        finished = time.perf_counter()
        rendered = len(names) - len(errors) - sum(len(devices) for devices in missing.values())
        changed = bool(writer.written or writer.removed)
        result.update(
            changed=changed,
            dest=dest,
            fabric=design.name,
            devices=rendered,
            files=len(writer.produced),
            written=writer.written,
            unchanged=writer.unchanged,
            removed=len(writer.removed),
            changed_files=writer.changed_files,
            configs=os.path.join(dest, CONFIGS),
            index=os.path.join(dest, DOCS, 'index.md') if args['docs'] else None,
            summary=design.summary(),
            timings={'design': round(designed - started, 3), 'devices': round(devices_done - designed, 3),
                     'fabric_docs': round(finished - devices_done, 3), 'total': round(finished - started, 3)},
        )
        if self._task.diff and changed:
            result['diff'] = writer.diff_result()
        verb = 'would write' if self._task.check_mode else 'wrote'
        result['msg'] = 'Fabric %s: rendered %d device(s) into %s; %s %d file(s), %d unchanged, %d removed' % (
            design.name, rendered, dest, verb, writer.written, writer.unchanged, len(writer.removed))
        if failed:
            problems = ['no renderer for %s yet: %d device(s) not rendered (%s%s)' % (
                kind, len(devices), ', '.join(devices[:5]), ', ...' if len(devices) > 5 else '')
                for kind, devices in sorted(missing.items())]
            problems.extend('%s: %s' % (name, error) for name, error in list(errors.items())[:ERRORS_LISTED])
            if len(errors) > ERRORS_LISTED:
                problems.append('... and %d more device(s) failed' % (len(errors) - ERRORS_LISTED))
            result.update(failed=True, render_errors=problems,
                          msg=result['msg'] + '. Rendering failed:\n  - ' + '\n  - '.join(problems))
        return result
