"""NVIDIA Cumulus Linux 5.x's `nv` CLI (NVUE), as an SSH double runs it against its state directory.

Modelled on the NVUE command reference (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/,
"Config Commands": `nv config replace|diff|apply [--y] [--confirm TIME] [--confirm-yes|--confirm-no|
--confirm-status]|detach|show|history|revision|save`, `nv set|unset`, `nv show ... -o json`) and the Cumulus
Linux 5.x user guide ("NVUE CLI"). Configuration is a revision tree: `replace`/`set` build the pending revision,
`apply` validates it against the schema (messages in NVUE's form: `Invalid config [rev_id: N]` then
`Config invalid at <path>: <reason>`) and makes it the applied revision; with `--confirm` the previous applied
revision comes back unless `--confirm-yes` arrives in time (bare numbers are minutes, as the reference's
"--confirm 60 requires you to confirm within one hour"; `s`/`m`/`h`/`d` suffixes too).
"""

from __future__ import annotations

import copy
import getpass
import ipaddress
import json
import re
import sys
import time

import jsonschema
import yaml

from tests.doubles import faults as faults_file
from tests.doubles.ssh import frr, state
from tests.doubles.ssh.cli import drop_my_session
from tests.doubles.world import remote_vteps

TOP_LEVEL = ('acl', 'bridge', 'evpn', 'interface', 'mlag', 'nve', 'platform', 'qos', 'router', 'service', 'system', 'vrf')
# Cumulus Linux 5.14 and earlier write switches as `enable: on|off` and QoS values as enable/disable; 5.15 and
# later as `state: enabled|disabled` (NVUE reference, e.g. Set-and-Unset-Commands/VXLAN and System-Forwarding:
# "In Cumulus Linux 5.14 and earlier, you specify enable on or enable off instead of state enabled or state disabled").
ON_OFF = {'enum': ['on', 'off']}
STATE = {'enum': ['enabled', 'disabled']}
ENABLE = {'enum': ['enable', 'disable', 'enabled', 'disabled']}
SWITCH_VALUE = {'enum': ['on', 'off', 'enabled', 'disabled']}
LOOSE = {'type': 'object'}
PRIORITY_KEYS = {'pattern': '^[0-7]$'}


def _per_class(properties):
    """`traffic-class.'<0-7>'` / `switch-priority.'<0-7>'` members with the given leaves."""
    return {'type': 'object', 'propertyNames': PRIORITY_KEYS,
            'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': properties}}


# 5.14: `ip vrr enable on` + `state up`; 5.15 (New and Changed NVUE Commands): `ipv4 vrr state enabled` + `vrr-state up`.
VRR = {'type': 'object', 'additionalProperties': False, 'properties': {
    'address': {'type': 'object', 'propertyNames': {'format': 'ip-prefix'}}, 'enable': ON_OFF,
    'state': {'anyOf': [{'enum': ['up', 'down', 'enabled', 'disabled']}, {'type': 'object'}]},
    'vrr-state': {'enum': ['up', 'down']},
    'mac-address': {'type': 'string', 'pattern': '^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$'}, 'mac-id': {'type': 'integer'}}}
