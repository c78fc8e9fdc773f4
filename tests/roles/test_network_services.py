# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_network on a server whose interfaces systemd-networkd configures, and on one where netplan does: the role runs
through ansible-playbook in a network and mount namespace of its own with the real systemd-networkd (Debian 12's
systemd 252) and a D-Bus system bus, so `networkctl reload` and `reconfigure` reach the real daemon, which applies
the files the role wrote; the rails (veth pairs named as the intent's rail interfaces) must then hold the designed
addresses, MTU, tables and rules, a second run must change nothing, and check mode must write nothing.

netplan: the real `netplan generate` checks the file and writes networkd's files from it; `netplan apply` itself
restarts networkd through systemd, which does not run as PID 1 here, so a stand-in on PATH does what it does with the
networkd renderer: `netplan generate`, then networkd reloads and reconfigures netplan's interfaces.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.unit.utils.ansible_cli import ansible_cli, ansible_env
from tests.unit.utils.paths import ROOT

pytestmark = pytest.mark.long_module  # converges of the roles on one fake server: started first (tests/conftest.py)

HERE = os.path.dirname(os.path.abspath(__file__))
INTENT = os.path.join(HERE, 'files', 'intent.yml')
HOST = 'gpu0001'
PLAY = """- name: Rails of one GPU server
  hosts: %s
  gather_facts: false
  roles:
    - role: aifabric.fabric.host_network
      vars:
        host_network_boot_unit: false
""" % HOST
# Everything the services write is on tmpfs of this mount namespace; /sys is this network namespace's (read-only: no
# udev runs here, and networkd then takes links as they are).
NAMESPACE = r"""
set -eu
work=$1; shift
mount -t sysfs -o ro sysfs /sys
for dir in /run/systemd /run/dbus /run/udev /run/netplan /etc/systemd/network /etc/netplan /etc/sysctl.d /etc/aifabric; do
  mkdir -p "$dir" && mount -t tmpfs tmpfs "$dir"
done
ip link set lo up
for interface in "$@"; do
  ip link add "$interface" type veth peer name "p-$interface" && ip link set "p-$interface" up
done
dbus-daemon --system --fork --nopidfile
mkdir -p /run/systemd/netif && chown systemd-network: /run/systemd/netif
/lib/systemd/systemd-networkd >"$work/networkd.log" 2>&1 &
for _ in $(seq 50); do networkctl list >/dev/null 2>&1 && break; sleep 0.2; done
state() { ip -j address show >"$work/$1.addr.json"; ip -j -4 rule show >"$work/$1.rule.json"
          ip -j -4 route show table all >"$work/$1.route.json"; ls /etc/systemd/network /etc/netplan >"$work/$1.files"; }
run() { $PLAYBOOK -i "$work/inventory.json" "$work/play.yml" "${@:2}" >"$work/$1.out" 2>&1 || true; }
run networkd-check --check --diff; state networkd-check
run networkd; state networkd
run networkd-again
# netplan configures this server from now on: a file of its own, and the stand-in for `netplan apply`
printf 'network:\n  version: 2\n' >/etc/netplan/01-netcfg.yaml && chmod 600 /etc/netplan/01-netcfg.yaml
run netplan-check --check --diff; state netplan-check
run netplan; state netplan
run netplan-again
"""
NETPLAN_APPLY = """#!/bin/sh
[ "$1" = apply ] || exec /usr/sbin/netplan "$@"
/usr/sbin/netplan generate || exit 1
networkctl reload || exit 1
exec networkctl reconfigure $(ls /run/systemd/network | sed -n 's/^10-netplan-\\(.*\\)\\.network$/\\1/p')
"""


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp('network-services')
    sys.path.insert(0, os.path.join(ROOT, '.ansible', 'collections'))
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    model = design_from_file(INTENT).device(HOST)
    (work / 'play.yml').write_text(PLAY)
    (work / 'inventory.json').write_text(json.dumps({'all': {'hosts': {HOST: {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable, 'aifabric_intent': INTENT}}}}))
    tools = work / 'bin'
    tools.mkdir()
    (tools / 'netplan').write_text(NETPLAN_APPLY)
    (tools / 'netplan').chmod(0o755)
    env = ansible_env(PLAYBOOK=' '.join(ansible_cli('playbook')),
                      PATH=os.pathsep.join([str(tools), os.path.dirname(sys.executable), '/usr/sbin', '/usr/bin', '/sbin',
                                            '/bin']))
    interfaces = [rail['interface'] for rail in model['rails']]
    result = subprocess.run(['unshare', '--mount', '--net', '--pid', '--fork', 'bash', '-c', NAMESPACE, 'namespace',
                             str(work)] + interfaces, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return work, model


def _recap(work, name):
    text = (work / (name + '.out')).read_text()
    assert 'PLAY RECAP' in text, text[-3000:]
    line = next(line for line in text.split('PLAY RECAP', 1)[1].splitlines() if line.startswith(HOST))
    return {key: int(value) for key, value in (part.split('=') for part in line.split(':', 1)[1].split())}, text


def _rails_hold_the_design(work, name, model):
    addresses = {item['ifname']: item for item in json.loads((work / (name + '.addr.json')).read_text())}
    rules = json.loads((work / (name + '.rule.json')).read_text())
    routes = json.loads((work / (name + '.route.json')).read_text())
    for rail in model['rails']:
        link = addresses[rail['interface']]
        assert link['mtu'] == model['mtu']
        assert rail['address'] in ['%s/%d' % (item['local'], item['prefixlen']) for item in link['addr_info']
                                   if item['family'] == 'inet']
        assert any(rule.get('src') == rail['ip'] and str(rule.get('table')) == str(rail['table'])
                   and rule['priority'] == rail['rule_priority'] for rule in rules), rules
        assert any(str(route.get('table')) == str(rail['table']) and route.get('dev') == rail['interface']
                   for route in routes), routes


def test_check_mode_writes_nothing_on_a_networkd_server(runs):
    work, model = runs
    recap, text = _recap(work, 'networkd-check')
    assert recap['failed'] == 0 and recap['changed'] >= 1, text[-3000:]
    assert '60-aifabric-rails-%s.network (absent)' % model['rails'][0]['interface'] in text  # the diff names the file
    assert (work / 'networkd-check.files').read_text().split() == ['/etc/netplan:', '/etc/systemd/network:']


def test_systemd_networkd_applies_the_rails_and_a_second_run_changes_nothing(runs):
    work, model = runs
    recap, text = _recap(work, 'networkd')
    assert recap['failed'] == 0 and recap['changed'] >= 1, text[-3000:]
    files = (work / 'networkd.files').read_text().split()
    assert ['60-aifabric-rails-%s.network' % rail['interface'] for rail in model['rails']] == [
        name for name in files if name.startswith('60-')]
    _rails_hold_the_design(work, 'networkd', model)
    again, text = _recap(work, 'networkd-again')
    assert (again['failed'], again['changed']) == (0, 0), text[-3000:]


def test_netplan_takes_over_the_rails_from_the_networkd_files(runs):
    work, model = runs
    recap, text = _recap(work, 'netplan')
    assert recap['failed'] == 0 and recap['changed'] >= 1, text[-3000:]
    files = (work / 'netplan.files').read_text().split()
    assert '60-aifabric-rails.yaml' in files and not [name for name in files if name.startswith('60-aifabric-rails-')]
    _rails_hold_the_design(work, 'netplan', model)
    again, text = _recap(work, 'netplan-again')
    assert (again['failed'], again['changed']) == (0, 0), text[-3000:]


def test_check_mode_on_a_netplan_server_shows_the_move_and_writes_nothing(runs):
    """netplan takes over from networkd's files: check mode with --diff names the netplan file it would write and the
    networkd files it would remove, and leaves both directories as they were."""
    work, model = runs
    recap, text = _recap(work, 'netplan-check')
    assert recap['failed'] == 0 and recap['changed'] >= 1, text[-3000:]
    assert '60-aifabric-rails.yaml (absent)' in text, text[-3000:]
    for rail in model['rails']:
        assert '60-aifabric-rails-%s.network (removed)' % rail['interface'] in text, text[-3000:]
    files = (work / 'netplan-check.files').read_text().split()
    assert sorted(files) == sorted((work / 'networkd.files').read_text().split() + ['01-netcfg.yaml'])
    _rails_hold_the_design(work, 'netplan-check', model)
