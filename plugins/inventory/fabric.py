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
  - Values the plugin takes from a path or the intent (C(aifabric_intent), C(aifabric_output_dir), names, roles,
    platforms, addresses) are never templated, on every supported ansible-core. One that could hold a template (a
    directory named C(p{{ lookup(...) }}q)) is marked unsafe, so Ansible prints it and never runs it. The others hold
    no template. On ansible-core 2.19 and later they are marked as plain data, so C(ansible-inventory --list) and
    AWX inventory imports show plain strings rather than values wrapped in C(__ansible_unsafe).
  - A configuration file that is empty, has no C(plugin) key, names an unknown option or gives an option of the wrong
    type is an error naming the file and the option. A file named C(*fabric.yml) that is a plain YAML inventory (no
    C(plugin) key and none of this plugin's options) is left to the other inventory plugins.
  - A configuration or intent that is not a regular file (a FIFO, a device) is refused before it is read.
  - A bad intent fails the inventory source with one error that lists every problem with its path in the intent.
    An Ansible command prints that error once and exits with code 4, whatever C(any_unparsed_is_failed) says
    (Ansible would otherwise warn, print the unrelated failures of its other inventory plugins on the same file and
    go on without the fabric's hosts).
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
      - For a configuration inside an installed collection (the example inventories of C(ansible-galaxy collection
        install)) the default is C($XDG_DATA_HOME/aifabric.fabric/out) (C(~/.local/share/aifabric.fabric/out)), because
        files written into the collection would change it, and its next upgrade would delete them.
    type: str
    default: ../../out
notes:
  - The configuration file name must end in C(fabric.yml) or C(fabric.yaml), for example C(fabric.yml) or C(pod1k.fabric.yml).
  - For an AWX or Automation Platform inventory source from a project, keep the intent file outside the inventory
    directory (O(intent) may point anywhere), so that no other inventory plugin reads it whatever C(enable_plugins) is.
  - When the inventory is a directory that also holds the intent file (C(fabrics/lab.yml)), the plugin claims
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
# inventories/lab/fabric.yml, with the intent next to it in fabrics/lab.yml;
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

import contextlib
import functools
import gc
import os
import re

import yaml
from ansible import constants as C
from ansible import context
from ansible.errors import AnsibleError, AnsibleParserError
from ansible.plugins.inventory import BaseFileInventoryPlugin, Constructable

try:
    from ansible.template import trust_as_template
    wrap_var = None
except ImportError:  # ansible-core < 2.19: a string is templated unless it is wrapped as unsafe
    trust_as_template = None
    from ansible.utils.unsafe_proxy import wrap_var

from ansible_collections.aifabric.fabric.plugins.plugin_utils.design_cache import get_design
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.batches import batch_of
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent_yaml import NotRegularFile, open_regular
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import installed_collection
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.terms import SWITCH_ROLES

CONFIG_SUFFIXES = ('fabric.yml', 'fabric.yaml')
INTENT_LINE = re.compile(r'^intent:\s*(\S.*?)\s*(?:#.*)?$')
ROLE_GROUP = {'leaf': 'leaf', 'spine': 'spine', 'super_spine': 'super_spine', 'host': 'gpu_servers'}
HOST_PLATFORM = 'linux'
# Every platform group and the GPU servers: the collection's drivers need nothing but SSH from Ansible.
DEFAULT_CONNECTION = {'ansible_connection': 'ansible.builtin.ssh'}
CONNECTION_GROUP = re.compile(r'^(platform_[a-z0-9_]+|gpu_servers)$')
OWN_OPTIONS = ('intent', 'output_dir', 'connection_vars')  # a file with one of these (and no plugin key) is ours
CONFIG_MAX_BYTES = 1024 * 1024
CONFIG_HINT = 'a fabric inventory configuration is "plugin: aifabric.fabric.fabric" and "intent: <intent file>"'


def _relative_to_config(config_path, path):
    path = os.path.expandvars(os.path.expanduser(path))
    return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(config_path)), path))


def _intent_path(config_path, intent):
    return _relative_to_config(config_path, intent or 'intent.yml')


def _plain(value):
    """A value taken from a path or the intent, as Ansible must hold it: never templated.

    Text that could hold a template (Jinja's delimiters all start with '{'; '#jinja2:' would change them) is unsafe:
    untrusted as ansible-core 2.19+ leaves plugin data, wrapped as unsafe before 2.19, where plain strings are templated.
    Other text holds no template; 2.19+ marks it trusted so that exports (ansible-inventory --list, AWX inventory
    imports) show plain strings, not {"__ansible_unsafe": ...}."""
    if not isinstance(value, str):
        return value
    if '{' in value or value.startswith('#jinja2:'):
        return value if trust_as_template is not None else wrap_var(value)
    return trust_as_template(value) if trust_as_template is not None else value


@contextlib.contextmanager
def _kept_for_the_run():
    """Under an Ansible command line, build the fabric's objects without the cyclic garbage collector and freeze them.

    The design and the hosts live as long as the run. Without this, the collector walks them while they are built
    (0.2 CPU-s at 3,328 devices), in every forked task worker (a full pass of 0.13 s per task), and once more when the
    interpreter exits (0.3 s). Frozen objects are still freed when their last reference goes; only cyclic garbage left
    at that moment (about a thousand objects at 3,328 devices) stays. A library caller (tests, scripts) is left alone.
    """
    if not context.CLIARGS:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


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
            with open_regular(os.path.join(directory, name)) as handle:  # a FIFO there must not block us
                for raw in handle:
                    match = INTENT_LINE.match(raw.decode('utf-8', 'replace').rstrip('\r\n'))
                    if match:
                        intent = match.group(1).strip('\'"')
                        break
        except OSError:
            continue
        if os.path.realpath(_intent_path(os.path.join(directory, name), intent)) == target:
            return True
    return False