SCHEMA = {
    'type': 'object', 'additionalProperties': False,
    'properties': {
        'interface': {'type': 'object', 'additionalProperties': {
            'type': 'object', 'additionalProperties': False,
            'properties': {
                'type': {'enum': ['swp', 'loopback', 'svi', 'bond', 'eth', 'sub', 'peerlink', 'bridge']},
                'description': {'type': 'string', 'maxLength': 256},
                'link': {'type': 'object', 'additionalProperties': False, 'properties': {
                    'mtu': {'type': 'integer', 'minimum': 552, 'maximum': 9216},
                    'speed': {'anyOf': [{'type': 'string', 'pattern': '^(auto|[0-9]+(\\.[0-9]+)?[MG])$'}, {'type': 'integer'}]},
                    'fec': {'enum': ['auto', 'baser', 'off', 'rs', 'driver-auto']},
                    'state': {'type': 'object', 'propertyNames': {'enum': ['up', 'down']}},
                    # `nv set interface swp1 link breakout 2x` (splits the cage into swp1s0, swp1s1)
                    'breakout': {'type': 'object', 'propertyNames': {'pattern': '^([1-8]x|disabled|loopback)$'}},
                    'auto-negotiate': ON_OFF, 'lanes': {'type': ['string', 'integer']}}},
                'ip': {'type': 'object', 'properties': {
                    'address': {'type': 'object', 'propertyNames': {'format': 'ip-prefix'}},
                    'vrf': {'type': 'string'}, 'vrr': VRR, 'gateway': LOOSE, 'ipv6': LOOSE}},
                # 5.15+: `ipv4 address|gateway|vrr` and `interface <id> vrf` replace `ip address|gateway|vrr|vrf`
                'ipv4': {'type': 'object', 'properties': {
                    'address': {'type': 'object', 'propertyNames': {'format': 'ip-prefix'}}, 'gateway': LOOSE, 'vrr': VRR}},
                'vrf': {'type': 'string'},
                'bridge': LOOSE, 'bond': LOOSE, 'router': LOOSE, 'evpn': LOOSE, 'acl': LOOSE,
                'qos': {'type': 'object', 'properties': {
                    'congestion-control': {'type': 'object', 'properties': {'profile': {'type': 'string'}}},
                    'pfc-watchdog': {'type': 'object', 'properties': {'state': ENABLE}}}},
                'vlan': {'type': 'integer', 'minimum': 1, 'maximum': 4094}, 'base-interface': {'type': 'string'},
                # LLDP application priority TLV (`nv set interface swp1 lldp application-tlv udp-port 4791`)
                'lldp': {'type': 'object', 'properties': {'application-tlv': {'type': 'object', 'properties': {
                    'udp-port': {'type': 'object', 'propertyNames': {'pattern': '^[0-9]{1,5}$'}},
                    'tcp-port': {'type': 'object', 'propertyNames': {'pattern': '^[0-9]{1,5}$'}}}}}},
                'ptp': LOOSE,
            }}},
        'router': {'type': 'object', 'properties': {'bgp': {'type': 'object', 'properties': {
            'autonomous-system': {'type': ['integer', 'string'], 'minimum': 1, 'maximum': 4294967295},
            'router-id': {'type': 'string', 'format': 'ipv4'}, 'enable': ON_OFF, 'state': STATE}}}},
        'system': {'type': 'object', 'properties': {
            # `nv set system aaa user NAME hashed-password '<hash>'` / `role system-admin|nvue-admin|nvue-monitor`
            'aaa': {'type': 'object', 'properties': {
                'user': {'type': 'object', 'propertyNames': {'pattern': '^[a-z_][a-z0-9_-]{0,31}$'},
                         'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {
                             'hashed-password': {'type': 'string', 'pattern': '^\\$[0-9a-z]+\\$'},
                             'password': {'type': 'string'}, 'full-name': {'type': 'string'},
                             'role': {'enum': ['system-admin', 'nvue-admin', 'nvue-monitor']}}}},
                'tacacs': LOOSE, 'radius': LOOSE, 'authentication-order': LOOSE}},
            'hostname': {'type': 'string', 'pattern': r'^[A-Za-z0-9]([A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$'},
            'forwarding': {'type': 'object', 'properties': {'ecmp-hash': {
                'type': 'object', 'additionalProperties': SWITCH_VALUE, 'propertyNames': {'enum': [
                    'destination-ip', 'destination-port', 'gtp-teid', 'ingress-interface', 'inner-destination-ip',
                    'inner-destination-port', 'inner-ip-protocol', 'inner-ipv6-label', 'inner-source-ip',
                    'inner-source-port', 'ip-protocol', 'ipv6-label', 'source-ip', 'source-port']}}}}}},
        'vrf': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
            'router': {'type': 'object', 'properties': {'bgp': {'type': 'object', 'properties': {
                'autonomous-system': {'type': ['integer', 'string']},
                'router-id': {'type': 'string', 'format': 'ipv4'},
                'enable': ON_OFF, 'state': STATE,
                'neighbor': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                    'remote-as': {'anyOf': [{'type': 'integer', 'minimum': 1, 'maximum': 4294967295},
                                            {'enum': ['internal', 'external']}]},
                    'type': {'enum': ['numbered', 'unnumbered']},
                    'bfd': {'type': 'object', 'additionalProperties': False, 'properties': {
                        'enable': ON_OFF, 'state': STATE,
                        'detect-multiplier': {'type': 'integer', 'minimum': 2, 'maximum': 255},
                        'min-rx-interval': {'type': 'integer', 'minimum': 50, 'maximum': 60000},
                        'min-tx-interval': {'type': 'integer', 'minimum': 50, 'maximum': 60000}}},
                    'timers': {'type': 'object', 'properties': {
                        'keepalive': {'anyOf': [{'type': 'integer', 'minimum': 1, 'maximum': 65535}, {'enum': ['none', 'auto']}]},
                        'hold': {'anyOf': [{'type': 'integer', 'minimum': 3, 'maximum': 65535}, {'enum': ['none', 'auto']}]}}},
                }}}}}}}}}},
        'nve': {'type': 'object', 'properties': {'vxlan': {'type': 'object', 'properties': {
            'enable': ON_OFF, 'state': STATE, 'port': {'type': 'integer', 'minimum': 1024, 'maximum': 65535},
            'source': {'type': 'object', 'properties': {'address': {'type': 'string', 'format': 'ipv4'}}},
            # VXLAN tunnel DSCP operations (CL "VXLAN Tunnel DSCP Operations")
            'encapsulation': {'type': 'object', 'properties': {'dscp': {'type': 'object', 'properties': {
                'action': {'enum': ['copy', 'set', 'derive']}, 'value': {'type': 'integer', 'minimum': 0, 'maximum': 63}}}}},
            'decapsulation': {'type': 'object', 'properties': {'dscp': {'type': 'object', 'properties': {
                'action': {'enum': ['copy', 'preserve', 'derive']}}}}}}}}},
        'evpn': {'type': 'object', 'properties': {'enable': ON_OFF, 'state': STATE}},
        'qos': {'type': 'object', 'properties': {
            'pfc': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'switch-priority': {'type': 'object', 'propertyNames': PRIORITY_KEYS},
                'rx': ENABLE, 'tx': ENABLE, 'cable-length': {'type': 'integer', 'minimum': 1, 'maximum': 100000}}}},
            'mapping': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'trust': {'enum': ['l2', 'l3', 'port', 'both']},
                'dscp': {'type': 'object', 'propertyNames': {'pattern': '^([0-9]|[1-5][0-9]|6[0-3])$'},
                         'additionalProperties': {'type': 'object', 'properties': {
                             'switch-priority': {'type': 'integer', 'minimum': 0, 'maximum': 7}}}}}}},
            # ECN profiles (`default-global` or named, bound per port by interface.<swp>.qos.congestion-control.profile)
            'congestion-control': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'traffic-class': _per_class({
                    'ecn': ENABLE, 'red': ENABLE, 'probability': {'type': 'integer', 'minimum': 0, 'maximum': 100},
                    'min-threshold': {'type': 'integer', 'minimum': 1}, 'max-threshold': {'type': 'integer', 'minimum': 1}})}}},
            'egress-scheduler': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'traffic-class': _per_class({'mode': {'enum': ['dwrr', 'strict']},
                                             'bw-percent': {'type': 'integer', 'minimum': 0, 'maximum': 100}})}}},
            'egress-queue-mapping': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'switch-priority': _per_class({'traffic-class': {'type': 'integer', 'minimum': 0, 'maximum': 7}})}}},
            'pfc-watchdog': {'type': 'object', 'additionalProperties': False, 'properties': {
                'polling-interval': {'type': 'integer', 'minimum': 100, 'maximum': 5000},
                'robustness': {'type': 'integer', 'minimum': 1, 'maximum': 1000}}},
            'traffic-pool': {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'memory-percent': {'type': 'integer', 'minimum': 0, 'maximum': 100}}}},
        }},
        # `nv set service dns|ntp|syslog <vrf> server <address>` (and `dns <vrf> search <domain>`)
        'service': {'type': 'object', 'properties': {
            service: {'type': 'object', 'additionalProperties': {'type': 'object', 'properties': {
                'server': {'type': 'object', 'propertyNames': {'format': 'ipv4'}}, 'search': LOOSE}}}
            for service in ('dns', 'ntp', 'syslog')}},
        'bridge': LOOSE, 'acl': LOOSE, 'mlag': LOOSE, 'platform': LOOSE,
    },
}
CHECKER = jsonschema.FormatChecker()


