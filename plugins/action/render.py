# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.render (documented in plugins/modules/render.py).

One pass on the controller: design the fabric once (shared with the inventory through design_cache), then
render device after device and write each file only when its content changed. Nothing rendered is kept
after its device is done, so memory stays flat on fabrics with thousands of devices.
"""

from __future__ import annotations

import functools
import itertools
import os
import time

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.destinations import destination_problem, inventory_sources
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import docs, netbox
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.config_diff import DiffCollector
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.reviewed import render_meta
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import mask
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import (
    CONFIGS, DOCS, OutputError, StagedOutput, sha256_file)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.progress import Progress
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import (
    USERS_VARIABLE, SecretsError, render_fabric, render_into, switch_user_hashes)

ARGUMENT_SPEC = {
    'intent': {'type': 'path'},
    'dest': {'type': 'path'},
    'out': {'type': 'path'},
    'devices': {'type': 'list', 'elements': 'str'},
    'docs': {'type': 'bool', 'default': True},
    'netbox': {'type': 'bool', 'default': True},
    'netbox_status': {'type': 'str', 'default': netbox.DEFAULT_STATUS, 'choices': list(netbox.STATUSES)},
    'prune': {'type': 'bool', 'default': True},
    'diff_max_files': {'type': 'int', 'default': 10},
    'diff_max_lines': {'type': 'int', 'default': 400},
    'max_nodes_per_tier': {'type': 'int', 'default': docs.MAX_NODES_PER_TIER},
    'lock_timeout': {'type': 'int', 'default': 300},
    'progress_interval': {'type': 'float', 'default': 2.0},
    'workers': {'type': 'int', 'default': 0},
    'take_over': {'type': 'path'},
    'allow_system_dir': {'type': 'bool', 'default': False},
    'stats': {'type': 'bool', 'default': False},
}
FABRIC_FILES = 'k8s'  # render_fabric() output: Kubernetes rail networks, once per fabric
CHANGED_FILES_LISTED = 100
ERRORS_LISTED = 10
# What `stats` publishes of a successful result (and failed=false), per fabric; the render playbook publishes these
# and render_errors of a failed one.
STATS_KEYS = ('devices', 'files', 'written', 'unchanged', 'removed', 'dest', 'index', 'netbox', 'msg')


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        _unused, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC, mutually_exclusive=[('dest', 'out')],
                                                    required_one_of=[('dest', 'out')])
        intent = intent_path(args['intent'], task_vars)
        for key in ('diff_max_files', 'diff_max_lines', 'max_nodes_per_tier', 'workers'):
            if args[key] < (1 if key == 'max_nodes_per_tier' else 0):
                raise AnsibleActionFail('%s must not be negative%s' % (key, ' or zero' if key == 'max_nodes_per_tier' else ''))
        started = time.perf_counter()
        try:
            design = get_design(intent)
        except AnsibleError as exc:  # this loop item fails, not the whole loop (ansible-core < 2.19 aborts the loop)
            raise AnsibleActionFail(exc.message) from None
        try:
            declared = design.intent['management']['users']
            user_hashes = switch_user_hashes(declared, self._templar.template(task_vars.get(USERS_VARIABLE))
                                             if declared else None)
        except SecretsError as exc:
            raise AnsibleActionFail('Fabric %s: %s. Nothing was rendered.' % (design.name, exc)) from None
        designed = time.perf_counter()
        # With `out`, the fabric's own (validated) name picks the directory: nobody parses the intent before us.
        dest = os.path.abspath(args['dest'] or os.path.join(args['out'], design.name))
        if os.path.exists(dest) and not os.path.isdir(dest):
            raise AnsibleActionFail('dest %s exists and is not a directory' % dest)
        sources = inventory_sources(task_vars)
        what = 'render directory of fabric %s' % design.name
        for path in (args['out'], dest):
            problem = path and destination_problem(path, what, sources, args['allow_system_dir'])
            if problem:
                raise AnsibleActionFail('%s Nothing was written.' % problem)
        take_over = args['take_over'] is not None and os.path.realpath(args['take_over']) == os.path.realpath(dest)
        if args['take_over'] is not None and not take_over:
            raise AnsibleActionFail('take_over names %s, but the render goes to %s: take_over must name the output '
                                    'directory itself' % (os.path.abspath(args['take_over']), dest))

        names = list(design.nodes)
        if args['devices'] is not None:
            unknown = [name for name in args['devices'] if name not in design.nodes]
            if unknown:
                raise AnsibleActionFail('%s not a device of fabric %s: %s' % (
                    'is' if len(unknown) == 1 else 'are', design.name, ', '.join(unknown[:20])))
            wanted = set(args['devices'])
            if wanted == set(names):
                args['devices'] = None  # every device (e.g. the inventory's hosts, unsliced): a whole-fabric render
            else:
                names = [name for name in names if name in wanted]

        diffs = DiffCollector(args['diff_max_files'], args['diff_max_lines'],
                              mask=functools.partial(mask, hashes=user_hashes)) if self._task.diff else None
        try:
            output = StagedOutput(dest, check_mode=self._task.check_mode, lock_timeout=args['lock_timeout'],
                                  on_change=diffs.add if diffs else None, take_over=take_over).open()
        except OutputError as exc:
            raise AnsibleActionFail(str(exc)) from None
        # What the fabric's documents are made from: a render of some devices whose previous generation has the same
        # carries them over instead of making them again (about 0.7 CPU-s of a one-leaf render at 3,328 devices); a
        # device's NOS release is not in it (no fabric document shows one: docs.documents_source).
        intent_digest = sha256_file(intent)
        documents_key = docs.documents_key(docs.documents_source(design.intent), args['max_nodes_per_tier']) \
            if args['docs'] else None
        with output:
            try:
                rendered, errors, missing, devices_done = self._render(design, names, args, output, user_hashes,
                                                                       documents_key)
            except OutputError as exc:
                raise AnsibleActionFail('%s. Nothing was changed in %s.' % (exc, dest)) from None
            failed = bool(errors or missing)
            if failed:
                output.abort()  # an incomplete render never replaces the complete output
                summary = {'changed': False, 'written': 0, 'unchanged': output.unchanged, 'removed': [],
                           'files': len(output.files), 'manifest': None}
            else:
                prune = [CONFIGS, FABRIC_FILES] + ([DOCS] if args['docs'] else []) + \
                    ([netbox.NETBOX_DIR] if args['netbox'] else [])
                meta = {'fabric': design.name, 'intent': os.path.realpath(intent), 'devices': len(rendered),
                        'subset': args['devices'] is not None}
                if documents_key:
                    meta[docs.DOCUMENTS_KEY] = documents_key
                # What each device was rendered from: a deploy pushes these files only while the intent is the same.
                meta.update(render_meta(intent, rendered, list(design.nodes) if args['devices'] is not None else (),
                                        {'meta': output.previous_meta}, digest=intent_digest))
                try:
                    summary = output.finish(roots=[CONFIGS, FABRIC_FILES, DOCS, netbox.NETBOX_DIR], meta=meta,
                                            prune=prune if args['prune'] and args['devices'] is None else [])
                except OutputError as exc:
                    raise AnsibleActionFail('%s. Nothing was changed in %s.' % (exc, dest)) from None

        finished = time.perf_counter()
        changed = summary['changed']
        result.update(
            changed=changed,
            dest=dest,
            fabric=design.name,
            devices=len(rendered),
            files=summary['files'],
            written=summary['written'],
            unchanged=summary['unchanged'],
            removed=len(summary['removed']),
            changed_files=list(output.written)[:CHANGED_FILES_LISTED] if not failed else [],
            configs=os.path.join(dest, CONFIGS),
            index=os.path.join(dest, DOCS, 'index.md') if args['docs'] else None,
            netbox=os.path.join(dest, netbox.NETBOX_DIR) if args['netbox'] and args['devices'] is None else None,
            manifest=summary['manifest'],
            summary=design.summary(),
            timings={'design': round(designed - started, 3), 'devices': round(devices_done - designed, 3),
                     'fabric_docs': round(finished - devices_done, 3), 'total': round(finished - started, 3)},
        )
        if diffs is not None and changed:
            result['diff'] = diffs.entries(summary['removed'])
        verb = 'would write' if self._task.check_mode else 'wrote'
        result['msg'] = 'Fabric %s: rendered %d device(s) into %s; %s %d file(s), %d unchanged, %d removed' % (
            design.name, len(rendered), dest, verb, summary['written'], summary['unchanged'], len(summary['removed']))
        if not failed:  # where the artifacts are, for the person running it
            Display().display('\n'.join((
                result['msg'], 'Configurations: %s/<device>/' % result['configs'],
                'Fabric README:  %s' % (result['index'] or '(documentation not rendered)'),
                'NetBox import:  %s' % (result['netbox'] or '(not rendered)'))))
        if failed:
            problems = ['no renderer for %s yet: %d device(s) not rendered (%s%s)' % (
                kind, len(devices), ', '.join(devices[:5]), ', ...' if len(devices) > 5 else '')
                for kind, devices in sorted(missing.items())]
            problems.extend('%s: %s' % (name, error) for name, error in list(errors.items())[:ERRORS_LISTED])
            if len(errors) > ERRORS_LISTED:
                problems.append('... and %d more device(s) failed' % (len(errors) - ERRORS_LISTED))
            result.update(failed=True, render_errors=problems,
                          msg='Fabric %s: rendering failed; nothing was changed in %s (the previous output stays):'
                              '\n  - %s' % (design.name, dest, '\n  - '.join(problems)))
        elif args['stats']:  # custom stats (AWX job artifacts), merged with those of the other fabrics of the loop
            published = dict({key: result[key] for key in STATS_KEYS}, failed=False)
            result['ansible_stats'] = {'data': {'aifabric_render': {design.name: published}}, 'per_host': False,
                                       'aggregate': True}
        return result

    def _render(self, design, names, args, output, user_hashes, documents_key):
        """Put the files of `names`, and for a whole-fabric run the fabric's own files, and the docs into `output`
        (a render of some devices keeps the current docs where they were made from `documents_key` too)."""
        errors = {}
        missing = {}
        rendered = []
        documents = []
        if args['devices'] is None:
            try:
                fabric_files = render_fabric(design)
            except Exception as exc:  # reported with the device failures
                errors['(fabric)'] = '%s: %s' % (type(exc).__name__, exc)
                fabric_files = {}
            documents.extend((relative, functools.partial(str, text)) for relative, text in sorted(fabric_files.items()))
            if args['netbox']:  # the fabric's NetBox import bundle, like the Kubernetes files of whole-fabric renders
                documents.extend(netbox.bundle_documents(design, args['netbox_status']))
        if args['docs']:
            made = [('%s/%s' % (DOCS, relative), make)
                    for relative, make in docs.fabric_documents(design, args['max_nodes_per_tier'])]
            if not (args['devices'] is not None and output.previous_meta.get(docs.DOCUMENTS_KEY) == documents_key
                    and output.carry_over(relative for relative, _make in made)):
                documents.extend(made)
        progress = Progress(len(names), 'Fabric %s: devices rendered' % design.name, Display().display,
                            interval=args['progress_interval'])
        items = render_into(design, names, output, workers=args['workers'] or None, pages=args['docs'],
                            user_hashes=user_hashes, documents=documents)
        for item in itertools.islice(items, len(names)):  # the devices first, in order
            progress.step()
            if item['missing']:
                missing.setdefault(item['missing'], []).append(item['name'])
            elif item['error']:
                errors[item['name']] = item['error']
            else:
                rendered.append(item['name'])
        progress.finish()
        devices_done = time.perf_counter()
        for item in items:  # then the documents
            if item['error']:
                errors['(fabric) %s' % item['name']] = item['error']
        return rendered, errors, missing, devices_done
