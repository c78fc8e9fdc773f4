#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stub RDMA/GPU tools for the role and module tests: one program, installed under each tool's name.

The fake host root is the parent of the directory the stub is called from (<root>/fakebin/<tool>). State lives
in <root>/fakehw/state.json, every call is appended to <root>/fakehw/calls.log (one JSON argv per line).
Read-only tools print captured fixture files (tests/unit/fixtures/host). Tools that change state (mlnx_qos,
dcb, ethtool -A, modprobe, ip, systemctl) update the state and print it in the tool's exact output format,
following the tools' source; mlx5 driver behaviour is emulated where it matters to the tests: a PFC mask
change toggles the link (counted in state['link_toggles']), an unchanged mask does not, and mlnx_qos refuses
--trust together with --dscp2prio like the real tool does.
"""

import json
import os
import sys

TOOL = os.path.basename(sys.argv[0])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0])))
STATE_PATH = os.path.join(ROOT, 'fakehw', 'state.json')
FIXTURES = os.environ.get('FAKEHW_FIXTURES') or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))), 'unit', 'fixtures', 'host')


def load():
    with open(STATE_PATH, encoding='utf-8') as handle:
        return json.load(handle)


def save(state):
    with open(STATE_PATH, 'w', encoding='utf-8') as handle:
        json.dump(state, handle, indent=1, sort_keys=True)


def log_call(argv):
    with open(os.path.join(ROOT, 'fakehw', 'calls.log'), 'a', encoding='utf-8') as handle:
        handle.write(json.dumps([TOOL] + argv) + '\n')


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


def fail(message, rc=1):
    sys.stderr.write(message + '\n')
    sys.exit(rc)


def netdev(state, name, tool):
    nic = state.get('netdevs', {}).get(name)
    if nic is None or not nic.get('dcb'):
        if tool == 'dcb':
            fail('Attribute read: Operation not supported')
        fail('Netlink error: Operation not supported (%s has no DCB support)' % name)
    return nic


def dscp_map(nic):
    return {int(dscp): prio for dscp, prio in nic['qos']['dscp2prio'].items()}


def cable_len(nic):
    """The IEEE PFC delay mlx5 reports: its cable length, 0 when the NIC has no driver-managed port buffer
    (mlx5e_dcbnl_ieee_getpfc fills it only when MLX5_BUFFER_SUPPORTED)."""
    return nic['qos'].get('cable_len', 7) if nic.get('port_buffer', True) else 0


def set_cable_len(nic, value):
    """mlx5e_dcbnl_ieee_setpfc: a delay of 0 or from MLX5E_MAX_CABLE_LENGTH (1000) up is ignored, without error."""
    if 0 < value < 1000 and not nic.get('refuse_cable'):
        nic['qos']['cable_len'] = value


def set_pfc(state, nic, mask):
    if nic.get('refuse_pfc'):  # a NIC/firmware that accepts the command but keeps its mask
        return
    if nic['qos']['pfc'] != mask:
        nic['qos']['pfc'] = mask
        state['link_toggles'] = state.get('link_toggles', 0) + 1  # mlx5e_dcbnl_ieee_setpfc -> toggle link


# ----------------------------------------------------------------------------------------------- mlnx_qos

def mlnx_qos_text(nic):
    """The state in mlnx_qos's print format (mlnx-tools python/mlnx_qos pretty_print)."""
    qos = nic['qos']
    out = []
    if nic.get('lldpad'):
        out.append('****** WARNING: lldpad service is running and may overwrite your settings ******\n')
    out.append('DCBX mode: OS controlled')
    trust = 'dscp' if qos['dscp2prio'] else 'pcp'
    out.append('Priority trust state: ' + trust)
    if trust == 'dscp':
        out.append('dscp2prio mapping:')
        lists = [''] * 8
        for dscp in sorted(dscp_map(nic), reverse=True):
            lists[dscp_map(nic)[dscp]] += '%02d,' % dscp
        for prio in range(8):
            text = lists[prio]
            pad = '\tprio:%d dscp:' % prio
            while len(text) > 24:
                out.append(pad + text[:24])
                text = text[24:]
            if text:
                out.append(pad + text)
    buffers = [1 if bit else 0 for bit in qos['pfc']]
    sizes = '20016,156096,0,0,0,0,0,0' if any(qos['pfc']) else '262016,0,0,0,0,0,0,0'
    out.append('Receive buffer size (bytes): %s,max_buffer_size=262016' % sizes)
    out.append('Cable len: %d' % cable_len(nic))
    out.append('PFC configuration:')
    out.append('\tpriority    0   1   2   3   4   5   6   7')
    out.append('\tenabled     ' + ''.join('%1d   ' % bit for bit in qos['pfc'])
               + '\n\tbuffer      ' + ''.join('%1d   ' % bit for bit in buffers))
    prio_tc = [1, 0, 2, 3, 4, 5, 6, 7]
    for tc in range(8):
        out.append('tc: %d ratelimit: unlimited, tsa: vendor' % tc)
        out.extend('\t priority:  %d' % prio for prio in range(8) if prio_tc[prio] == tc)
    return '\n'.join(out) + '\n'