@CHECKER.checks('ip-prefix')
def _ip_prefix(value):
    try:
        ipaddress.ip_interface(value)
        return '/' in value
    except ValueError:
        return False


class _Loader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """YAML as NVUE reads it: `on`/`off`/`yes`/`no` stay strings (YAML 1.2 booleans are true/false only)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != 'tag:yaml.org,2002:bool']
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver('tag:yaml.org,2002:bool', re.compile(r'^(?:true|True|TRUE|false|False|FALSE)$'),
                              list('tTfF'))


class _Dumper(yaml.SafeDumper):  # pylint: disable=too-many-ancestors
    pass


def _quote_on_off(dumper, value):
    style = "'" if value in ('on', 'off', 'yes', 'no', 'y', 'n') or re.match(r'^[\d.:/]+$', value) else None
    return dumper.represent_scalar('tag:yaml.org,2002:str', value, style=style)


_Dumper.add_representer(str, _quote_on_off)


def to_yaml(data):
    return yaml.dump(data, Dumper=_Dumper, default_flow_style=False, sort_keys=False)


# -- revisions ---------------------------------------------------------------------------------------------
def _file(directory):
    return state.path(directory, 'nvue', 'revisions.json')


def load(directory):
    return state.read_json(_file(directory))


def save(directory, data):
    state.write_json(_file(directory), data, indent=1)


def factory(directory, facts):
    tree = {'system': {'hostname': 'cumulus'}, 'interface': {'eth0': {'type': 'eth', 'ip': {
        'address': {'192.0.2.10/24': {}}, 'vrf': 'mgmt'}}}, 'service': {'ssh': {'mgmt': {}}}}
    save(directory, {'next': 2, 'applied': '1', 'pending': None, 'confirm': None, 'startup': tree,
                     'revs': {'1': {'state': 'applied', 'config': tree, 'parent': None, 'date': time.time(),
                                    'user': 'system', 'message': 'Config update by system'}}})


def merge(tree, patch):
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(tree.get(key), dict) and value:
            merge(tree[key], value)
        else:
            tree[key] = copy.deepcopy(value)
    return tree


def unset(tree, patch):
    for key, value in patch.items():
        if key not in tree:
            continue
        if isinstance(value, dict) and value and isinstance(tree[key], dict):
            unset(tree[key], value)
            if not tree[key]:
                del tree[key]
        else:
            del tree[key]
    return tree


def from_operations(operations, base=None):
    tree = copy.deepcopy(base) if base else {}
    if isinstance(operations, dict):
        operations = [{'set': operations}]
    if not isinstance(operations, list):
        raise ValueError('expected a list of set/unset operations')
    for operation in operations:
        if isinstance(operation, dict) and set(operation) == {'header'}:
            continue  # `nv config show -o yaml` starts with a header item; replace accepts its own output
        if not isinstance(operation, dict) or not set(operation) <= {'set', 'unset'}:
            raise ValueError('each item must be a set or unset operation')
        if 'set' in operation:
            merge(tree, operation['set'] or {})
        if 'unset' in operation:
            unset(tree, operation['unset'] or {})
    return tree


def diff(old, new):
    """NVUE's `nv config diff`: the set/unset operations that turn `old` into `new`."""
    def sets(a, b):
        out = {}
        for key, value in b.items():
            if key not in a:
                out[key] = copy.deepcopy(value)
            elif isinstance(value, dict) and isinstance(a[key], dict):
                sub = sets(a[key], value)
                if sub or (not value and a[key]):
                    out[key] = sub
            elif a[key] != value:
                out[key] = copy.deepcopy(value)
        return out

    def unsets(a, b):
        out = {}
        for key, value in a.items():
            if key not in b:
                out[key] = {}
            elif isinstance(value, dict) and isinstance(b[key], dict):
                sub = unsets(value, b[key])
                if sub:
                    out[key] = sub
        return out
    operations = []
    removed, added = unsets(old, new), sets(old, new)
    if removed:
        operations.append({'unset': removed})
    if added:
        operations.append({'set': added})
    return operations


