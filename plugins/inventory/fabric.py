# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
name: fabric
short_description: Ansible inventory of every switch and GPU server of an aifabric fabric intent
version_added: 1.0.0
description:
  - Reads a fabric intent, designs the fabric once (the design is cached in the controller process and reused by
    every task that runs in forked workers) and adds one inventory host per device, in design order.
  - Nobody lists devices twice, the intent is the only list. The plugin adds these groups.
  - Role groups C(leaf), C(spine), C(super_spine) and C(gpu_servers). C(switches) has the three switch role
    groups as children.
  - Platform groups C(platform_sonic), C(platform_eos), C(platform_nvue) and C(platform_frr) hold switches
    by network OS.
  - Rail groups C(rail_<r>) hold the leaves dedicated to rail I(r) (0-based). GPU servers are in no rail group because
    every server has a NIC on every rail. In explicit topologies a leaf that serves several rails is in no rail group.
  - Pod groups C(pod_<p>) hold the GPU servers, leaves and spines of pod I(p) (1-based). Super-spines join
    all pods and are in no pod group.
  - A fabric group C(fabric_<name>) holds every device of the fabric, so several fabrics can share one inventory
    as long as their device names differ (C(topology.naming) in the intent); a name used by two fabrics is an error.
  - Host variables are C(aifabric_intent) (absolute path of the intent file), C(aifabric_fabric) (fabric name),
    C(aifabric_role) (V(leaf), V(spine), V(super_spine) or V(host)), C(aifabric_platform) (the switch's platform,
    a folder of C(plugins/plugin_utils/fabric/platforms) such as V(sonic), or V(linux) for GPU servers),
    C(ansible_host) (the management address of the device when the intent
    assigns one through C(management.pool) or C(topology.devices.<name>.management_ip)) and, on switches,
    C(aifabric_deploy_batch) (the rolling deploy batch, from 1 on, one rail's leaves, then halves of the spines of
    every pod, then halves of the super-spines of every plane; override it like any host variable).
  - Connection variables are group variables of the platform groups and of C(gpu_servers), see O(connection_vars).
    Inventory group variables have the lowest precedence, so normal C(group_vars/<group>.yml) files next to the
    inventory or the playbook override them.
  - The group variable C(aifabric_output_dir) of C(fabric_<name>) is the directory the fabric's generated files go to
    (see O(output_dir)); the render and validate playbooks and the lab use it unless told otherwise.
  - On ansible-core 2.19 and later the values the plugin computes (names, roles, platforms, addresses, paths) are
    marked as plain data that holds no template, so C(ansible-inventory --list) and AWX inventory imports show plain
    strings rather than values wrapped in C(__ansible_unsafe). A value that contains a brace stays marked unsafe.
  - A bad intent fails the inventory source with one error that lists every problem with its path in the intent.
    Ansible reports a failed source as a warning and goes on without its hosts unless C(any_unparsed_is_failed = True)
    is set in the C([inventory]) section of C(ansible.cfg) (or E(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED=1)).
    With it (the collection's C(ansible.cfg) sets it), an Ansible command prints that error once and exits with
    code 4, instead of also printing the unrelated failures of the other inventory plugins on the same file.
author:
  - aifabric contributors (@aifabric)
extends_documentation_fragment:
  - ansible.builtin.constructed
options:
  plugin:
    description: Marks the file as a configuration of this plugin.
    required: true
    type: str
    choices: [aifabric.fabric.fabric]
  intent:
    description:
      - Path of the fabric intent YAML file. A relative path is relative to the directory of this configuration file;
        C(~) and environment variables are expanded.
    type: str
    default: intent.yml
  connection_vars:
    description:
      - Group variables set on the platform groups and on C(gpu_servers), keyed by group name.
      - An entry replaces the default of that group; C({}) removes it.
      - 'Default: every platform group and C(gpu_servers) use C(ansible_connection: ansible.builtin.ssh). The
        collection reaches the switches from the controller through its own deploy drivers, so it needs no
        connection plugin from another collection; set C(ansible.netcommon.httpapi) or C(network_cli) here (and install
        those collections) only for your own tasks that need them.'
    type: dict
    default: {}
  output_dir:
    description:
      - Directory of the generated files of the fabric, in a subdirectory named after the fabric, C(<output_dir>/<fabric name>).
        That is where the rendered configurations and documents, the validation reports and the lab's work directory go. The plugin sets
        C(aifabric_output_dir) to that subdirectory (a group variable of C(fabric_<name>), so C(group_vars) override it).
      - A relative path is relative to the directory of this configuration file; C(~) and environment variables are
        expanded.
      - The default is C(out/) of the project in the layout C(<project>/inventories/<name>/fabric.yml).
        Keep it outside the inventory directory, because Ansible reads every file of a directory given with C(-i)
        as an inventory source.
    type: str
    default: ../../out
notes:
  - The configuration file name must end in C(fabric.yml) or C(fabric.yaml), for example C(fabric.yml) or C(pod1k.fabric.yml).
  - For an AWX or Automation Platform inventory source from a project, keep the intent file outside the inventory
    directory (O(intent) may point anywhere), so that no other inventory plugin reads it whatever C(enable_plugins) is.
  - When the inventory is a directory that also holds the intent file (C(inventories/lab/intent.yml)), the plugin claims
    the intent file and adds nothing from it, so that the C(ansible.builtin.yaml) plugin does not read the intent as
    YAML inventory. Keep this plugin before C(ansible.builtin.yaml) in C(enable_plugins).
  - The O(compose), O(groups) and O(keyed_groups) options of the constructed fragment are evaluated per host only when set;
    per-host templating costs time on fabrics with thousands of devices.
seealso:
  - module: aifabric.fabric.render
  - module: aifabric.fabric.device_info
"""

EXAMPLES = r"""
---
# inventories/lab/fabric.yml, with the intent next to it in inventories/lab/intent.yml;
# generated files go to out/lab two directories up (the default output_dir)
plugin: aifabric.fabric.fabric
intent: intent.yml

---
# An AWX project: the intent outside the inventory directory, files under <project>/out/pod1
# (inventory/pod1/pod1.fabric.yml; inventory source path inventory/pod1)
plugin: aifabric.fabric.fabric
intent: ../../fabrics/pod1.yml
output_dir: ../../out

---
# Another fabric; reach the switches through a jump host and add a custom group
plugin: aifabric.fabric.fabric
intent: ../fabrics/pod1k.yml
connection_vars:
  platform_sonic:
    ansible_connection: ansible.builtin.ssh
    ansible_ssh_common_args: -o ProxyJump=bastion.example.net
groups:
  first_server_group: aifabric_role == 'host' and inventory_hostname is match('gpu00[0-3]')

# Check it:
#   ansible-inventory -i inventories/lab --graph
#   ansible-inventory -i inventories/lab --host leaf001
"""

import os
import re

from ansible import constants as C
from ansible import context
from ansible.errors import AnsibleError, AnsibleParserError
from ansible.plugins.inventory import BaseFileInventoryPlugin, Constructable

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core < 2.19 lists plain strings as plain strings already
    trust_as_template = None

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.batches import batch_of

CONFIG_SUFFIXES = ('fabric.yml', 'fabric.yaml')
INTENT_LINE = re.compile(r'^intent:\s*(\S.*?)\s*(?:#.*)?$')
SWITCH_ROLES = ('leaf', 'spine', 'super_spine')
ROLE_GROUP = {'leaf': 'leaf', 'spine': 'spine', 'super_spine': 'super_spine', 'host': 'gpu_servers'}
HOST_PLATFORM = 'linux'
# Every platform group and the GPU servers: the collection's drivers need nothing but SSH from Ansible.
DEFAULT_CONNECTION = {'ansible_connection': 'ansible.builtin.ssh'}
CONNECTION_GROUP = re.compile(r'^(platform_[a-z0-9_]+|gpu_servers)$')


def _relative_to_config(config_path, path):
    path = os.path.expandvars(os.path.expanduser(path))
    return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(config_path)), path))


def _intent_path(config_path, intent):
    return _relative_to_config(config_path, intent or 'intent.yml')


def _plain(value):
    """A value the plugin computed, marked as holding no template (ansible-core 2.19+), so that exports (ansible-inventory
    --list, AWX inventory imports) show it as a plain string. Anything with a '{' keeps Ansible's default: untrusted."""
    if trust_as_template is None or not isinstance(value, str) or '{' in value:
        return value
    return trust_as_template(value)


def _sibling_intent(path):
    """True when a fabric configuration in the same directory names `path` as its intent."""
    if not path.endswith(('.yml', '.yaml')):
        return False
    directory = os.path.dirname(os.path.abspath(path))
    target = os.path.realpath(path)
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    for name in names:
        if not name.endswith(CONFIG_SUFFIXES):
            continue
        intent = 'intent.yml'
        try:
            with open(os.path.join(directory, name), encoding='utf-8') as handle:
                for line in handle:
                    match = INTENT_LINE.match(line)
                    if match:
                        intent = match.group(1).strip('\'"')
                        break
        except OSError:
            continue
        if os.path.realpath(_intent_path(os.path.join(directory, name), intent)) == target:
            return True
    return False


class InventoryModule(BaseFileInventoryPlugin, Constructable):
    NAME = 'aifabric.fabric.fabric'

    def verify_file(self, path):
        if not super().verify_file(path):
            return False
        return os.path.basename(path).endswith(CONFIG_SUFFIXES) or _sibling_intent(path)

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        if not os.path.basename(path).endswith(CONFIG_SUFFIXES):
            self.display.vvv('%s is the intent of a fabric inventory configuration next to it; nothing to add' % path)
            return
        self._read_config_data(path)
        intent = _intent_path(path, self.get_option('intent'))
        try:
            design = get_design(intent)
        except AnsibleError as exc:
            self._fail_once(AnsibleParserError('%s\n(inventory source: %s)' % (exc.message, path)))
        extra = self.get_option('connection_vars') or {}
        if not isinstance(extra, dict) or not all(isinstance(value, dict) for value in extra.values()):
            raise AnsibleParserError('connection_vars in %s must map group names to mappings of variables' % path)
        output_dir = self.get_option('output_dir')
        if not isinstance(output_dir, str) or not output_dir.strip():
            self._fail_once(AnsibleParserError('output_dir in %s must be a directory path (got %r)' % (path, output_dir)))
        self._populate(design, intent)
        self.inventory.set_variable('fabric_%s' % design.name, 'aifabric_output_dir',
                                    _plain(os.path.join(_relative_to_config(path, output_dir), design.name)))
        # Defaults go only on groups this fabric uses and never replace what another fabric's configuration set;
        # groups named in connection_vars always exist and get exactly those variables.
        groups = self.inventory.groups
        for group in sorted(set(groups) - set(extra)):
            if CONNECTION_GROUP.match(group) and any(host.vars.get('aifabric_fabric') == design.name
                                                     for host in groups[group].get_hosts()):
                for key, value in DEFAULT_CONNECTION.items():
                    if key not in groups[group].vars:
                        self.inventory.set_variable(group, key, _plain(value))
        for group, variables in extra.items():
            self.inventory.add_group(group)
            for key, value in variables.items():
                self.inventory.set_variable(group, key, value)

    def _fail_once(self, error):
        """Report a bad intent once and stop.

        Ansible tries every enabled plugin on a source that one plugin failed to parse and prints each failure: the
        yaml and ini plugins complain that fabric.yml is not their format, and `auto` runs this plugin again, so the
        one real error drowns in five. When the run is going to stop at this source anyway
        (any_unparsed_is_failed, as the collection's ansible.cfg sets) and an Ansible command line is running, print
        the error once and end the run with Ansible's parser-error exit code. Otherwise (a library caller, or
        failures configured as warnings) raise it for Ansible to handle as usual.
        """
        if C.INVENTORY_ANY_UNPARSED_IS_FAILED and context.CLIARGS:
            self.display.error(error)
            raise SystemExit(getattr(error, '_exit_code', 4))
        raise error

    def _populate(self, design, intent):
        inventory = self.inventory
        fabric_group = inventory.add_group('fabric_%s' % design.name)
        inventory.add_group('switches')
        for role in SWITCH_ROLES:
            inventory.add_group(role)
            inventory.add_child('switches', role)
        inventory.add_group('gpu_servers')

        compose = self.get_option('compose')
        groups = self.get_option('groups')
        keyed_groups = self.get_option('keyed_groups')
        strict = self.get_option('strict')
        constructed = bool(compose or groups or keyed_groups)
        management = design.management_ip
        known_groups = set(inventory.groups)

        def join(group, host):
            if group not in known_groups:
                inventory.add_group(group)
                known_groups.add(group)
            inventory.add_child(group, host)

        clashes = [name for name in design.nodes if name in inventory.hosts
                   and inventory.hosts[name].vars.get('aifabric_fabric', design.name) != design.name]
        if clashes:
            raise AnsibleParserError(
                'Fabric %s has device names that another fabric of this inventory already uses: %s%s. Give each '
                'fabric its own names (topology.naming in the intent) or use separate inventories.' % (
                    design.name, ', '.join(clashes[:10]), ' and %d more' % (len(clashes) - 10) if len(clashes) > 10 else ''))
        batches = batch_of(design)
        for name, node in design.nodes.items():
            inventory.add_host(name)
            platform = HOST_PLATFORM if node.role == 'host' else node.platform
            host_vars = {
                'aifabric_intent': intent,
                'aifabric_fabric': design.name,
                'aifabric_role': node.role,
                'aifabric_platform': platform,
            }
            if name in batches:
                host_vars['aifabric_deploy_batch'] = batches[name]
            address = management.get(name)
            if address:
                host_vars['ansible_host'] = address
            for key, value in host_vars.items():
                inventory.set_variable(name, key, _plain(value))
            inventory.add_child(fabric_group, name)
            inventory.add_child(ROLE_GROUP[node.role], name)
            if node.role != 'host':
                join('platform_%s' % platform, name)
                if node.role == 'leaf' and node.rail is not None:
                    join('rail_%d' % node.rail, name)
            if node.role != 'super_spine' and node.pod:
                join('pod_%d' % node.pod, name)
            if constructed:
                variables = inventory.get_host(name).get_vars()
                self._set_composite_vars(compose, variables, name, strict=strict)
                self._add_host_to_composed_groups(groups, variables, name, strict=strict)
                self._add_host_to_keyed_groups(keyed_groups, variables, name, strict=strict)