def mlnx_qos(state, argv):
    if '-i' not in argv:
        fail('Interface name is required')
    name = argv[argv.index('-i') + 1]
    nic = netdev(state, name, 'mlnx_qos')
    options = {}
    index = 0
    while index < len(argv):
        if argv[index] in ('--trust', '--pfc', '-f', '--dscp2prio', '--cable_len'):
            options.setdefault(argv[index], []).append(argv[index + 1])
            index += 2
        else:
            index += 1
    for value in options.get('--cable_len', []):  # mlnx_qos: parse_int(0, 0xffff), then set_ieee_pfc(delay)
        if not value.isdigit() or int(value) > 0xffff:
            print('cable_len must be an integer in range 0-65535')
            sys.exit(1)
        set_cable_len(nic, int(value))
    for key in ('-f', '--pfc'):
        for value in options.get(key, []):
            cells = value.split(',')
            if len(cells) != 8 or any(cell not in ('0', '1') for cell in cells):
                print('pfc list must have 8 items')
                sys.exit(1)
            set_pfc(state, nic, [int(cell) for cell in cells])
    if '--dscp2prio' in options and '--trust' in options:
        print('trust and dscp2prio commands cannot be used at the same time.')
        sys.exit(1)
    for value in options.get('--dscp2prio', []):
        action, dscp, prio = value.split(',')
        if action != 'set':
            fail('unsupported in stub: %s' % value)
        nic['qos']['dscp2prio'][str(int(dscp))] = int(prio)
    for value in options.get('--trust', []):
        if value == 'dscp' and not nic['qos']['dscp2prio']:
            nic['qos']['dscp2prio'] = {str(dscp): dscp >> 3 for dscp in range(64)}
        elif value == 'pcp':
            nic['qos']['dscp2prio'] = {}
    save(state)
    sys.stdout.write(mlnx_qos_text(nic))


# ----------------------------------------------------------------------------------------------- dcb