def validation_errors(tree, facts):
    errors = []
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=CHECKER)
    for error in sorted(validator.iter_errors(tree), key=lambda e: list(e.absolute_path)):
        where = '.'.join(str(part) for part in error.absolute_path)
        errors.append('Config invalid at %s: %s' % (where or '<root>', error.message))
    ports = set(facts.get('ports', []))
    for name, body in (tree.get('interface') or {}).items():
        kind = body.get('type') if isinstance(body, dict) else None
        if (kind == 'swp' or (kind is None and name.startswith('swp'))) and name not in ports:
            errors.append("Config invalid at interface.%s: '%s' is not a port of this platform" % (name, name))
    return errors


def _revision(data, directory, base_id):
    rev_id = str(data['next'])
    data['next'] += 1
    base = data['revs'][base_id]['config'] if base_id else {}
    data['revs'][rev_id] = {'state': 'pending', 'config': copy.deepcopy(base), 'parent': data['applied'],
                            'date': time.time(), 'user': getpass.getuser(), 'message': 'Config update by %s' % PROMPT}
    data['pending'] = rev_id
    return rev_id


PROMPT = 'cumulus'


def _seconds(text):
    match = re.match(r'^(\d+)([smhd]?)$', text)
    if not match:
        raise ValueError(text)
    return int(match.group(1)) * {'': 60, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}[match.group(2)]


def expire_confirm(directory):
    """Timer thread: a `--confirm` apply not confirmed in time goes back to the previous applied revision."""
    with state.locked(directory):
        data = load(directory)
        confirm = data and data.get('confirm')
        if confirm and time.time() >= confirm['deadline']:
            _revert(data, confirm)
            save(directory, data)


