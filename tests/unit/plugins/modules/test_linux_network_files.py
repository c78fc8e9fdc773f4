# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""linux_network_files: the rails of every GPU server of the lab and the 1,024-GPU pod as netplan and systemd-networkd
files, checked by the real netplan (`netplan generate`, Debian's netplan.io), whose own translation to networkd must
be the files this collection writes; and the module on a fake root (detection, check mode, idempotence, netplan's
refusal and a failed apply leave the server as it was). tests/roles/test_network_services.py applies them with the
real systemd-networkd."""

import os
import stat
import subprocess

import pytest

from tests.roles.fakehw.runner import run_module
from tests.unit.plugins.modules.test_linux_netdev import ROOT, host_state

from ansible_collections.aifabric.fabric.plugins.module_utils import network_files
from ansible_collections.aifabric.fabric.plugins.module_utils.linux_netdev import validate
from ansible_collections.aifabric.fabric.plugins.modules import linux_network_files
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file

NETPLAN = '/usr/sbin/netplan'
POD1K = design_from_file(os.path.join(ROOT, 'fabrics', 'pod1k.yml'))


def _sections(text):
    """A systemd unit file as [(section, sorted key=value lines)], comments left out."""
    sections = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('['):
            sections.append((line, []))
        else:
            sections[-1][1].append(line)
    return [(name, sorted(lines)) for name, lines in sections]


def _netplan_generate(tmp_path, text):
    root = tmp_path / 'root'
    (root / 'etc' / 'netplan').mkdir(parents=True)
    path = root / 'etc' / 'netplan' / '60-aifabric-rails.yaml'
    path.write_text(text)
    path.chmod(0o600)
    result = subprocess.run([NETPLAN, 'generate', '--root-dir', str(root)], capture_output=True, text=True, check=False)
    return result, root / 'run' / 'systemd' / 'network'


@pytest.mark.parametrize('node, policy_routing', [('gpu0001', True), ('gpu0004', True), ('gpu0002', False)])
def test_netplan_reads_the_lab_rails_as_the_networkd_files_we_write(tmp_path, node, policy_routing):
    state = host_state(node, policy_routing)
    result, generated = _netplan_generate(tmp_path, network_files.netplan_yaml(state))
    assert result.returncode == 0, result.stderr
    ours = network_files.networkd_files(state)
    assert len(ours) == len(state['links']) >= 1
    for link in state['links']:
        theirs = _sections((generated / ('10-netplan-%s.network' % link['name'])).read_text())
        # netplan adds its default LinkLocalAddressing=ipv6, which is also networkd's own default
        theirs = [(name, [line for line in lines if line != 'LinkLocalAddressing=ipv6']) for name, lines in theirs]
        assert _sections(ours['60-aifabric-%s.network' % link['name']]) == theirs


def test_netplan_reads_every_server_of_the_1024_gpu_pod(tmp_path):
    """128 servers x 8 rails with policy routing and routes via the rail gateways, in one netplan run each."""
    for index, node in enumerate(node for node in POD1K.nodes.values() if node.role == 'host'):
        if index % 16:  # every 16th server: the same shape, other addresses and tables
            continue
        model = POD1K.device(node.name)
        state = validate({
            'links': [{'name': rail['interface'], 'mtu': model['mtu'], 'state': 'up', 'addresses': [rail['address']]}
                      for rail in model['rails']],
            'routes': [dict({'to': route['to'], 'via': route['via']}, dev=rail['interface'], src=rail['ip'],
                            table=rail['table']) for rail in model['rails'] for route in rail['routes']],
            'rules': [{'from': rail['ip'] + '/32', 'table': rail['table'], 'priority': rail['rule_priority']}
                      for rail in model['rails']]})
        result, generated = _netplan_generate(tmp_path / node.name, network_files.netplan_yaml(state))
        assert result.returncode == 0, (node.name, result.stderr)
        assert len(os.listdir(generated)) >= 8


def test_what_the_formats_cannot_hold_is_refused_by_name():
    with pytest.raises(network_files.StateShapeError, match='br100 is a bridge'):
        network_files.netplan_yaml(validate({'links': [{'name': 'br100', 'kind': 'bridge'}]}))
    with pytest.raises(network_files.StateShapeError, match="leaves through 'eth9'"):
        network_files.networkd_files(validate({'links': [{'name': 'eth1', 'addresses': ['10.0.0.1/24']}],
                                               'routes': [{'to': '10.1.0.0/16', 'via': '10.0.0.254', 'dev': 'eth9'}]}))


# ------------------------------------------------------------------------------------------------ the module
STATE = {'links': [{'name': 'ens1f0np0', 'mtu': 9000, 'state': 'up', 'addresses': ['10.100.0.11/24']},
                   {'name': 'ens2f0np0', 'mtu': 9000, 'state': 'up', 'addresses': ['10.101.0.11/24']}],
         'routes': [{'to': '10.100.0.0/24', 'dev': 'ens1f0np0', 'src': '10.100.0.11', 'table': 100, 'scope': 'link'},
                    {'to': '10.101.0.0/24', 'dev': 'ens2f0np0', 'src': '10.101.0.11', 'table': 101, 'scope': 'link'}],
         'rules': [{'from': '10.100.0.11/32', 'table': 100, 'priority': 1000},
                   {'from': '10.101.0.11/32', 'table': 101, 'priority': 1001}]}


def _stub(directory, name, script):
    path = directory / name
    path.write_text('#!/bin/sh\n' + script)
    path.chmod(0o755)


@pytest.fixture
def server(tmp_path):
    """A fake root and stub tools that log their arguments to <root>/calls."""
    root, tools = tmp_path / 'root', tmp_path / 'bin'
    root.mkdir()
    tools.mkdir()
    log = root / 'calls'
    for tool in ('networkctl', 'nmcli'):
        _stub(tools, tool, 'echo "%s $*" >> %s\n' % (tool, log))
    return root, tools, log


def _run(root, tools, check=False, **args):
    args = dict({'config': STATE, 'root': str(root), 'bin_path': [str(tools)]}, **args)
    return run_module(linux_network_files.main, args, check_mode=check, diff=True)


def test_without_a_network_service_the_script_keeps_the_rails_and_nothing_is_written(server):
    root, tools, log = server
    result = _run(root, tools)
    assert (result['backend'], result['changed'], result['files'], result['commands']) == ('script', False, [], [])
    assert result['reason'] == 'neither netplan nor systemd-networkd configures this server'
    assert not log.exists()


def test_networkd_gets_one_file_per_rail_applied_once_and_stale_files_go(server):
    root, tools, log = server
    (root / 'run' / 'systemd' / 'netif').mkdir(parents=True)
    check = _run(root, tools, check=True)
    assert (check['backend'], check['changed']) == ('networkd', True)
    assert check['files'] == ['/etc/systemd/network/60-aifabric-rails-ens1f0np0.network',
                              '/etc/systemd/network/60-aifabric-rails-ens2f0np0.network']
    assert [entry['before_header'] for entry in check['diff']] == [path + ' (absent)' for path in check['files']]
    assert not (root / 'etc').exists() and not log.exists()  # check mode writes and runs nothing

    first = _run(root, tools)
    assert first['changed'] and log.read_text() == ('networkctl reload\n'
                                                    'networkctl reconfigure ens1f0np0 ens2f0np0\n')
    written = (root / 'etc' / 'systemd' / 'network' / '60-aifabric-rails-ens1f0np0.network').read_text()
    assert 'Name=ens1f0np0\n' in written and 'MTUBytes=9000\n' in written and 'Priority=1000\n' in written
    again = _run(root, tools)
    assert (again['changed'], again['commands']) == (False, [])

    one_rail = {'links': STATE['links'][:1], 'routes': STATE['routes'][:1], 'rules': STATE['rules'][:1]}
    shrunk = _run(root, tools, config=one_rail)
    assert shrunk['removed'] == ['/etc/systemd/network/60-aifabric-rails-ens2f0np0.network']
    assert sorted(os.listdir(root / 'etc' / 'systemd' / 'network')) == ['60-aifabric-rails-ens1f0np0.network']


def test_netplan_gets_one_private_file_checked_by_netplan_before_it_is_applied(server):
    root, tools, log = server
    (root / 'etc' / 'netplan').mkdir(parents=True)
    (root / 'etc' / 'netplan' / '01-netcfg.yaml').write_text('network: {version: 2}\n')
    (root / 'run' / 'systemd' / 'netif').mkdir(parents=True)  # networkd runs too: netplan owns the configuration
    _stub(tools, 'netplan', 'echo "netplan $*" >> %s\n[ "$1" = generate ] && [ -n "$3" ] && exec %s "$@"\nexit 0\n'
          % (log, NETPLAN))
    result = _run(root, tools)
    assert (result['backend'], result['reason']) == ('netplan', 'netplan configures this server (/etc/netplan/01-netcfg.yaml)')
    path = root / 'etc' / 'netplan' / '60-aifabric-rails.yaml'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # netplan warns about configurations others can read
    calls = log.read_text().splitlines()
    assert calls[0].startswith('netplan generate --root-dir ') and calls[1:] == ['netplan generate', 'netplan apply']
    assert _run(root, tools)['changed'] is False


def test_a_file_netplan_refuses_changes_nothing(server):
    root, tools, log = server
    (root / 'etc' / 'netplan').mkdir(parents=True)
    (root / 'etc' / 'netplan' / '01-netcfg.yaml').write_text('network: {version: 2}\n')
    _stub(tools, 'netplan', 'echo "netplan $*" >> %s\necho "Error in network definition: bad" >&2\nexit 1\n' % log)
    result = _run(root, tools)
    assert result['failed'] and 'netplan refuses the rendered /etc/netplan/60-aifabric-rails.yaml, nothing was ' \
                                'changed: Error in network definition: bad' in result['msg']
    assert sorted(os.listdir(root / 'etc' / 'netplan')) == ['01-netcfg.yaml']
    assert len(log.read_text().splitlines()) == 1  # only the check, never an apply


def test_a_failed_apply_puts_the_previous_files_back_and_applies_them(server):
    root, tools, log = server
    (root / 'run' / 'systemd' / 'netif').mkdir(parents=True)
    assert _run(root, tools)['changed']
    before = (root / 'etc' / 'systemd' / 'network' / '60-aifabric-rails-ens1f0np0.network').read_text()
    _stub(tools, 'networkctl', 'echo "networkctl $*" >> %s\n[ "$1" = reconfigure ] && [ ! -e %s ] && '
          '{ touch %s; echo "Failed to reconfigure" >&2; exit 1; }\nexit 0\n' % (log, root / 'once', root / 'once'))
    changed = {'links': [dict(STATE['links'][0], mtu=4200)] + STATE['links'][1:], 'routes': STATE['routes'],
               'rules': STATE['rules']}
    result = _run(root, tools, config=changed)
    assert result['failed'] and result['msg'] == (
        'networkctl reconfigure ens1f0np0 ens2f0np0 failed (exit 1): Failed to reconfigure; the previous files were '
        'put back and applied')
    assert (root / 'etc' / 'systemd' / 'network' / '60-aifabric-rails-ens1f0np0.network').read_text() == before


def test_network_manager_leaves_the_rails_to_the_script(server):
    root, tools, log = server
    (root / 'run' / 'NetworkManager').mkdir(parents=True)
    result = _run(root, tools)
    assert (result['backend'], result['files']) == ('script', ['/etc/NetworkManager/conf.d/90-aifabric-rails.conf'])
    assert (root / 'etc' / 'NetworkManager' / 'conf.d' / '90-aifabric-rails.conf').read_text().endswith(
        '[keyfile]\nunmanaged-devices=interface-name:ens1f0np0;interface-name:ens2f0np0\n')
    assert log.read_text() == 'nmcli general reload conf\n'


def test_a_name_that_could_leave_the_directory_is_refused(server):
    root, tools, _log = server
    result = _run(root, tools, name='../x')
    assert result['failed'] and "name must be 1-40 letters, digits or \"-\" (it names files), got '../x'" in result['msg']