def _read_config(path):
    """(data, problem): the configuration file's YAML, or why it cannot be read (never blocks: see open_regular)."""
    try:
        with open_regular(path) as handle:
            raw = handle.read(CONFIG_MAX_BYTES + 1)
    except NotRegularFile as exc:
        return None, '%s %s; %s' % (path, exc, CONFIG_HINT)
    except OSError as exc:
        return None, '%s cannot be read: %s' % (path, exc.strerror or exc)
    if len(raw) > CONFIG_MAX_BYTES:
        return None, '%s is larger than %d bytes; %s' % (path, CONFIG_MAX_BYTES, CONFIG_HINT)
    try:
        return yaml.safe_load(raw), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        return None, '%s%s is not valid YAML: %s' % (path, ':%d' % (mark.line + 1) if mark else '',
                                                     getattr(exc, 'problem', None) or exc)


def _is_ours(data) -> bool:
    """A configuration of this plugin, or meant to be: empty, not a mapping, naming an aifabric plugin, or without a
    plugin key but with one of this plugin's options. A plain YAML inventory named fabric.yml is not."""
    if not isinstance(data, dict):
        return True
    if 'plugin' in data:
        return str(data['plugin']).startswith('aifabric.')
    return any(key in data for key in OWN_OPTIONS)


class InventoryModule(BaseFileInventoryPlugin, Constructable):
    NAME = 'aifabric.fabric.fabric'

    def verify_file(self, path):
        if not super().verify_file(path):
            return False
        if os.path.basename(path).endswith(CONFIG_SUFFIXES):
            data, problem = _read_config(path)
            return bool(problem) or _is_ours(data)
        return _sibling_intent(path)

    def _config_problems(self, path, data):
        """Why the configuration at `path` cannot be used (empty list: it can), each naming the file."""
        if data is None:
            return ['%s is empty; %s' % (path, CONFIG_HINT)]
        if not isinstance(data, dict):
            return ['%s must be a mapping of options; %s' % (path, CONFIG_HINT)]
        if data.get('plugin') != self.NAME:
            return ['%s has %s; %s' % (path, 'plugin: %s' % data['plugin'] if 'plugin' in data else 'no plugin key',
                                       CONFIG_HINT)]
        known = C.config.get_configuration_definitions('inventory', self._load_name) or {}
        problems = ['%s: unknown option %s (options: %s)' % (path, key, ', '.join(sorted(known)))
                    for key in sorted(set(data) - set(known), key=str)]
        for key in ('intent', 'output_dir'):
            if key in data and not isinstance(data[key], str):
                problems.append('%s: %s must be a path (text), got %s' % (path, key, type(data[key]).__name__))
        extra = data.get('connection_vars')
        if extra is not None and (not isinstance(extra, dict) or not all(isinstance(value, dict) for value in extra.values())):
            problems.append('%s: connection_vars must map group names to mappings of variables' % path)
        return problems

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        if not os.path.basename(path).endswith(CONFIG_SUFFIXES):
            self.display.vvv('%s is the intent of a fabric inventory configuration next to it; nothing to add' % path)
            return
        with _kept_for_the_run():
            self._parse_fabric(path)

    def _parse_fabric(self, path):
        data, problem = _read_config(path)
        problems = [problem] if problem else self._config_problems(path, data)
        if problems:
            # The yaml plugin would read an empty file or one without a plugin key as an empty inventory, and block
            # on a FIFO: stop here (as _fail_once explains), whatever any_unparsed_is_failed says.
            self._fail_once(AnsibleParserError('\n'.join(problems)))
        try:
            self._read_config_data(path)
        except AnsibleError as exc:
            self._fail_once(AnsibleParserError('%s: %s' % (path, exc.message)))
        intent = _intent_path(path, self.get_option('intent'))
        try:
            design = get_design(intent)
        except AnsibleError as exc:
            self._fail_once(AnsibleParserError('%s\n(inventory source: %s)' % (exc.message, path)))
        extra = self.get_option('connection_vars') or {}
        output_dir = self.get_option('output_dir')
        if not isinstance(output_dir, str) or not output_dir.strip():
            self._fail_once(AnsibleParserError('output_dir in %s must be a directory path (got %r)' % (path, output_dir)))
        self._populate(design, intent)
        base = _relative_to_config(path, output_dir)
        if 'output_dir' not in data and installed_collection(base):
            # An example inventory of the installed collection: never write into the collection itself.
            base = os.path.join(os.environ.get('XDG_DATA_HOME') or os.path.expanduser('~/.local/share'),
                                'aifabric.fabric', 'out')
        self.inventory.set_variable('fabric_%s' % design.name, 'aifabric_output_dir',
                                    _plain(os.path.join(base, design.name)))
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
        """Report a bad intent or configuration once and stop.

        Ansible tries every enabled plugin on a source that one plugin failed to parse and prints each failure: the
        yaml and ini plugins complain that fabric.yml is not their format, and `auto` runs this plugin again, so the
        one real error drowns in five; with Ansible's default settings (unparsed sources are warnings) the play
        then runs on an inventory without the fabric and fails later for a reason that is not the intent's. So when
        an Ansible command line is running, print the error once and end the run with Ansible's parser-error exit
        code, whatever any_unparsed_is_failed says: a fabric with a bad intent is never half an inventory. A library
        caller gets the exception to handle.
        """
        if context.CLIARGS:
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
        plain = functools.lru_cache(maxsize=None)(_plain)  # the same few texts (intent, fabric, roles) on every host
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
                inventory.set_variable(name, key, plain(value))
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