def _revert(data, confirm):
    data['revs'][confirm['rev']]['state'] = 'confirm_timeout'
    data['applied'] = confirm['previous']
    data['confirm'] = None


def config(directory, faults, args):
    facts = state.device(directory)
    sub, rest = (args[0], args[1:]) if args else ('', [])
    with state.locked(directory):
        data = load(directory)
        applied = data['revs'][data['applied']]['config']
        if sub == 'replace':
            if len(rest) != 1:
                sys.stderr.write('Usage:\n  nv config replace [options] <cue-file>\n')
                return 1
            try:
                with open(rest[0], encoding='utf-8') as handle:
                    tree = from_operations(yaml.load(handle, Loader=_Loader))  # nosec - _Loader is a SafeLoader
            except FileNotFoundError:
                sys.stderr.write('Error: File not found: %s\n' % rest[0])
                return 1
            except (yaml.YAMLError, ValueError) as exc:
                sys.stderr.write('Error: Invalid config file %s: %s\n' % (rest[0], str(exc).splitlines()[0]))
                return 1
            rev_id = data['pending'] or _revision(data, directory, None)
            data['revs'][rev_id]['config'] = tree
            save(directory, data)
            return 0
        if sub == 'diff':
            pending = data['revs'][data['pending']]['config'] if data['pending'] else applied
            operations = diff(applied, pending)
            if operations:
                sys.stdout.write(to_yaml(operations))
            return 0
        if sub == 'detach':
            if data['pending']:
                data['revs'][data['pending']]['state'] = 'detached'
                data['pending'] = None
                save(directory, data)
            return 0
        if sub == 'save':
            data['startup'] = copy.deepcopy(applied)
            save(directory, data)
            sys.stdout.write('saved [rev_id: %s]\n' % data['applied'])
            return 0
        if sub == 'show':
            revision = rest[rest.index('-r') + 1] if '-r' in rest else 'applied'
            tree = {'applied': applied, 'startup': data['startup']}.get(revision)
            if revision == 'pending':
                tree = data['revs'][data['pending']]['config'] if data['pending'] else applied
            elif tree is None:
                tree = data['revs'].get(revision, {}).get('config')
            if tree is None:
                sys.stderr.write('Error: Revision %s does not exist\n' % revision)
                return 1
            out = [{'header': {'model': 'vx', 'nvue-api-version': 'nvue_v1', 'rev-id': 1.0, 'version': 'Cumulus Linux %s'
                               % facts['release']}}, {'set': tree}]
            fmt = rest[rest.index('-o') + 1] if '-o' in rest else 'yaml'
            sys.stdout.write(json.dumps(out, indent=2) + '\n' if fmt == 'json' else to_yaml(out))
            return 0
        if sub in ('history', 'revision'):
            revs = {rev: {'state': body['state'], 'date': time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(body['date'])),
                          'user': body['user'], 'message': body['message'], 'parent': body['parent']}
                    for rev, body in data['revs'].items()}
            if sub == 'history':
                revs = {rev: body for rev, body in revs.items() if body['state'] not in ('pending', 'detached')}
            if '-o' in rest and rest[rest.index('-o') + 1] == 'json':
                sys.stdout.write(json.dumps(revs, indent=2) + '\n')
            else:
                for rev, body in sorted(revs.items(), key=lambda item: int(item[0]), reverse=True):
                    sys.stdout.write('- rev_id: %s\n  date: %s\n  message: %s\n  state: %s\n  user: %s\n'
                                     % (rev, body['date'], body['message'], body['state'], body['user']))
            return 0
        if sub == 'apply':
            return _apply(directory, faults, data, facts, rest)
    sys.stderr.write('Error: Invalid Command: nv config %s\n' % ' '.join(args))
    return 1


