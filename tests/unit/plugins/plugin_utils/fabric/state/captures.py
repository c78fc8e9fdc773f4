# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Load the captured device outputs of tests/unit/fixtures/state/captured as gathered state.

Each scenario directory holds one directory per device with the files the capture script wrote: the
command's stdout, plus <file>.rc / <file>.stderr when the command failed. Ping files hold the command
result as Ansible registers it (cmd, rc, stdout, stderr).
"""

import json
import os

# The checks' tests take the repository's root from here.
from tests.unit.utils.paths import ROOT as REPO  # noqa: F401  pylint: disable=unused-import
from tests.unit.utils.platforms import recorded as recorded_path

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'fixtures', 'state')
FIXTURES = os.path.normpath(FIXTURES)
CAPTURED = os.path.join(FIXTURES, 'captured')
INTENT = os.path.join(CAPTURED, 'intent.yml')
FILE_KEYS = {
    'bgp_vrf_all_summary.json': 'bgp_summary',
    'evpn_vni.json': 'evpn_vni',
    'bgp_evpn_vni.json': 'bgp_evpn_vni',
    'bgp_evpn_route_type_multicast.json': 'evpn_type3',
    'lldp_neighbors.json': 'lldp',
    'ip_addr.json': 'interfaces',
}


def read(*parts):
    with open(os.path.join(FIXTURES, *parts), encoding='utf-8') as handle:
        return handle.read()


def read_recorded(platform, *parts):
    """A recorded output of `platform`, in its test folder (tests/unit/platforms/<platform>/recorded)."""
    with open(recorded_path(platform, *parts), encoding='utf-8') as handle:
        return handle.read()


def command_result(path):
    """{'rc', 'stdout', 'stderr'} of a captured command (path relative to captured/)."""
    full = os.path.join(CAPTURED, path)
    with open(full, encoding='utf-8') as handle:
        stdout = handle.read()
    rc, stderr = 0, ''
    if os.path.exists(full + '.rc'):
        with open(full + '.rc', encoding='utf-8') as handle:
            rc = int(handle.read().strip())
    if os.path.exists(full + '.stderr'):
        with open(full + '.stderr', encoding='utf-8') as handle:
            stderr = handle.read()
    return {'rc': rc, 'stdout': stdout, 'stderr': stderr}


def ping_result(path):
    with open(os.path.join(CAPTURED, path), encoding='utf-8') as handle:
        return json.load(handle)


def _routes(states):
    """`ip -j -4 route show table main` of each leaf, for captures made before the FRR gatherer read it: NOT
    recorded, derived from the captured BGP summaries (each leaf learns the other leaf's loopbacks from the spine
    when both hold an Established IPv4 session to it), in the shape iproute2 6.1 prints (as recorded in the lab:
    connected /31s, then `proto bgp metric 20` with one nexthop per uplink)."""
    sessions = {}
    for device, raw in states.items():
        try:
            data = json.loads(raw.get('bgp_summary', {}).get('stdout') or '{}')
        except ValueError:
            data = {}
        if raw.get('bgp_summary', {}).get('rc'):
            data = {}
        ipv4 = (data.get('default') or {}).get('ipv4Unicast') or {}
        sessions[device] = {peer: (value.get('hostname'), value.get('state')) for peer, value in
                            (ipv4.get('peers') or {}).items()}
    loopbacks = {'leaf001': ['10.254.0.1', '10.254.16.1'], 'leaf002': ['10.254.0.2', '10.254.16.2']}
    for leaf, addresses in loopbacks.items():
        if leaf not in states or 'bgp_summary' not in states[leaf]:
            continue
        other = next(name for name in loopbacks if name != leaf)
        up = [(peer, host) for peer, (host, state) in sessions.get(leaf, {}).items() if state == 'Established']
        spine_has = any(host == other and state == 'Established'
                        for host, state in sessions.get('spine001', {}).values())
        routes = [{'dst': '10.0.0.%d/31' % (0 if leaf == 'leaf001' else 2), 'dev': 'eth2', 'protocol': 'kernel',
                   'scope': 'link', 'prefsrc': '10.0.0.%d' % (1 if leaf == 'leaf001' else 3), 'flags': []}]
        if up and spine_has:
            for address in loopbacks[other]:
                routes.append({'dst': address, 'nhid': 20, 'protocol': 'bgp', 'metric': 20, 'flags': [],
                               'gateway': up[0][0], 'dev': 'eth2'})
        states[leaf]['routes'] = {'rc': 0, 'stdout': json.dumps(routes), 'stderr': ''}
    return states


def scenario_states(scenario, interface='eth1'):
    """{device: {source key: raw result}} of one captured scenario (with the leaves' routes derived: _routes)."""
    base = os.path.join(CAPTURED, scenario)
    states = {}
    for device in sorted(os.listdir(base)):
        raw = {}
        for name in sorted(os.listdir(os.path.join(base, device))):
            if name.endswith(('.rc', '.stderr')):
                continue
            relative = os.path.join(scenario, device, name)
            if name in FILE_KEYS:
                raw[FILE_KEYS[name]] = command_result(relative)
            elif name.startswith('ping_jumbo_'):
                raw['jumbo:%s:%s' % (interface, name[len('ping_jumbo_'):-len('.json')])] = ping_result(relative)
            elif name.startswith('ping_'):
                raw['ping:%s:%s' % (interface, name[len('ping_'):-len('.json')])] = ping_result(relative)
        states[device] = raw
    return _routes(states)


# --------------------------------------------------------------------------- platform outputs (EOS, NVUE, SONiC)
def _commands(model):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import sources
    gatherer = sources.gatherer_for(model)
    return gatherer, [(key, gatherer.reader.split(command)) for key, command in gatherer.commands(model)]


def eos_raw(model, release='4.32', device=None):
    """What the eAPI transport returns for `model`: {key: [JSON output per command]} from its recorded outputs."""
    _gatherer, commands = _commands(model)
    raw = {}
    for key, parts in commands:
        raw[key] = [json.loads(read_recorded('eos', release, device or model['name'], part.replace(' ', '_') + '.json'))
                    for part in parts]
    return raw


NVUE_FILES = {'nv show vrf default router bgp neighbor -o json': 'nv_show_bgp_neighbor_%s.json',
              'nv show evpn vni -o json': 'nv_show_evpn_vni.json', 'nv config show -o json': 'nv_config_show.json',
              'nv show interface -o json': 'nv_show_interface.json', 'ip -j -4 route show table main': 'ip_route.json'}


def _file_of(argv, names, release):
    line = ' '.join(argv)
    if argv[0] == 'sh':
        return next(name for marker, name in names.items() if marker in line)
    return NVUE_FILES[line] % release if '%s' in NVUE_FILES[line] else NVUE_FILES[line]


def nvue_raw(model, release='5.12', device=None):
    """What the SSH transport returns for `model`: {key: result or [results]} from its recorded outputs."""
    _gatherer, commands = _commands(model)
    names = {'counters qos': 'counters_qos.txt', 'pfc-watchdog': 'pfc_watchdog.txt', ' lldp -o json': 'lldp.txt'}
    raw = {}
    for key, parts in commands:
        outputs = [{'rc': 0, 'stdout': read_recorded('nvue', device or model['name'], _file_of(part, names, release)), 'stderr': ''}
                   for part in parts]
        raw[key] = outputs[0] if len(outputs) == 1 else outputs
    return raw


def sonic_raw(model, config_db, device=None):
    """lossless, counters and lldp of a SONiC switch: CONFIG_DB (a dict) and the sonic-db-dump outputs it recorded."""
    names = {'COUNTERS_DB': 'counters_db.txt', 'LLDP_ENTRY_TABLE': 'lldp_appl_db.txt',
             'PORT_TABLE': 'ports_appl_db.txt'}
    _gatherer, commands = _commands(model)
    config = {'rc': 0, 'stdout': json.dumps(config_db), 'stderr': ''}
    raw = {'lossless': config}
    for key, parts in commands:
        if key in ('counters', 'lldp', 'interfaces'):
            outputs = [config if part[0] == 'sonic-cfggen' else {'rc': 0, 'stdout': read_recorded('sonic', device or model['name'], next(
                name for marker, name in names.items() if marker in part[-1])), 'stderr': ''} for part in parts]
            raw[key] = outputs[0] if len(outputs) == 1 else outputs
    return raw


def sonic_dump_split(text):
    """(the '== <group> <names>' lines, [each sonic-db-dump's JSON object]) of a SONiC table reading."""
    lines = text.split('\n')
    header = [line for line in lines if line.startswith('== ')]
    body, decoder, dumps, position = '\n'.join(lines[len(header):]), json.JSONDecoder(), [], 0
    while position < len(body.rstrip()):
        while body[position].isspace():  # jq prints a newline after each object (the counters), sonic-db-dump none
            position += 1
        dump, position = decoder.raw_decode(body, position)
        dumps.append(dump)
    return header, dumps


def sonic_dump_join(header, dumps):
    return ''.join(line + '\n' for line in header) + ''.join(json.dumps(dump, separators=(',', ':')) for dump in dumps)


def sonic_counters_edit(text, group, name, edit):
    """The COUNTERS_DB reading `text` with edit(fields) applied to the counters of `name` of `group` (ports, queues,
    pgs), found through its name map as the switch keeps them."""
    maps = {'ports': 'COUNTERS_PORT_NAME_MAP', 'queues': 'COUNTERS_QUEUE_NAME_MAP', 'pgs': 'COUNTERS_PG_NAME_MAP'}
    header, dumps = sonic_dump_split(text)
    oid = next(dump[maps[group]]['value'][name] for dump in dumps if maps[group] in dump)
    edit(next(dump['COUNTERS:' + oid]['value'] for dump in dumps if 'COUNTERS:' + oid in dump))
    return sonic_dump_join(header, dumps)
