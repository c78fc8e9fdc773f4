# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The aifabric.fabric.fabric inventory plugin: hosts, groups, variables and errors."""

import json
import os
import subprocess

import pytest
import yaml
from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import LAB_INTENT, ROOT

pytestmark = pytest.mark.integration  # it starts Ansible's command line tools (make integration runs it)

LAB = os.path.join(ROOT, 'inventories', 'lab')

MULTI_INTENT = {
    'name': 'multi',
    'topology': {
        # 8 servers x 2 rails on 4-port leaves: 3 tiers, 4 pods, 8 leaves, 8 spines, 4 super-spines.
        'rail_optimized': {'servers': 8, 'rails': 2, 'leaf_radix': 4, 'spine_radix': 4},
        'platform': {'leaf': 'sonic', 'spine': 'eos', 'super_spine': 'nvue'},
        'devices': {'leaf002': {'platform': 'frr'}, 'gpu0001': {'management_ip': '192.0.2.200'}},
    },
    'management': {'pool': '192.168.50.0/24'},
    'overlay': {'networks': [{'name': 'r0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]},
                             {'name': 'r1', 'vlan': 101, 'subnet': '10.101.0.0/24', 'rails': [1]}]},
}


@pytest.fixture(scope='module')
def loader():
    from ansible.plugins.loader import inventory_loader
    return inventory_loader


def _write(directory, intent, config=None, name='fabric.yml'):
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / 'intent.yml', 'w', encoding='utf-8') as handle:
        yaml.safe_dump(intent, handle)
    with open(directory / name, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(config or {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml'}, handle)
    return str(directory / name)


def _parse(loader, path):
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    plugin = loader.get('aifabric.fabric.fabric')
    assert plugin.verify_file(path)
    inventory = InventoryData()
    plugin.parse(inventory, DataLoader(), path, cache=False)
    inventory.reconcile_inventory()
    return inventory


def _members(inventory, group):
    return [host.name for host in inventory.groups[group].get_hosts()]


@pytest.fixture(scope='module')
def multi(loader, tmp_path_factory):
    return _parse(loader, _write(tmp_path_factory.mktemp('multi'), MULTI_INTENT))


def test_one_host_per_device_in_design_order(multi):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
    design = design_from_intent(MULTI_INTENT)
    assert list(multi.hosts) == list(design.nodes)
    assert len(multi.hosts) == 28


def test_role_groups(multi):
    assert _members(multi, 'gpu_servers') == ['gpu%04d' % n for n in range(1, 9)]
    assert _members(multi, 'leaf') == ['leaf%03d' % n for n in range(1, 9)]
    assert _members(multi, 'spine') == ['spine%03d' % n for n in range(1, 9)]
    assert _members(multi, 'super_spine') == ['sspine%03d' % n for n in range(1, 5)]
    assert sorted(group.name for group in multi.groups['switches'].child_groups) == ['leaf', 'spine', 'super_spine']
    assert len(_members(multi, 'switches')) == 20
    assert len(_members(multi, 'fabric_multi')) == 28


def test_platform_groups(multi):
    assert _members(multi, 'platform_frr') == ['leaf002']
    assert _members(multi, 'platform_sonic') == ['leaf%03d' % n for n in (1, 3, 4, 5, 6, 7, 8)]
    assert _members(multi, 'platform_eos') == ['spine%03d' % n for n in range(1, 9)]
    assert _members(multi, 'platform_nvue') == ['sspine%03d' % n for n in range(1, 5)]
    assert not any(name.startswith('gpu') for group in multi.groups if group.startswith('platform_')
                   for name in _members(multi, group))


def test_rail_and_pod_groups(multi):
    assert _members(multi, 'rail_0') == ['leaf001', 'leaf003', 'leaf005', 'leaf007']
    assert _members(multi, 'rail_1') == ['leaf002', 'leaf004', 'leaf006', 'leaf008']
    assert sorted(group for group in multi.groups if group.startswith('pod_')) == ['pod_1', 'pod_2', 'pod_3', 'pod_4']
    assert _members(multi, 'pod_2') == ['gpu0003', 'gpu0004', 'leaf003', 'leaf004', 'spine003', 'spine004']
    assert not any(name.startswith('sspine') for group in multi.groups if group.startswith('pod_')
                   for name in _members(multi, group))


def test_host_vars(multi, tmp_path_factory):
    leaf = multi.hosts['leaf001'].get_vars()
    assert leaf['aifabric_role'] == 'leaf'
    assert leaf['aifabric_platform'] == 'sonic'
    assert leaf['aifabric_fabric'] == 'multi'
    assert os.path.isabs(leaf['aifabric_intent']) and leaf['aifabric_intent'].endswith('intent.yml')
    assert leaf['ansible_host'] == '192.168.50.10'
    host = multi.hosts['gpu0001'].get_vars()
    assert (host['aifabric_role'], host['aifabric_platform'], host['ansible_host']) == ('host', 'linux', '192.0.2.200')
    assert multi.hosts['gpu0002'].get_vars()['ansible_host'] == '192.168.50.31'


def test_no_ansible_host_without_management_addresses(loader, tmp_path):
    intent = dict(MULTI_INTENT, management={})
    intent['topology'] = dict(MULTI_INTENT['topology'], devices={})
    inventory = _parse(loader, _write(tmp_path, intent))
    assert 'ansible_host' not in inventory.hosts['leaf001'].get_vars()


def test_connection_vars_on_platform_groups(multi):
    """SSH on every platform: the defaults need no connection plugin from a collection galaxy.yml does not declare."""
    for group in ('platform_sonic', 'platform_frr', 'platform_eos', 'platform_nvue', 'gpu_servers'):
        assert multi.groups[group].get_vars() == {'ansible_connection': 'ansible.builtin.ssh'}, group


def test_unused_platform_groups_are_not_created(loader):
    lab = _parse(loader, os.path.join(LAB, 'fabric.yml'))
    assert 'platform_frr' in lab.groups
    assert not {'platform_sonic', 'platform_eos', 'platform_nvue'} & set(lab.groups)


def test_connection_vars_option_replaces_a_default(loader, tmp_path):
    config = {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml',
              'connection_vars': {'platform_sonic': {'ansible_connection': 'ansible.netcommon.network_cli',
                                                     'ansible_network_os': 'dellemc.enterprise_sonic.sonic'},
                                  'gpu_servers': {}}}
    inventory = _parse(loader, _write(tmp_path, MULTI_INTENT, config))
    assert inventory.groups['platform_sonic'].get_vars() == {'ansible_connection': 'ansible.netcommon.network_cli',
                                                             'ansible_network_os': 'dellemc.enterprise_sonic.sonic'}
    assert inventory.groups['gpu_servers'].get_vars() == {}
    assert inventory.groups['platform_eos'].get_vars() == {'ansible_connection': 'ansible.builtin.ssh'}


def test_group_vars_file_overrides_connection_default(loader, tmp_path):
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.vars.manager import VariableManager
    path = _write(tmp_path, MULTI_INTENT)
    (tmp_path / 'group_vars').mkdir()
    (tmp_path / 'group_vars' / 'platform_eos.yml').write_text('ansible_connection: ansible.netcommon.network_cli\n')
    (tmp_path / 'group_vars' / 'fabric_multi.yml').write_text('aifabric_output_dir: /srv/fabrics/multi\n')
    data_loader = DataLoader()
    manager = InventoryManager(data_loader, sources=[path])
    variables = VariableManager(loader=data_loader, inventory=manager)
    spine = variables.get_vars(host=manager.get_host('spine001'))
    assert spine['ansible_connection'] == 'ansible.netcommon.network_cli'
    assert spine['aifabric_output_dir'] == '/srv/fabrics/multi'
    assert variables.get_vars(host=manager.get_host('leaf001'))['ansible_connection'] == 'ansible.builtin.ssh'


def test_relative_intent_path_is_relative_to_the_config_file(loader, tmp_path):
    (tmp_path / 'fabrics').mkdir()
    with open(tmp_path / 'fabrics' / 'multi.yml', 'w', encoding='utf-8') as handle:
        yaml.safe_dump(MULTI_INTENT, handle)
    inventory_dir = tmp_path / 'inventory'
    inventory_dir.mkdir()
    config = inventory_dir / 'pod.fabric.yml'
    config.write_text('plugin: aifabric.fabric.fabric\nintent: ../fabrics/multi.yml\n')
    inventory = _parse(loader, str(config))
    assert inventory.hosts['leaf001'].get_vars()['aifabric_intent'] == str(tmp_path / 'fabrics' / 'multi.yml')


def test_output_dir_default_is_the_project_out_directory(loader, tmp_path):
    """<project>/inventories/<name>/fabric.yml -> <project>/out/<fabric>: outside the inventory directory."""
    inventory = _parse(loader, _write(tmp_path / 'project' / 'inventories' / 'pod', MULTI_INTENT))
    assert inventory.groups['fabric_multi'].get_vars()['aifabric_output_dir'] == str(tmp_path / 'project' / 'out' / 'multi')
    assert 'aifabric_output_dir' not in inventory.hosts['leaf001'].get_vars()  # a group variable, overridable


def test_output_dir_option_is_relative_to_the_config_file(loader, tmp_path, monkeypatch):
    config = {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml', 'output_dir': '../generated'}
    inventory = _parse(loader, _write(tmp_path / 'inventory', MULTI_INTENT, config))
    assert inventory.groups['fabric_multi'].get_vars()['aifabric_output_dir'] == str(tmp_path / 'generated' / 'multi')
    monkeypatch.setenv('FABRIC_OUT', str(tmp_path / 'srv'))
    config['output_dir'] = '$FABRIC_OUT/fabrics'
    inventory = _parse(loader, _write(tmp_path / 'inventory', MULTI_INTENT, config))
    assert inventory.groups['fabric_multi'].get_vars()['aifabric_output_dir'] == str(tmp_path / 'srv' / 'fabrics' / 'multi')


def test_output_dir_must_be_a_path(loader, tmp_path):
    from ansible.errors import AnsibleParserError
    config = {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml', 'output_dir': ' '}
    with pytest.raises(AnsibleParserError, match="output_dir in .*fabric.yml must be a directory path \\(got ' '\\)"):
        _parse(loader, _write(tmp_path, MULTI_INTENT, config))


def test_constructed_groups_and_compose(loader, tmp_path):
    config = {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml',
              'compose': {'switch_name': 'inventory_hostname | upper'},
              'groups': {'first_pod_leaves': "aifabric_role == 'leaf' and inventory_hostname in ['leaf001', 'leaf002']"},
              'keyed_groups': [{'key': 'aifabric_platform', 'prefix': 'os'}]}
    inventory = _parse(loader, _write(tmp_path, MULTI_INTENT, config))
    assert _members(inventory, 'first_pod_leaves') == ['leaf001', 'leaf002']
    assert _members(inventory, 'os_linux') == ['gpu%04d' % n for n in range(1, 9)]
    assert inventory.hosts['spine001'].get_vars()['switch_name'] == 'SPINE001'


def test_two_fabrics_in_one_inventory(loader, tmp_path):
    from ansible.errors import AnsibleParserError
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    plugin = loader.get('aifabric.fabric.fabric')
    inventory = InventoryData()
    plugin.parse(inventory, DataLoader(), _write(tmp_path / 'one', MULTI_INTENT), cache=False)
    other = {'name': 'other', 'topology': {'rail_optimized': {'servers': 2, 'rails': 1, 'leaf_radix': 4},
                                           'naming': {'host': 'b{n:02d}', 'leaf': 'bleaf{n}', 'spine': 'bspine{n}'}},
             'overlay': {'networks': [{'name': 'r0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]}]}}
    plugin.parse(inventory, DataLoader(), _write(tmp_path / 'two', other), cache=False)
    assert _members(inventory, 'fabric_other') == ['b01', 'b02', 'bleaf1', 'bspine1', 'bspine2']
    assert len(_members(inventory, 'fabric_multi')) == 28
    assert inventory.hosts['b01'].get_vars()['aifabric_fabric'] == 'other'
    # Parsing the same fabric again (meta: refresh_inventory) is fine; another fabric with the same names is not.
    plugin.parse(inventory, DataLoader(), str(tmp_path / 'one' / 'fabric.yml'), cache=False)
    clash = dict(MULTI_INTENT, name='clash')
    with pytest.raises(AnsibleParserError, match='Fabric clash has device names that another fabric of this inventory '
                                                 'already uses: gpu0001, gpu0002'):
        plugin.parse(inventory, DataLoader(), _write(tmp_path / 'three', clash), cache=False)


def test_connection_defaults_never_replace_another_fabrics_settings(loader, tmp_path):
    """Two fabrics share platform_sonic: the second one's defaults leave the first one's connection_vars alone."""
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    plugin = loader.get('aifabric.fabric.fabric')
    inventory = InventoryData()
    explicit = {'plugin': 'aifabric.fabric.fabric', 'intent': 'intent.yml',
                'connection_vars': {'platform_sonic': {'ansible_connection': 'ansible.builtin.ssh', 'ansible_user': 'admin'}}}
    plugin.parse(inventory, DataLoader(), _write(tmp_path / 'one', MULTI_INTENT, explicit), cache=False)
    other = {'name': 'other', 'topology': {'rail_optimized': {'servers': 2, 'rails': 1, 'leaf_radix': 4},
                                           'platform': {'leaf': 'sonic', 'spine': 'sonic', 'super_spine': 'sonic'},
                                           'naming': {'host': 'b{n:02d}', 'leaf': 'bleaf{n}', 'spine': 'bspine{n}'}},
             'overlay': {'networks': [{'name': 'r0', 'vlan': 100, 'subnet': '10.100.0.0/24', 'rails': [0]}]}}
    plugin.parse(inventory, DataLoader(), _write(tmp_path / 'two', other), cache=False)
    assert inventory.groups['platform_sonic'].get_vars() == {'ansible_connection': 'ansible.builtin.ssh', 'ansible_user': 'admin'}
    assert inventory.groups['fabric_other'].get_vars()['aifabric_output_dir'] == str(tmp_path.parent / 'out' / 'other')


def test_verify_file(loader, tmp_path):
    plugin = loader.get('aifabric.fabric.fabric')
    _write(tmp_path, MULTI_INTENT)
    (tmp_path / 'hosts.yml').write_text('all: {}\n')
    assert plugin.verify_file(str(tmp_path / 'fabric.yml'))
    assert plugin.verify_file(str(tmp_path / 'intent.yml'))  # claimed: named by fabric.yml next to it
    assert not plugin.verify_file(str(tmp_path / 'hosts.yml'))
    assert not plugin.verify_file(str(tmp_path / 'missing.fabric.yml'))


def test_claimed_intent_adds_nothing(loader, tmp_path):
    from ansible.inventory.data import InventoryData
    from ansible.parsing.dataloader import DataLoader
    _write(tmp_path, MULTI_INTENT)
    inventory = InventoryData()
    loader.get('aifabric.fabric.fabric').parse(inventory, DataLoader(), str(tmp_path / 'intent.yml'))
    assert not inventory.hosts
    assert set(inventory.groups) == {'all', 'ungrouped'}


def test_bad_intent_lists_every_problem(loader, tmp_path):
    from ansible.errors import AnsibleParserError
    intent = {'name': 'Bad_Name', 'topology': {'rail_optimized': {'servers': 0, 'rails': 2}},
              'lossless': {'roce_dscp': 99}}
    path = _write(tmp_path, intent)
    with pytest.raises(AnsibleParserError) as caught:
        _parse(loader, path)
    message = str(caught.value)
    assert 'Fabric intent has 3 problems' in message
    for fragment in ('lossless.roce_dscp: must be between 0 and 63', 'name: must be 1-20 lowercase',
                     'topology.rail_optimized.servers: must be between 1 and 65536', path):
        assert fragment in message
    assert 'Traceback' not in message


def test_missing_intent_file(loader, tmp_path):
    from ansible.errors import AnsibleParserError
    config = tmp_path / 'fabric.yml'
    config.write_text('plugin: aifabric.fabric.fabric\nintent: nowhere.yml\n')
    with pytest.raises(AnsibleParserError, match='nowhere.yml cannot be read'):
        _parse(loader, str(config))


@pytest.fixture
def under_ansible_cli(monkeypatch):
    """context.CLIARGS as an Ansible command line sets it; the frozen objects thawed afterwards."""
    import gc

    from ansible import context
    from ansible.utils.context_objects import CLIArgs
    monkeypatch.setattr(context, 'CLIARGS', CLIArgs({'verbosity': 0}))
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def _designed_objects():
    from ansible_collections.aifabric.fabric.plugins.plugin_utils import design_cache
    design = next(iter(design_cache._CACHE.values()))  # pylint: disable=protected-access
    return design, next(iter(design.nodes.values()))


@pytest.mark.parametrize('collector_on', [True, False])
def test_under_ansible_the_fabric_objects_are_frozen(loader, tmp_path, under_ansible_cli, collector_on):
    """ansible-playbook: the design and the hosts are built without the cyclic collector and frozen (no collector pass
    over them in the run, the forked workers or the interpreter's exit); the collector is left as it was."""
    import gc
    (gc.enable if collector_on else gc.disable)()
    frozen_before = gc.get_freeze_count()
    inventory = _parse(loader, _write(tmp_path, dict(MULTI_INTENT, name='frozen%d' % collector_on)))
    assert gc.isenabled() is collector_on
    assert gc.get_freeze_count() > frozen_before
    young = {id(item) for item in gc.get_objects()}
    design, node = _designed_objects()
    assert not {id(design), id(node), id(inventory.hosts['leaf001'])} & young


def test_under_ansible_a_bad_intent_leaves_the_collector_on(loader, tmp_path, under_ansible_cli):
    import gc
    gc.enable()
    path = _write(tmp_path, {'name': 'x', 'topology': {'rail_optimized': {'servers': 4, 'rails': 99}}})
    with pytest.raises(SystemExit):
        _parse(loader, path)
    assert gc.isenabled()


def test_a_library_caller_keeps_its_collector(loader, tmp_path):
    """Tests and scripts parse many fabrics in one process: nothing is frozen for them."""
    import gc
    frozen_before = gc.get_freeze_count()
    _parse(loader, _write(tmp_path, dict(MULTI_INTENT, name='library')))
    assert gc.get_freeze_count() == frozen_before
    design, node = _designed_objects()
    young = {id(item) for item in gc.get_objects()}
    assert {id(design), id(node)} <= young


def _ansible_inventory(*args):
    env = ansible_env(ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED='1')
    return subprocess.run(ansible_cli('inventory') + list(args),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_lab_directory_through_ansible_inventory():
    """The lab inventory directory holds fabric.yml (its intent is fabrics/lab.yml): only the plugin's groups, no
    warnings."""
    result = _ansible_inventory('-i', LAB, '--list')
    assert result.returncode == 0, result.stderr
    assert 'WARNING' not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    assert sorted(data['all']['children']) == sorted(['ungrouped', 'fabric_lab', 'switches', 'gpu_servers', 'pod_1',
                                                      'platform_frr', 'rail_0', 'rail_1'])
    assert data['leaf']['hosts'] == ['leaf001', 'leaf002', 'leaf003', 'leaf004']
    # Plain strings on every ansible-core release (AWX imports this JSON as it is).
    assert data['_meta']['hostvars']['spine001']['aifabric_platform'] == 'frr'
    assert data['_meta']['hostvars']['spine001']['aifabric_intent'] == LAB_INTENT
    assert data['_meta']['hostvars']['spine001']['aifabric_output_dir'] == os.path.join(ROOT, 'out', 'lab')


def test_export_is_plain_json_and_a_value_with_a_brace_stays_unsafe(tmp_path):
    """`ansible-inventory --list --export` (what an AWX inventory update runs): computed values are plain strings; a
    path with a '{' is marked unsafe on every supported ansible-core (2.17 and 2.18 would template it otherwise)."""
    path = _write(tmp_path / 'in{side}', MULTI_INTENT)
    result = _ansible_inventory('-i', path, '--list', '--export')
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    host = data['_meta']['hostvars']['spine001']
    assert (host['aifabric_fabric'], host['aifabric_role'], host['aifabric_platform'], host['ansible_host']) == (
        'multi', 'spine', 'eos', '192.168.50.18')
    assert data['platform_eos']['vars'] == {'ansible_connection': 'ansible.builtin.ssh'}
    assert host['aifabric_intent'] == {'__ansible_unsafe': str(tmp_path / 'in{side}' / 'intent.yml')}


def test_bad_intent_through_ansible_inventory(tmp_path):
    path = _write(tmp_path, {'name': 'x', 'topology': {'rail_optimized': {'servers': 4, 'rails': 99}}})
    result = _ansible_inventory('-i', path, '--list')
    assert result.returncode != 0
    stderr = ' '.join(result.stderr.split())  # ansible-core < 2.19 wraps warnings at the terminal width
    assert 'topology.rail_optimized.rails: must be between 1 and 16' in stderr
    assert 'Traceback' not in stderr


def test_large_fabric_loads(loader, tmp_path):
    """2,048 servers x 8 rails at 400G on 64-port leaves: about 3,300 devices."""
    intent = {'name': 'big', 'topology': {'rail_optimized': {'servers': 2048, 'rails': 8, 'leaf_radix': 64, 'spine_radix': 64}},
              'management': {'pool': '10.200.0.0/18'},
              'overlay': {'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail, 'subnet': '10.%d.0.0/20' % (100 + rail),
                                        'rails': [rail]} for rail in range(8)]}}
    path = _write(tmp_path, intent)
    inventory = _parse(loader, path)  # its time at 16k GPUs: benchmarks/bench_playbook.py
    assert len(inventory.hosts) == 2048 + 512 + 512 + 256
    assert len(_members(inventory, 'rail_7')) == 64
    assert len(_members(inventory, 'pod_16')) == 128 + 32 + 32