def _apply(directory, faults, data, facts, rest):
    flags = [item for item in rest if item.startswith('-')]
    confirm_time = None
    if '--confirm' in rest:
        index = rest.index('--confirm')
        confirm_time = rest[index + 1] if index + 1 < len(rest) and not rest[index + 1].startswith('-') else '10'
    target = [item for item in rest if not item.startswith('-') and item != confirm_time]
    confirm = data.get('confirm')
    if '--confirm-status' in flags:
        if confirm:
            sys.stdout.write('Confirm timeout remaining: %d seconds [rev_id: %s]\n'
                             % (max(0, confirm['deadline'] - time.time()), confirm['rev']))
        else:
            sys.stdout.write('No pending confirmation\n')
        return 0
    if '--confirm-yes' in flags or '--confirm-no' in flags:
        if not confirm or (target and target[0] != confirm['rev']):
            sys.stderr.write('Error: No configuration pending confirmation\n')
            return 1
        if '--confirm-yes' in flags:
            data['revs'][confirm['rev']]['state'] = 'applied'
            data['confirm'] = None
            _autosave(data, facts)
            sys.stdout.write('applied [rev_id: %s]\n' % confirm['rev'])
        else:
            _revert(data, confirm)
            sys.stdout.write('rolled back to [rev_id: %s]\n' % data['applied'])
        save(directory, data)
        return 0
    if confirm:
        sys.stderr.write('Error: Revision %s is pending confirmation; confirm it or let it roll back first\n' % confirm['rev'])
        return 1
    rev_id = target[0] if target else data['pending']
    if rev_id is None or rev_id not in data['revs']:
        sys.stdout.write('Warning: no pending changes to apply.\n' if rev_id is None else '')
        if rev_id is not None:
            sys.stderr.write('Error: Revision %s does not exist\n' % rev_id)
            return 1
        return 0
    tree = data['revs'][rev_id]['config']
    errors = validation_errors(tree, facts)
    for pattern in faults.get('reject_lines') or []:
        for line in to_yaml(tree).splitlines():
            if re.search(pattern, line):
                errors.append('Config invalid at %s: refused by the device' % line.strip())
    if errors:
        data['revs'][rev_id]['state'] = 'invalid'
        save(directory, data)
        sys.stdout.write('Invalid config [rev_id: %s]\n' % rev_id + ''.join('  %s\n' % error for error in errors))
        return 1
    previous = data['applied']
    data['applied'] = rev_id
    if data['pending'] == rev_id:
        data['pending'] = None
    faults_file.committed(directory)
    if confirm_time is not None:
        try:
            seconds = _seconds(confirm_time)
        except ValueError:
            sys.stderr.write("Error: Invalid confirm time '%s'\n" % confirm_time)
            return 1
        data['revs'][rev_id]['state'] = 'confirm'
        data['confirm'] = {'rev': rev_id, 'deadline': time.time() + seconds, 'previous': previous}
    else:
        data['revs'][rev_id]['state'] = 'applied'
        _autosave(data, facts)
    save(directory, data)
    sys.stdout.write('applied [rev_id: %s]\n' % rev_id)
    sys.stdout.flush()
    if confirm_time is not None and faults.get('drop_after_commit'):
        drop_my_session()
    return 0


def _autosave(data, facts):
    """Cumulus Linux 5.9 and later save on apply (auto-save on by default); 5.8 and earlier need `nv config save`."""
    major, minor = (int(part) for part in str(facts.get('release', '5.9')).split('.')[:2])
    if (major, minor) >= (5, 9):
        data['startup'] = copy.deepcopy(data['revs'][data['applied']]['config'])


def set_unset(directory, verb, args):
    words = [item for item in args if item not in ('-y', '--y')]
    if len(words) < 2 and verb == 'set':
        sys.stderr.write('Error: Incomplete Command: nv set %s\n' % ' '.join(args))
        return 1
    with state.locked(directory):
        data = load(directory)
        rev_id = data['pending'] or _revision(data, directory, data['applied'])
        tree = data['revs'][rev_id]['config']
        if verb == 'set':
            node = {}
            cursor = node
            for word in words[:-2]:
                cursor = cursor.setdefault(word, {})
            value = words[-1]
            cursor[words[-2]] = int(value) if value.isdigit() else value
            merge(tree, node)
        else:
            cursor = tree
            for word in words[:-1]:
                cursor = cursor.get(word, {})
            cursor.pop(words[-1], None)
        save(directory, data)
    return 0


# -- nv show -----------------------------------------------------------------------------------------------
def _link_up(faults, name, body):
    state_node = ((body.get('link') or {}).get('state') or {})
    return 'down' not in state_node and name not in (faults.get('interfaces_down') or [])


def _interfaces(directory, faults, tree):
    out = {}
    for name, body in (tree.get('interface') or {}).items():
        up = _link_up(faults, name, body)
        out[name] = {
            'type': body.get('type', 'swp'), 'description': body.get('description', ''),
            'link': {'admin-status': 'down' if 'down' in ((body.get('link') or {}).get('state') or {}) else 'up',
                     'oper-status': 'up' if up else 'down', 'mtu': (body.get('link') or {}).get('mtu', 9216 if name.startswith('swp') else 1500),
                     'speed': str((body.get('link') or {}).get('speed', '400G')), 'state': {'up' if up else 'down': {}}},
            'ip': {'address': copy.deepcopy((body.get('ip') or body.get('ipv4') or {}).get('address', {})),
                   'vrf': body.get('vrf', (body.get('ip') or {}).get('vrf', 'default'))},
        }
    return out


