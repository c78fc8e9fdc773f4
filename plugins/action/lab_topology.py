# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side implementation of aifabric.fabric.lab_topology (documented in plugins/modules)."""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design, intent_path
from ansible_collections.aifabric.fabric.plugins.plugin_utils.destinations import destination_problem, inventory_sources
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.errors import IntentError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.lab import (
    containerlab_twin, lab_inventory, lab_names, lab_nodes,
)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import COLLECTION

# The lab role's scripts, by where this collection is: computed here, never templated from a path Ansible gives
# (role_path is the path of the collection, which a checkout under a directory named like a template would make a
# template on the releases that template such values).
LAB_SCRIPTS = {'setup_script': os.path.join(COLLECTION, 'scripts', 'setup-host.sh'),
               'image_script': os.path.join(COLLECTION, 'roles', 'lab', 'files', 'build-node-image.sh')}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('intent', 'image', 'workdir', 'prefix', 'vendor_images', 'vendor_kinds', 'allow_system_dir'))
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
            'allow_system_dir': {'type': 'bool', 'default': False},
        })[1]
        intent = intent_path(args['intent'], task_vars)
        design = get_design(intent)
        workdir = os.path.abspath(args['workdir'])
        problem = destination_problem(workdir, 'lab work directory', inventory_sources(task_vars), args['allow_system_dir'])
        if problem:
            raise AnsibleActionFail('%s Nothing was created.' % problem)
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
            workdir=workdir,
            **LAB_SCRIPTS,
        )
        return result