def dcb(state, argv):
    json_out = '-j' in argv  # -N (numeric) changes nothing here: the stub always prints numbers
    words = [word for word in argv if word not in ('-j', '-N', '-s')]
    obj, action = words[0], words[1]
    name = words[words.index('dev') + 1]
    nic = netdev(state, name, 'dcb')
    rest = words[words.index('dev') + 2:]
    qos = nic['qos']
    if obj == 'pfc' and action == 'show':
        if json_out:
            print(json.dumps({'pfc_cap': 8, 'macsec_bypass': False, 'delay': cable_len(nic),
                              'prio_pfc': [bool(bit) for bit in qos['pfc']]}, separators=(',', ':')))
            return
        pfc = 'prio-pfc ' + ''.join('%d:%s ' % (prio, 'on' if bit else 'off') for prio, bit in enumerate(qos['pfc']))
        if rest == ['prio-pfc']:
            print(pfc)
        elif rest == ['delay']:
            print('delay %d ' % cable_len(nic))
        else:
            print('pfc-cap 8 macsec-bypass off delay %d \n' % cable_len(nic) + pfc)
        return
    if obj == 'pfc' and action == 'set':
        # One IEEE PFC set per call (iproute2 dcb_cmd_pfc_set): the mask and the delay together.
        mask = list(qos['pfc'])
        index = 0
        while index < len(rest):
            if rest[index] == 'prio-pfc':
                index += 1
                while index < len(rest) and ':' in rest[index]:
                    key, value = rest[index].split(':')
                    for prio in (range(8) if key == 'all' else [int(key)]):
                        mask[prio] = 1 if value == 'on' else 0
                    index += 1
            elif rest[index] == 'delay':
                set_cable_len(nic, int(rest[index + 1]))
                index += 2
            else:
                fail('unsupported in stub: %s' % rest)
        set_pfc(state, nic, mask)
        save(state)
        return
    if obj == 'app' and action == 'show':
        mapping = dscp_map(nic)
        if json_out:
            print(json.dumps({'dscp_prio': [[dscp, mapping[dscp]] for dscp in sorted(mapping)]} if mapping else {},
                             separators=(',', ':')))
            return
        if mapping:
            print('dscp-prio ' + ''.join('%d:%d ' % (dscp, mapping[dscp]) for dscp in sorted(mapping)))
        return
    if obj == 'app' and action in ('add', 'replace'):
        if rest[0] != 'dscp-prio':
            fail('unsupported in stub: %s' % rest)
        for item in rest[1:]:
            dscp, prio = item.split(':')
            qos['dscp2prio'][str(int(dscp))] = int(prio)
        save(state)
        return
    fail('unsupported in stub: dcb %s' % ' '.join(argv))


# ----------------------------------------------------------------------------------------------- others

def ethtool(state, argv):
    if argv[0] in ('-a', '--show-pause'):
        nic = state['netdevs'].get(argv[1])
        if nic is None or 'pause' not in nic:
            fail('netlink error: Operation not supported')
        pause = nic['pause']
        print('Pause parameters for %s:\nAutonegotiate:\t%s\nRX:\t\t%s\nTX:\t\t%s\n'
              % (argv[1], 'off', 'on' if pause['rx'] else 'off', 'on' if pause['tx'] else 'off'))
        return
    if argv[0] in ('-A', '--pause'):
        nic = state['netdevs'][argv[1]]
        pairs = dict(zip(argv[2::2], argv[3::2]))
        for key in ('rx', 'tx'):
            if key in pairs:
                nic['pause'][key] = pairs[key] == 'on'
        save(state)
        return
    if argv[0] in ('-S', '--statistics'):
        nic = state['netdevs'].get(argv[1], {})
        sys.stdout.write(fixture(nic.get('stats_fixture', 'ethtool/stats_veth.txt')))
        return
    fail('unsupported in stub: ethtool %s' % ' '.join(argv))


def rdma(state, argv):
    words = [word for word in argv if word != '-j']
    if words[:2] != ['link', 'show']:
        fail('unsupported in stub: rdma %s' % ' '.join(argv))
    if not os.path.isdir(os.path.join(ROOT, 'sys', 'class', 'infiniband')):
        fail('Failed to open NETLINK_RDMA socket')  # iproute2's rdma on a kernel without the RDMA core
    links = []
    for index, (name, nic) in enumerate(sorted(state['netdevs'].items())):
        if nic.get('rdma_device'):
            links.append({'ifindex': index, 'ifname': nic['rdma_device'], 'port': 1, 'state': 'ACTIVE',
                          'physical_state': 'LINK_UP', 'netdev': name, 'netdev_index': 10 + index})
    print(json.dumps(links, separators=(',', ':')))