def _bgp(directory, faults, tree):
    """FRR configuration equivalent of the applied NVUE tree, then FRR's session logic."""
    interfaces = _interfaces(directory, faults, tree)
    vrfs = {}
    for vrf, body in (tree.get('vrf') or {}).items():
        bgp = ((body.get('router') or {}).get('bgp') or {})
        asn = bgp.get('autonomous-system', (tree.get('router', {}).get('bgp', {}) or {}).get('autonomous-system', 0))
        peers = {}
        for name, neighbor in (bgp.get('neighbor') or {}).items():
            families = [family for family, key in (('ipv4Unicast', 'ipv4-unicast'), ('l2VpnEvpn', 'l2vpn-evpn'))
                        if key == 'ipv4-unicast' or _switched_on((neighbor.get('address-family') or {}).get(key))]
            peers[name] = {'group': neighbor.get('peer-group'), 'remote_as': str(neighbor.get('remote-as', '')),
                           'desc': neighbor.get('description'), 'families': families,
                           'interface': name if neighbor.get('type') == 'unnumbered' or not _is_address(name) else None}
        if peers or bgp:
            vrfs[vrf] = {'asn': asn, 'router_id': bgp.get('router-id') or tree.get('router', {}).get('bgp', {}).get('router-id'),
                         'peers': peers}
    seen = state.first_seen(directory, ['%s|%s' % (vrf, peer) for vrf, body in vrfs.items() for peer in body['peers']])

    def link_up(name, peer):
        if peer['interface']:
            return interfaces.get(peer['interface'], {}).get('link', {}).get('oper-status') == 'up'
        for ifname, body in interfaces.items():
            for prefix in body['ip']['address']:
                try:
                    if ipaddress.ip_address(name) in ipaddress.ip_interface(prefix).network:
                        return body['link']['oper-status'] == 'up'
                except ValueError:
                    continue
        return True
    return vrfs, seen, link_up


def _switched_on(node):
    """`enable: on` (5.14 and earlier) or `state: enabled` (5.15 and later)."""
    node = node or {}
    return node.get('enable') == 'on' or node.get('state') == 'enabled'


def _is_address(text):
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def show(directory, faults, args):
    data = load(directory)
    facts = state.device(directory)
    tree = data['revs'][data['applied']]['config']
    words = [item for item in args if item not in ('-o', 'json', 'yaml')]
    fmt = args[args.index('-o') + 1] if '-o' in args else 'auto'
    interfaces = _interfaces(directory, faults, tree)
    result = None
    if words == ['system']:
        result = {'hostname': (tree.get('system') or {}).get('hostname', 'cumulus'), 'build': 'Cumulus Linux %s' % facts['release'],
                  'uptime': 86400, 'timezone': 'Etc/UTC'}
    elif words == ['interface']:
        result = interfaces
    elif words[:1] == ['interface'] and len(words) >= 2 and words[1] in interfaces:
        name = words[1]
        if words[2:] == []:
            result = interfaces[name]
        elif words[2:] == ['link']:
            result = interfaces[name]['link']
        elif words[2:] in (['lldp'], ['lldp', 'neighbor']):
            result = _lldp(directory, faults, interfaces).get(name, {})
            result = result if words[2:] == ['lldp', 'neighbor'] else {'neighbor': result}
        elif words[2:] == ['qos', 'counters']:
            result = _qos_counters(faults, name, tree)
        elif words[2:] == ['qos', 'pfc-watchdog']:
            result = _watchdog(faults, name, tree)
    elif words == ['interface', 'lldp']:
        result = {name: {'lldp': {'neighbor': neighbors}} for name, neighbors in _lldp(directory, faults, interfaces).items()}
    elif words[:1] == ['vrf'] and words[2:] == ['router', 'bgp', 'neighbor'] and len(words) == 5:
        vrfs, seen, link_up = _bgp(directory, faults, tree)
        result = {}
        for name, peer in vrfs.get(words[1], {}).get('peers', {}).items():
            peer_state, since = frr.peer_state(name, peer, words[1], seen, faults, link_up)
            up = peer_state == 'Established'
            result[name] = {'remote-as': int(peer['remote_as']) if peer['remote_as'].isdigit() else peer['remote_as'],
                            'type': 'unnumbered' if peer['interface'] else 'numbered', 'state': peer_state.lower(),
                            'uptime': int(time.time() - since) if up else 0, 'description': peer['desc'] or '',
                            'address-family': {('ipv4-unicast' if family == 'ipv4Unicast' else 'l2vpn-evpn'):
                                               {'rx-prefix': 2 if up else 0, 'tx-prefix': 2 if up else 0}
                                               for family in peer['families']}}
    elif words == ['evpn', 'vni']:
        result = {}
        for _domain, body in (((tree.get('bridge') or {}).get('domain')) or {}).items():
            for vlan, vlan_body in (body.get('vlan') or {}).items():
                for vni in (vlan_body.get('vni') or {}):
                    remote = remote_vteps(facts.get('world', {}), vni)
                    result[str(vni)] = {'bridge-domain': _domain, 'vlan': int(vlan), 'type': 'L2', 'mac-count': 0,
                                        'host-count': 0, 'remote-vtep': {ip: {'type': 'flood'} for ip in remote}}
    elif words in (['qos', 'pfc'], ['qos', 'congestion-control'], ['qos', 'mapping'], ['qos', 'egress-scheduler'],
                   ['qos', 'pfc-watchdog']):
        result = copy.deepcopy((tree.get('qos') or {}).get(words[1], {}))
    if result is None:
        sys.stderr.write('Error: The requested item does not exist: %s\n' % ' '.join(words))
        return 1
    sys.stdout.write(json.dumps(result, indent=2) + '\n' if fmt == 'json' else to_yaml(result))
    return 0


