# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The management plane in every rendered switch configuration (a full-config replace must not lock the operator
out) and the password hashes that come only from Ansible variables."""

import copy
import json

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import (
    SecretsError, render_device, switch_user_hashes)

HASH = '$6$unitsalt$' + 'a' * 86
INTENT = {
    'name': 'mgmt',
    'topology': {
        'rail_optimized': {'servers': 4, 'rails': 2, 'nic_speed_gbps': 400, 'leaf_radix': 4},
        'platform': {'leaf': 'eos', 'spine': 'nvue', 'super_spine': 'nvue'},
        'asic': {'leaf': 'tomahawk5', 'spine': 'spectrum4', 'super_spine': 'spectrum4'},
        'devices': {'leaf002': {'platform': 'sonic'}},
    },
    'overlay': {'networks': [{'name': 'rail0', 'vlan': 101, 'subnet': '10.101.0.0/24', 'rails': [0]},
                             {'name': 'rail1', 'vlan': 102, 'subnet': '10.102.0.0/24', 'rails': [1]}]},
    'management': {
        'pool': '192.168.100.0/24', 'ntp_servers': ['192.168.100.2'], 'syslog_servers': ['192.168.100.3'],
        'dns_servers': ['192.168.100.4'], 'dns_domain': 'lab.example.net', 'tacacs_servers': ['192.168.100.5'],
        'users': [{'name': 'admin'}, {'name': 'ops', 'role': 'operator'}],
    },
}
USERS = {'admin': HASH, 'ops': HASH}


def _design(**management):
    intent = copy.deepcopy(INTENT)
    intent['management'].update(management)
    return design_from_intent(intent)


DESIGN = _design()


def test_the_model_carries_interface_address_gateway_vrf_and_services():
    model = DESIGN.device('leaf001')['management']
    assert model['interface'] == 'Management1' and model['vrf'] == 'MGMT'
    assert model['address'] == '%s/24' % DESIGN.device('leaf001')['management_ip']
    assert model['gateway'] == '192.168.100.1'  # default: the first host of the pool
    assert DESIGN.device('spine001')['management']['interface'] == 'eth0'
    assert DESIGN.device('spine001')['management']['vrf'] == 'mgmt'
    assert 'hash' not in json.dumps(model)  # the design never holds secrets


def test_eos_keeps_eapi_ssh_and_the_management_interface():
    text = render_device(DESIGN, 'leaf001', USERS)['startup-config.cfg']
    address = DESIGN.device('leaf001')['management']['address']
    for line in ('vrf instance MGMT', 'interface Management1\n   description management\n   vrf MGMT\n   ip address %s'
                 % address, 'ip route vrf MGMT 0.0.0.0/0 192.168.100.1', 'ntp server vrf MGMT 192.168.100.2',
                 'logging vrf MGMT host 192.168.100.3', 'ip name-server vrf MGMT 192.168.100.4',
                 'dns domain lab.example.net', 'tacacs-server host 192.168.100.5 vrf MGMT',
                 'aaa authentication login default group aifabric local',
                 'username admin privilege 15 role network-admin secret sha512 %s' % HASH,
                 'username ops privilege 1 role network-operator secret sha512 %s' % HASH,
                 'management api http-commands\n   protocol https\n   no shutdown\n   !\n   vrf MGMT\n      no shutdown',
                 'management ssh\n   vrf MGMT\n      no shutdown'):
        assert line in text, line
    assert text.endswith('!\nend\n')


def test_sonic_keeps_eth0_in_the_mgmt_vrf():
    tables = json.loads(render_device(DESIGN, 'leaf002', USERS)['config_db.json'])
    address = DESIGN.device('leaf002')['management']['address']
    assert tables['MGMT_PORT'] == {'eth0': {'admin_status': 'up', 'alias': 'eth0', 'description': 'management'}}
    assert tables['MGMT_VRF_CONFIG'] == {'vrf_global': {'mgmtVrfEnabled': 'true'}}
    assert tables['MGMT_INTERFACE'] == {'eth0|%s' % address: {'gwaddr': '192.168.100.1'}}
    assert tables['NTP'] == {'global': {'src_intf': 'eth0', 'vrf': 'mgmt'}}
    assert set(tables['NTP_SERVER']) == {'192.168.100.2'} and set(tables['SYSLOG_SERVER']) == {'192.168.100.3'}
    assert set(tables['DNS_NAMESERVER']) == {'192.168.100.4'}
    assert tables['TACPLUS_SERVER']['192.168.100.5']['vrf'] == 'mgmt'
    assert tables['AAA']['authentication']['login'] == 'tacacs+,local'
    assert HASH not in json.dumps(tables)  # SONiC users are Linux accounts, not CONFIG_DB rows


def test_nvue_keeps_eth0_services_and_users():
    tree = yaml.safe_load(render_device(DESIGN, 'spine001', USERS)['startup.yaml'])[0]['set']
    address = DESIGN.device('spine001')['management']['address']
    assert tree['interface']['eth0'] == {'description': 'management', 'type': 'eth', 'ip': {
        'address': {address: {}}, 'gateway': {'192.168.100.1': {}}, 'vrf': 'mgmt'}}
    assert tree['service'] == {'dns': {'mgmt': {'search': {'lab.example.net': {}}, 'server': {'192.168.100.4': {}}}},
                               'ntp': {'mgmt': {'server': {'192.168.100.2': {}}}}}
    # syslog is `system syslog server <id> vrf <vrf>` from Cumulus Linux 5.13 (the default release is 5.14)
    assert tree['system']['syslog'] == {'server': {'192.168.100.3': {'vrf': 'mgmt'}}}
    assert tree['system']['aaa']['user'] == {'admin': {'hashed-password': HASH, 'role': 'system-admin'},
                                             'ops': {'hashed-password': HASH, 'role': 'nvue-monitor'}}


def test_without_the_vrf_everything_stays_in_the_default_vrf():
    design = _design(vrf=False)
    eos = render_device(design, 'leaf001', USERS)['startup-config.cfg']
    assert 'vrf instance MGMT' not in eos and 'ntp server 192.168.100.2' in eos and 'management ssh' not in eos
    assert 'ip route 0.0.0.0/0 192.168.100.1' in eos
    assert 'MGMT_VRF_CONFIG' not in json.loads(render_device(design, 'leaf002', USERS)['config_db.json'])
    nvue = yaml.safe_load(render_device(design, 'spine001', USERS)['startup.yaml'])[0]['set']
    assert 'vrf' not in nvue['interface']['eth0']['ip'] and 'default' in nvue['service']['ntp']


def test_an_explicit_gateway_is_used():
    design = _design(gateway='192.168.100.254')
    assert 'ip route vrf MGMT 0.0.0.0/0 192.168.100.254' in render_device(design, 'leaf001', USERS)['startup-config.cfg']


@pytest.mark.parametrize('users,words', [
    (None, 'aifabric_switch_users is not set: management.users declares admin, ops'),
    ({'admin': HASH}, 'aifabric_switch_users.ops is missing'),
    ({'admin': HASH, 'ops': 'hunter2'}, 'aifabric_switch_users.ops is not a SHA-512 crypt hash'),
    ({'admin': HASH, 'ops': '$1$md5salt$abc'}, 'aifabric_switch_users.ops is not a SHA-512 crypt hash'),
    ({'admin': HASH, 'ops': HASH + '\nusername evil'}, 'aifabric_switch_users.ops is not a SHA-512 crypt hash'),
])
def test_hashes_are_checked_and_never_echoed(users, words):
    with pytest.raises(SecretsError) as caught:
        switch_user_hashes(DESIGN.intent['management']['users'], users)
    assert words in str(caught.value)
    assert 'hunter2' not in str(caught.value) and 'md5salt' not in str(caught.value)


def test_a_device_rendered_without_hashes_fails_naming_the_variable():
    with pytest.raises(SecretsError, match='leaf001: no password hash for admin, ops .set aifabric_switch_users.'):
        render_device(DESIGN, 'leaf001')


def test_no_users_declared_needs_no_variable():
    design = _design(users=[])
    assert switch_user_hashes([], None) == {}
    assert 'username' not in render_device(design, 'leaf001')['startup-config.cfg']
