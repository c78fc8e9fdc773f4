"""Mutation test of the doubles: single-field mutations of rendered configurations that the vendor's rules forbid
are refused by the double at least MINIMUM_RATE of the time. The figure per NOS is printed (pytest -s) and in
tests/doubles/README.md.

The mutations are generic, not the corpus's hand-picked cases: every field (SONiC CONFIG_DB row field, EOS CLI token,
NVUE tree key or value) of a rendered configuration gets each operator that applies to it, once per distinct place
(table and field; line shape and token position; tree path without its ids). An operator changes one field into what
a vendor rule forbids, the rule named next to it. A field the vendor lets take any text (descriptions, names the
configuration defines) is not mutated by the value operators: the FREE_TEXT lists name those fields and why.

`make test` checks a seeded sample of each sweep: a quarter of the mutations of every operator (tests/unit/utils/
sampling.py; the seed is printed, AIFABRIC_SAMPLE_SEED replays it); `make test-exhaustive` checks every mutation.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from tests.doubles import corpus
from tests.unit.platforms.eos.double.device import EapiError, EosDevice
from tests.unit.platforms.sonic.double import gcu as sonic_gcu
from tests.unit.platforms.nvue.double import shell as nvue
from tests.unit.utils import sampling

MINIMUM_RATE = 0.90
SAMPLE_SHARE = 0.25  # of each operator's mutations in the default run (every operator always)


def _figure(nos, outcomes):
    refused = sum(1 for _where, ok in outcomes if ok)
    rate = refused / len(outcomes)
    missed = [where for where, ok in outcomes if not ok]
    print('\n%s: %d of %d forbidden single-field mutations refused (%.1f %%; %s)'
          % (nos, refused, len(outcomes), 100 * rate, sampling.describe()))
    for where in missed:
        print('  accepted: %s' % where)
    return rate, missed


def _sample(mutations, name):
    """The run's share of each operator's mutations (all of them in make test-exhaustive); the operator is the
    stratum, so every kind of forbidden change is tried in every run."""
    return sampling.stratified(mutations, lambda mutation: mutation[0], SAMPLE_SHARE, name)


# -- SONiC: CONFIG_DB rows the deploy writes, through GCU's pipeline ----------------------------------------------
# Fields whose YANG type is a string without a pattern: any text is valid there.
SONIC_FREE_TEXT = {
    ('PORT', 'alias'), ('PORT', 'description'),              # sonic-port.yang: string, length only
    ('MGMT_PORT', 'alias'), ('MGMT_PORT', 'description'),    # sonic-mgmt_port.yang: string
    ('DEVICE_NEIGHBOR', 'name'), ('DEVICE_NEIGHBOR', 'port'),  # sonic-device_neighbor.yang: string, length only
    ('DEVICE_METADATA', 'hostname'),                         # sonic-types.yang.j2 typedef hostname: string 1..63
    ('DEVICE_METADATA', 'hwsku'),                            # sonic-types.yang.j2 typedef hwsku: string 1..255
    ('DEVICE_METADATA', 'platform'),                         # sonic-device_metadata.yang: string 1..255
    ('BREAKOUT_CFG', 'brkout_mode'),                         # sonic-breakout_cfg.yang: string 1..64 (platform.json
                                                             # checks it in `config interface breakout`, not YANG)
    ('VLAN', 'description'),                                 # sonic-vlan.yang: string, length only
}
# Tables whose first key part is a string without a pattern (any text names a row).
SONIC_FREE_KEYS = {
    'BREAKOUT_CFG',     # sonic-breakout_cfg.yang: port is a string 1..255, deliberately no leafref
    'DEVICE_NEIGHBOR',  # sonic-device_neighbor.yang: peer_name string 1..255
    'VXLAN_EVPN_NVO',   # sonic-vxlan.yang: name string
}
BIG = '18446744073709551616'  # 2^64: beyond every integer type of YANG (uint64 included, RFC 7950 9.2)


def sonic_mutations():
    """(operator, where, target, running, facts) with one field of a rendered row changed; each operator's rule:
    - field: a field name no YANG list has (sonic_yang_ext.py _xlateList: a config field without its leaf is not
      translated, "All Keys are not parsed");
    - value: text that is no value of the leaf's type (YANG types, patterns, enumerations, leafrefs);
    - number: an integer field at 2^64 (YANG integer ranges);
    - key: a row key whose first part is no valid key (key patterns and leafrefs of the list keys)."""
    running, target, facts = corpus.sonic_case()
    rendered = json.loads(corpus.rendered('leaf002', 'config_db.json'))
    seen = set()
    for table in sorted(rendered):
        for key in sorted(rendered[table]):
            fields = target[table][key] if key in target.get(table, {}) else None
            if fields is None:
                continue
            if (table, 'key') not in seen and key != 'localhost' and table not in SONIC_FREE_KEYS:
                seen.add((table, 'key'))
                changed = copy.deepcopy(target)
                first, _bar, rest = key.partition('|')
                new_key = first + '!x' + _bar + rest
                changed[table][new_key] = changed[table].pop(key)
                yield 'key', '%s key %s -> %s' % (table, key, new_key), changed, running, facts
            for field in sorted(rendered[table][key]):
                value = fields[field]
                operators = [('field', field + '_x', value)]
                if (table, field) not in SONIC_FREE_TEXT and not isinstance(value, list):
                    operators.append(('value', field, value + '!x'))
                    if re.fullmatch(r'-?\d+', value):
                        operators.append(('number', field, BIG))
                for operator, name, new in operators:
                    if (table, field, operator) in seen:
                        continue
                    seen.add((table, field, operator))
                    changed = copy.deepcopy(target)
                    row = changed[table][key]
                    if operator == 'field':
                        row[name] = row.pop(field)
                    else:
                        row[name] = new
                    shown = new if operator != 'field' else name
                    yield operator, '%s|%s %s %s -> %s' % (table, key, operator, field, shown), changed, running, facts


def test_sonic_mutations_are_refused():
    outcomes = []
    for _operator, where, target, running, facts in _sample(sonic_mutations(), 'sonic'):
        try:
            sonic_gcu.check_target(running, target, facts)
            outcomes.append((where, False))
        except sonic_gcu.Refused:
            outcomes.append((where, True))
    rate, missed = _figure('SONiC', outcomes)
    assert rate >= MINIMUM_RATE, (missed, sampling.describe())


# -- EOS: tokens of the rendered startup-config, in a config session ----------------------------------------------
# Tokens any text may take: what follows these words to the end of the line is free text on EOS.
EOS_FREE_TEXT_AFTER = ('description', 'name', 'hostname')
# The token after these words names something the configuration defines or a role, any word (AVD schema: aaa server
# groups, local users and their roles are str).
EOS_NAME_AFTER = ('group', 'tacacs+', 'username', 'role')
# A token after these words is a host: "IP or hostname" (AVD schema: ntp.servers.name, logging.vrfs.hosts.name,
# tacacs_servers.hosts.host), so an address with an octet beyond 255 is still a valid host name.
EOS_HOST_AFTER = ('server', 'host')
KEYWORD = re.compile(r'[a-z]+(-[a-z]+)*')
IPV4 = re.compile(r'(\d{1,3}\.){3}\d{1,3}(/\d{1,2})?')


def _eos_operator(token):
    """(operator, forbidden replacement) of one token, or None (a name the configuration defines: EOS's rules for
    names and references are not published in a form we could check, so they are not mutated)."""
    if IPV4.fullmatch(token):  # an IPv4 address or prefix with an octet beyond 255
        return 'ipv4', re.sub(r'^\d{1,3}', '256', token)
    if re.fullmatch(r'\d+', token):  # beyond every numeric argument of the EOS CLI (AVD schema: ints <= 2^32-1)
        return 'number', '4294967296'
    if re.fullmatch(r'\d+\.\d+', token):  # AVD schema: decimals "with up to 2 decimal point"
        return 'decimal', token + '001'
    if re.fullmatch(r'[\d.]+:\d+', token):  # route distinguishers and targets: ASN or IP, a colon, a number
        return 'rd', token + ':1'
    if re.fullmatch(r'([0-9a-f]{2}:){5}[0-9a-f]{2}', token):
        return 'mac', token[:-1] + 'g'
    if re.fullmatch(r'(Ethernet|Management|Loopback|Vlan|Vxlan)[\d/]+', token):  # interface types EOS has
        return 'interface', 'Bogus' + re.sub(r'^[A-Za-z]+', '', token)
    if KEYWORD.fullmatch(token):  # a keyword of the CLI grammar (AVD templates); names here are upper case
        return 'keyword', token + 'zz'
    return None


def eos_mutations():
    lines = corpus.eos_lines()
    seen = set()
    for index, line in enumerate(lines):
        words = line.split()
        shape = re.sub(r'\d+', 'N', ' '.join(words[:2]))
        for position, token in enumerate(words):
            if any(word in EOS_FREE_TEXT_AFTER for word in words[:position]):
                break
            before = words[position - 1] if position else None
            if before in EOS_NAME_AFTER:
                continue
            operator = _eos_operator(token)
            if operator is None or (shape, position, operator[0]) in seen:
                continue
            if operator[0] == 'ipv4' and any(word in EOS_HOST_AFTER for word in words[:position]):
                continue
            seen.add((shape, position, operator[0]))
            changed = words[:position] + [operator[1]] + words[position + 1:]
            yield operator[0], '%s: %s -> %s' % (line, token, operator[1]), \
                lines[:index] + [' '.join(changed)] + lines[index + 1:]


def test_eos_mutations_are_refused():
    outcomes = []
    for _operator, where, lines in _sample(eos_mutations(), 'eos'):
        device = EosDevice('leaf001', 'admin', 'unused')
        try:
            device.run_cmds(['enable', 'configure session mutation', 'rollback clean-config'] + lines + ['end'])
            outcomes.append((where, False))
        except EapiError:
            outcomes.append((where, True))
    rate, missed = _figure('EOS', outcomes)
    assert rate >= MINIMUM_RATE, (missed, sampling.describe())


# -- NVUE: keys and values of the applied tree ----------------------------------------------------------------------
# Keys under these are ids the configuration chooses (the NVUE reference's `<...-id>` arguments: `nv set interface
# <interface-id>`, `nv set vrf <vrf-id> router bgp neighbor <neighbor-id>`, `... ip address <ip-prefix-id>`,
# `nv set bridge domain <domain-id> vlan <vid> vni <vni-id>`, `nv set evpn vni <vni-id> route-target both <rt-id>`,
# `nv set qos congestion-control <profile-id>`, `... lldp application-tlv udp-port <port-id>`, `nv set system aaa
# user <user-id>`, `nv set service ntp <vrf-id> server <server-id>`, ...): renaming one is a different valid config.
NVUE_ID_PARENTS = {'interface', 'vrf', 'neighbor', 'peer-group', 'address', 'domain', 'vlan', 'vni', 'both',
                   'import', 'export', 'route-target', 'congestion-control', 'pfc', 'udp-port', 'user', 'server',
                   'ntp', 'dns', 'syslog', 'ssh', 'snmp-server', 'listening-address', 'static', 'switch-priority',
                   'traffic-class', 'egress-queue-mapping', 'egress-scheduler', 'mapping', 'dscp', 'traffic-pool',
                   'pfc-watchdog-profile', 'network', 'nameserver', 'search', 'breakout'}
# Values any text may take: NVUE's description, hostname and password-hash fields are strings without an enumeration.
NVUE_FREE_TEXT = {'description', 'hostname', 'hashed-password', 'full-name', 'secret', 'key', 'password'}


# Integers whose upper bound the NVUE reference does not state (`nv set qos congestion-control <profile-id>
# traffic-class <tc-id> min-threshold|max-threshold <value>`: bytes of the switch's buffer): not mutated upwards.
NVUE_UNBOUNDED = {'min-threshold', 'max-threshold'}


def _nvue_value(key, value):
    """(operator, forbidden replacement) of a leaf value, or None."""
    if isinstance(value, bool) or value in ('on', 'off'):  # enumerations on|off, enabled|disabled
        return 'enum', 'maybe'
    if isinstance(value, int):  # beyond every NVUE integer range (ASNs are at most 2^32-1)
        return ('number', 10 ** 12) if key not in NVUE_UNBOUNDED else ('number', -1)
    if not isinstance(value, str) or key in NVUE_FREE_TEXT:
        return None
    if IPV4.fullmatch(value):
        return 'ipv4', re.sub(r'^\d{1,3}', '256', value)
    return 'value', value + '!x'  # enumerations, patterns (speeds, RDs, MACs) and references to other objects


def _nvue_places(node, path):
    if isinstance(node, dict):
        for key in sorted(node, key=str):
            yield path, key, node[key]
            yield from _nvue_places(node[key], path + [key])


def nvue_mutations(case):
    tree, facts = corpus.nvue_case(case)
    seen = set()
    for path, key, value in _nvue_places(tree, []):
        parent = path[-1] if path else None
        is_id = parent in NVUE_ID_PARENTS
        shape = tuple('<id>' if (index and path[index - 1] in NVUE_ID_PARENTS) else part
                      for index, part in enumerate(path + [key]))
        operators = []
        if not is_id:
            operators.append(('key', str(key) + 'zz'))
        elif IPV4.fullmatch(str(key)):  # an address or prefix id with an octet beyond 255
            operators.append(('key', re.sub(r'^\d{1,3}', '256', str(key))))
        elif re.fullmatch(r'\d+', str(key)) and path[-2:] != ['tacacs', 'server']:
            # VLAN, VNI, port, traffic class ids: 10^12 is beyond all of them (TACACS+ server priorities: the
            # reference gives no bound)
            operators.append(('key', str(10 ** 12)))
        elif re.fullmatch(r'swp\d+(s\d+)?', str(key)):  # a port the switch does not have
            operators.append(('key', 'swp999'))
        if not isinstance(value, dict):
            operator = _nvue_value(key, value)
            if operator:
                operators.append(operator)
        for operator, new in operators:
            if (shape, operator) in seen:
                continue
            seen.add((shape, operator))
            changed = copy.deepcopy(tree)
            node = changed
            for part in path:
                node = node[part]
            if operator == 'key':
                node[new] = node.pop(key)
            else:
                node[key] = new
            where = '.'.join(str(part) for part in path + [key])
            yield operator, '%s %s -> %s' % (where, operator, new), changed, facts


@pytest.mark.parametrize('case', [{}, {'base': 'leaf'}, {'base': 'leaf-5.15', 'release': '5.15'}],
                         ids=['spine-5.14', 'leaf-5.14', 'leaf-5.15'])
def test_nvue_mutations_are_refused(case):
    tree, facts = corpus.nvue_case(case)
    assert nvue.validation_errors(tree, facts) == []  # the rendered file itself is valid
    outcomes = []
    for _operator, where, tree, facts in _sample(nvue_mutations(case), 'nvue %s' % sorted(case.items())):
        outcomes.append((where, bool(nvue.validation_errors(tree, facts))))
    rate, missed = _figure('NVUE %s' % (case.get('base') or 'spine'), outcomes)
    assert rate >= MINIMUM_RATE, (missed, sampling.describe())