def _lldp(directory, faults, interfaces):
    world = state.device(directory).get('world', {})
    out = {}
    for port, item in sorted(world.get('lldp', {}).items()):
        if interfaces.get(port, {}).get('link', {}).get('oper-status') == 'up':
            out[port] = {item['device']: {'port': {'name': item['port'], 'description': item.get('description', '')},
                                          'chassis': {'system-name': item['device']}, 'ttl': 120}}
    return out


def _lossless(tree, name=None):
    """PFC priorities of a port's PFC profile (`interface <id> qos pfc profile`, else default-global); without a
    port, of every profile a port uses."""
    profiles = (tree.get('qos') or {}).get('pfc') or {}
    names = {(((body or {}).get('qos') or {}).get('pfc') or {}).get('profile', 'default-global')
             for port, body in (tree.get('interface') or {}).items() if name in (None, port)} or {'default-global'}
    return sorted({int(priority) for profile in names
                   for priority in ((profiles.get(profile) or {}).get('switch-priority') or {})})


def _qos_counters(faults, name, tree):
    pause = (faults.get('pfc_pause') or {}).get(name, {})
    drops = (faults.get('lossless_drops') or {}).get(name, {})
    marks = (faults.get('ecn_marks') or {}).get(name, {})
    return {
        'pfc-stats': {str(priority): {
            'rx-pause-frames': faults.counter('pfc_pause', name, 'rx_per_s') if pause and int(pause.get('priority', -1)) == priority else 0,
            'tx-pause-frames': faults.counter('pfc_pause', name, 'tx_per_s') if pause and int(pause.get('priority', -1)) == priority else 0}
            for priority in range(8)},
        'egress-queue-stats': {str(queue): {
            'tx-frames': 0, 'tx-bytes': 0,
            'tx-uc-buffer-discards': faults.counter('lossless_drops', name) if drops and int(drops.get('priority', -1)) == queue else 0,
            'ecn-marked-packets': faults.counter('ecn_marks', name) if marks and int(marks.get('queue', -1)) == queue else 0}
            for queue in range(8)},
    }


def _watchdog(faults, name, tree):
    trip = (faults.get('watchdog_tripped') or {}).get(name, {})
    configured = ((((tree.get('interface') or {}).get(name) or {}).get('qos') or {}).get('pfc-watchdog') or {}).get('state')
    enabled = configured in ('enable', 'enabled')
    status = {}
    for priority in _lossless(tree, name):
        tripped = bool(trip) and int(trip.get('priority', priority)) == priority
        status[str(priority)] = {'status': 'stormed' if tripped else 'operational',
                                 'deadlock-count': int(trip.get('count', 1)) if tripped else 0}
    return {'state': configured if enabled else 'disable', 'status': status}


def main(directory, faults, command, args):
    if command == 'vtysh':
        sys.stderr.write('The NVUE double answers BGP state through `nv show vrf <vrf> router bgp neighbor -o json`\n')
        return 1
    if not args:
        sys.stderr.write('Usage:\n  nv [options] <command> [<args>...]\n')
        return 1
    if args[0] == 'config':
        return config(directory, faults, args[1:])
    if args[0] in ('set', 'unset'):
        return set_unset(directory, args[0], args[1:])
    if args[0] == 'show':
        return show(directory, faults, args[1:])
    sys.stderr.write('Error: Invalid Command: nv %s\n' % ' '.join(args))
    return 1
