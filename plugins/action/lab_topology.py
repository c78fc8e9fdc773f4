# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.lab_topology (documented in plugins/modules)."""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import (
    containerlab_twin, lab_inventory, lab_names, lab_nodes,
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'image', 'workdir', 'prefix', 'vendor_images', 'vendor_kinds'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec={
            'intent': {'type': 'path'},
            'image': {'type': 'str', 'required': True},
            'workdir': {'type': 'path', 'required': True},
            'prefix': {'type': 'str', 'default': 'aifabric'},
            'vendor_images': {'type': 'dict', 'default': {}},
            'vendor_kinds': {'type': 'dict', 'default': {}},
        })[1]
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        workdir = args['workdir'].rstrip('/')
        public_key = '%s/ssh/id_ed25519.pub' % workdir
        private_key = '%s/ssh/id_ed25519' % workdir
        try:
            topology, files = containerlab_twin(
                design, args['image'], public_key, '%s/nodes' % workdir, prefix=args['prefix'],
                vendor_images=args['vendor_images'], vendor_kinds=args['vendor_kinds'])
        except IntentError as exc:
            raise AnsibleActionFail('%s\n(intent file: %s)' % (exc.report(), intent)) from None
        names = lab_names(design, args['prefix'])
        result.update(
            changed=False,
            name=names['lab'],
            network=names['network'],
            subnet=topology['mgmt']['ipv4-subnet'],
            topology=topology,
            node_image=args['image'],
            vendor_images=sorted({node['image'] for node in topology['topology']['nodes'].values()
                                  if 'image' in node}),
            node_files=[{'path': path, 'content': content} for path, content in sorted(files.items())],
            topology_file='%s/%s.clab.yml' % (workdir, names['lab']),
            nodes=lab_nodes(design, args['prefix']),
            inventory=lab_inventory(design, os.path.realpath(intent), private_key, args['prefix']),
            private_key=private_key,
            public_key=public_key,
        )
        return result