def modprobe(state, argv):
    names = [word for word in argv if not word.startswith('-')]
    name = names[0].replace('_', '-')
    behaviour = state.get('modprobe', {}).get(name, 'not_found')
    if behaviour != 'ok':
        sys.stderr.write(fixture('modprobe/%s.txt' % behaviour))
        sys.exit(1)
    if name == 'nvidia-peermem':
        version = open(os.path.join(ROOT, 'sys/module/nvidia/version'), encoding='utf-8').read()
        os.makedirs(os.path.join(ROOT, 'sys/module/nvidia_peermem'), exist_ok=True)
        with open(os.path.join(ROOT, 'sys/module/nvidia_peermem/version'), 'w', encoding='utf-8') as handle:
            handle.write(version)
        os.makedirs(os.path.join(ROOT, 'sys/kernel/mm/memory_peers/nv_mem'), exist_ok=True)
        with open(os.path.join(ROOT, 'sys/kernel/mm/memory_peers/nv_mem/version'), 'w', encoding='utf-8') as handle:
            handle.write('1.0-0\n')
        path = os.path.join(ROOT, 'proc/modules')
        lines = open(path, encoding='utf-8').read().splitlines()
        out = ['nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)']
        for line in lines:
            fields = line.split()
            if fields[0] == 'ib_core':
                users = fields[3] if fields[3] != '-' else ''
                fields[3] = users + 'nvidia_peermem,'
                fields[2] = str(int(fields[2]) + 1)
                line = ' '.join(fields)
            out.append(line)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write('\n'.join(out) + '\n')


def systemctl(state, argv):
    units = state.setdefault('systemd', {})
    words = [word for word in argv if not word.startswith('-')]
    if not words:
        return
    command = words[0]
    if command == 'daemon-reload':
        state['daemon_reloads'] = state.get('daemon_reloads', 0) + 1
        save(state)
        return
    unit = words[1].strip("'")
    enabled = units.get(unit) == 'enabled'
    if command == 'show':
        print('Id=%s\nLoadState=loaded\nActiveState=inactive\nSubState=dead\nUnitFileState=%s'
              % (unit, 'enabled' if enabled else 'disabled'))
        return
    if command == 'is-enabled':
        print('enabled' if enabled else 'disabled')
        sys.exit(0 if enabled else 1)
    if command == 'enable':
        units[unit] = 'enabled'
        save(state)
        print('Created symlink /etc/systemd/system/%s.wants/%s -> /etc/systemd/system/%s'
              % (unit.split('@')[0], unit, unit.split('@')[0] + '@.service'), file=sys.stderr)
        return
    fail('unsupported in stub: systemctl %s' % ' '.join(argv))


def ip(state, argv):
    if argv[:2] == ['link', 'set'] and 'mtu' in argv:
        name = argv[argv.index('dev') + 1]
        with open(os.path.join(ROOT, 'sys/class/net', name, 'mtu'), 'w', encoding='utf-8') as handle:
            handle.write(argv[argv.index('mtu') + 1] + '\n')
        return
    fail('unsupported in stub: ip %s' % ' '.join(argv))


def fixture_tool(state, argv):
    key = ' '.join([TOOL] + argv)
    for pattern, name in state.get('outputs', {}).items():
        if key == pattern or (pattern.endswith('*') and key.startswith(pattern[:-1])):
            if isinstance(name, dict):
                sys.stdout.write(fixture(name['stdout']) if name.get('stdout') else '')
                if name.get('stderr'):
                    sys.stderr.write(fixture(name['stderr']))
                sys.exit(name.get('rc', 0))
            sys.stdout.write(fixture(name))
            return
    fail('%s: no output configured for %r in the fake host' % (TOOL, key), rc=127)


TOOLS = {'mlnx_qos': mlnx_qos, 'dcb': dcb, 'ethtool': ethtool, 'rdma': rdma, 'modprobe': modprobe,
         'systemctl': systemctl, 'ip': ip}


def main():
    argv = sys.argv[1:]
    log_call(argv)
    state = load()
    TOOLS.get(TOOL, fixture_tool)(state, argv)


if __name__ == '__main__':
    main()
