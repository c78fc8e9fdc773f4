"""NVIDIA Cumulus Linux 5.x's `nv` CLI (NVUE), as an SSH double runs it against its state directory.

Modelled on the NVUE command reference (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/,
"Config Commands": `nv config replace|diff|apply [-y|--y|--assume-yes|--assume-no] [--confirm [TIME]]
[--confirm-status]|detach|show|history|revision|save`, `nv set|unset`, `nv show ... -o json`) and the Cumulus
Linux 5.x user guide ("NVUE CLI"). Configuration is a revision tree: `replace`/`set` build the pending revision,
`apply` validates it against the schema (messages in NVUE's form: `Invalid config [rev_id: N]` then
`Config invalid at <path>: <reason>`) and makes it the applied revision; with `--confirm` the previous applied
revision comes back when the time runs out (bare numbers are minutes, as the reference's "--confirm 60 requires you
to confirm within one hour"; `s`/`m`/`h`/`d` suffixes too, as `--confirm 300s`). NVIDIA documents no command that
confirms such a revision, so the double has none: an option the reference does not list (`--confirm-yes`,
`--confirm-no`, which the NAPALM Cumulus community driver sends) is refused.
"""

from __future__ import annotations

import copy
import functools
import ipaddress
import json
import os
import re
import sys
import time

from tests.doubles.ssh import frr, state
from tests.doubles.ssh.cli import drop_my_session
from tests.doubles.world import flooding_vteps, remote_vteps

# The NVUE object model of each supported release, as NVIDIA's NVUE reference documents the commands that build it
# (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/, "Set and Unset Commands": Interface, BGP,
# EVPN, VXLAN, QoS, System, User Account, DNS/NTP/Syslog). The OpenAPI schema NVIDIA publishes per release
# (cumulus-linux-5NN/api/openapi.json) could not be read here: key names and ranges come from the reference pages,
# error texts follow NVUE's "Config invalid at <path>: <reason>" with JSON-schema reasons (NVIDIA knowledge base).
# Cumulus Linux 5.14 and earlier write switches as `enable: on|off`, 5.15 and later as `state: enabled|disabled`
# (NVUE reference, e.g. Set-and-Unset-Commands/VXLAN: "In Cumulus Linux 5.14 and earlier, you specify enable on or
# enable off instead of state enabled or state disabled"), and CL 5.15's "New and Changed NVUE Commands" moved
# interface addresses, gateways and VRR from `ip` to `ipv4` (VRR's `enable on` + `state up` became `state enabled` +
# `vrr-state up`), the interface VRF from `ip vrf` to `vrf`, and DNS, NTP and LLDP from `service` to `system`; CL 5.13
# moved syslog to `system syslog server <id> vrf <vrf-id>` (CL 5.13 "Syslog": "Cumulus 5.13 and later does not
# provide" `service syslog <vrf-id>`). That 5.15 list has no QoS row but `qos roce enable` -> `qos roce state`: the
# QoS values (PFC `rx`/`tx`, congestion-control `ecn`/`red`, port `pfc-watchdog state`) stay `enable|disable` on
# every release, as the NVUE reference's QoS page writes them (`nv set qos pfc default-global rx enable`, `... ecn
# enable`, `nv set interface swp1 qos pfc-watchdog state enable`, default `disable`). CL 5.15 adds BFD profiles
# (`nv set router bfd state enabled|disabled`, `router bfd profile <name> detect-multiplier|min-rx-interval|
# min-tx-interval|shutdown|passive-mode|minimum-ttl`, `... bgp neighbor <id> bfd profile <name>`: NVUE reference BFD,
# "Introduced in Cumulus Linux 5.15.0"; CL 5.15 "Bidirectional Forwarding Detection - BFD": intervals 10-4294967 ms,
# minimum-ttl 1-254) and deprecates, without removing, the per-neighbor timers. Whether a release still takes the
# words of an older one is [unverified]: the double takes each release's only.
ON_OFF = {'enum': ['on', 'off']}
STATE = {'enum': ['enabled', 'disabled']}
PRIORITY_KEYS = {'pattern': '^[0-7]$'}
# Objects of the NVUE model the renderer never writes and the double does not model: refused, saying so.
NOT_MODELLED = ('acl', 'mlag', 'platform')


def _strict(properties, **extra):
    return dict({'type': 'object', 'additionalProperties': False, 'properties': properties}, **extra)


def _map(values, names=None):
    """A map of ids (`'<0-7>': {...}`, `<vrf-id>: {...}`) to objects of one shape."""
    spec = {'type': 'object', 'additionalProperties': values}
    if names:
        spec['propertyNames'] = names
    return spec


EMPTY = _strict({})
# `nv set [vrf <vrf-id>] router bgp autonomous-system`: a 4-byte ASN, `none`, or Auto BGP's `leaf`/`spine` (Cumulus
# Linux user guide, "Auto BGP").
ASN = {'anyOf': [{'type': 'integer', 'minimum': 1, 'maximum': 4294967295}, {'enum': ['none', 'leaf', 'spine']}]}


def schema(release):
    """The JSON schema of the applied tree of one Cumulus Linux release."""
    major, minor = (int(part) for part in str(release).split('.')[:2])
    new = (major, minor) >= (5, 15)
    system_syslog = (major, minor) >= (5, 13)
    switch = {'state': STATE} if new else {'enable': ON_OFF}
    on_off = STATE if new else ON_OFF
    enable = {'enum': ['enable', 'disable']}  # QoS values on every release (see above)
    # VRR: `nv set interface <id> ip vrr enable on` + `state up` (5.14), `ipv4 vrr state enabled` + `vrr-state up`
    # (5.15, Set-and-Unset-Commands/VRR: "In Cumulus Linux 5.14 and earlier, the command is nv set interface
    # <interface-id> ip vrr state")
    vrr_switch = {'state': STATE, 'vrr-state': {'enum': ['up', 'down']}} if new else \
        {'enable': ON_OFF, 'state': {'enum': ['up', 'down']}}
    vrr = _strict(dict({'address': _map(EMPTY, {'format': 'ip-prefix'}),
                        'mac-address': {'type': 'string', 'pattern': '^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$'},
                        'mac-id': {'type': 'integer', 'minimum': 1, 'maximum': 255}}, **vrr_switch))

    def per_class(properties):
        return _map(_strict(properties), PRIORITY_KEYS)

    addresses = {'address': _map(EMPTY, {'format': 'ip-prefix'}), 'gateway': _map(EMPTY, {'format': 'ipv4'}),
                 'vrr': vrr}
    interface = {
        'type': {'enum': ['swp', 'loopback', 'svi', 'bond', 'eth', 'sub', 'peerlink']},
        'description': {'type': 'string', 'maxLength': 256},
        # Interface: `link mtu <552-9216>`, `link speed`, `link fec auto|baser|off|rs|driver-auto`, `link breakout
        # <1x..8x|disabled|loopback>`, `link state up|down`
        'link': _strict({'mtu': {'type': 'integer', 'minimum': 552, 'maximum': 9216},
                         'speed': {'anyOf': [{'type': 'string', 'pattern': '^(auto|[0-9]+(\\.[0-9]+)?[MG])$'}, {'type': 'integer'}]},
                         'fec': {'enum': ['auto', 'baser', 'off', 'rs', 'driver-auto']},
                         'state': _map(EMPTY, {'enum': ['up', 'down']}),
                         'breakout': _map(EMPTY, {'pattern': '^([1-8]x|disabled|loopback)$'}),
                         'auto-negotiate': on_off}),
        'bridge': _strict({'domain': _map(_strict({'access': {'type': 'integer', 'minimum': 1, 'maximum': 4094},
                                                   'vlan': _map(EMPTY), 'untagged': {'type': 'integer'}}))}),
        # `nv set interface <id> qos congestion-control profile <id>`, `qos pfc profile <id>` (CL 5.3+ "Quality of
        # Service": a PFC profile per port), `qos pfc-watchdog state`
        'qos': _strict({'congestion-control': _strict({'profile': {'type': 'string'}}),
                        'pfc': _strict({'profile': {'type': 'string'}}),
                        'pfc-watchdog': _strict({'state': enable})}),
        'vlan': {'type': 'integer', 'minimum': 1, 'maximum': 4094},
        # LLDP application priority TLV: `nv set interface swp1 lldp application-tlv udp-port 4791`
        'lldp': _strict({'application-tlv': _strict({'udp-port': _map(EMPTY, {'pattern': '^[0-9]{1,5}$'}),
                                                     'tcp-port': _map(EMPTY, {'pattern': '^[0-9]{1,5}$'})})}),
    }
    if new:  # `interface <id> ipv4 address|gateway|vrr`, `interface <id> vrf <vrf-id>`
        interface.update(ipv4=_strict(addresses), vrf={'type': 'string'})
    else:  # `interface <id> ip address|gateway|vrr|vrf`
        interface['ip'] = _strict(dict(addresses, vrf={'type': 'string'}))
    # LLDP application priority TLV: `nv set service lldp application-tlv udp-port <port> priority <0-7>` (5.15:
    # `system lldp ...`; CL "Link Layer Discovery Protocol": the priority defaults to 0)
    lldp = _strict({'application-tlv': _strict({'udp-port': _map(
        _strict({'priority': {'type': 'integer', 'minimum': 0, 'maximum': 7}}), {'pattern': '^[0-9]{1,5}$'})})})
    # DNS/NTP: `nv set service dns|ntp <vrf-id> server <ip>`, `service dns <vrf-id> search <domain>` (5.15: `system
    # dns server <ip> vrf <vrf-id>`, `system dns search <domain>`, `system ntp server <ip>`, `system ntp vrf <vrf-id>`)
    dns = {'server': _map(_strict({'vrf': {'type': 'string'}} if new else {}), {'format': 'ipv4'}),
           'search': _map(EMPTY)}
    ntp = {'server': _map(_strict({'iburst': on_off}), {'format': 'ipv4'})}
    syslog_server = {'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}, 'protocol': {'enum': ['udp', 'tcp']}}
    if new:
        services = {}
        system_services = {'dns': _strict(dns), 'ntp': _strict(dict(ntp, vrf={'type': 'string'})), 'lldp': lldp}
    else:
        services = {'dns': _map(_strict(dns)), 'ntp': _map(_strict(ntp)), 'lldp': lldp}
        system_services = {}
    if system_syslog:  # `nv set system syslog server <id> vrf <vrf-id>` (5.13+)
        system_services['syslog'] = _strict({'server': _map(_strict(dict(syslog_server, vrf={'type': 'string'})),
                                                            {'format': 'ipv4'})})
    else:
        services['syslog'] = _map(_strict({'server': _map(_strict(syslog_server), {'format': 'ipv4'})}))
    neighbor = _strict(dict({
        'remote-as': {'anyOf': [{'type': 'integer', 'minimum': 1, 'maximum': 4294967295}, {'enum': ['internal', 'external']}]},
        'type': {'enum': ['numbered', 'unnumbered']}, 'peer-group': {'type': 'string'},
        'description': {'type': 'string'},
        'bfd': _strict(dict({'detect-multiplier': {'type': 'integer', 'minimum': 2, 'maximum': 255},
                             'min-rx-interval': {'type': 'integer', 'minimum': 50, 'maximum': 60000},
                             'min-tx-interval': {'type': 'integer', 'minimum': 50, 'maximum': 60000}},
                            **dict(switch, **({'profile': {'type': 'string'}} if new else {})))),
        'timers': _strict({'keepalive': {'anyOf': [{'type': 'integer', 'minimum': 1, 'maximum': 65535}, {'enum': ['none', 'auto']}]},
                           'hold': {'anyOf': [{'type': 'integer', 'minimum': 3, 'maximum': 65535}, {'enum': ['none', 'auto']}]}}),
        'address-family': _strict({'ipv4-unicast': _strict(switch), 'l2vpn-evpn': _strict(switch)})}, **switch))
    route_targets = _map(EMPTY, {'pattern': '^([0-9]+|[0-9.]+):[0-9]+$'})
    interval = {'type': 'integer', 'minimum': 10, 'maximum': 4294967}
    bfd = _strict({'state': STATE, 'profile': _map(_strict({
        'detect-multiplier': {'type': 'integer', 'minimum': 2, 'maximum': 255}, 'min-rx-interval': interval,
        'min-tx-interval': interval, 'shutdown': STATE, 'passive-mode': STATE,
        'minimum-ttl': {'type': 'integer', 'minimum': 1, 'maximum': 254}}))})
    vrf_bgp = _strict(dict({
        'autonomous-system': ASN, 'router-id': {'type': 'string', 'format': 'ipv4'},
        'rd': {'type': 'string', 'pattern': '^([0-9.]+|[0-9]+):[0-9]+$'},
        'neighbor': _map(neighbor), 'peer-group': _map(_strict(dict(neighbor['properties']))),
        'address-family': _strict({
            'ipv4-unicast': _strict(dict({'network': _map(EMPTY, {'format': 'ip-prefix'}),
                                          'redistribute': _strict({'connected': _strict(switch)}),
                                          'route-export': _strict({'to-evpn': _strict(switch)})}, **switch)),
            'l2vpn-evpn': _strict(switch)}),
        'route-export': _strict({'to-evpn': _strict({'route-target': route_targets})}),
        'route-import': _strict({'from-evpn': _strict({'route-target': route_targets})})}, **switch))
    return _strict({
        'interface': _map(_strict(interface)),
        # `nv set router vrr enable on` (5.15: `state enabled`): VRR is off by default
        'router': _strict(dict({'bgp': _strict(dict({'autonomous-system': ASN,
                                                     'router-id': {'type': 'string', 'format': 'ipv4'}}, **switch)),
                                'vrr': _strict(switch)}, **({'bfd': bfd} if new else {}))),
        'system': _strict(dict({
            # NVUE API: `nv set system api state enabled|disabled` (CL 5.6+, enabled by default)
            'api': _strict({'state': STATE}),
            # User Account: `nv set system aaa user <user> hashed-password <hash>`, `role system-admin|nvue-admin|
            # nvue-monitor`
            'aaa': _strict({
                'user': _map(_strict({'hashed-password': {'type': 'string', 'pattern': '^\\$[0-9a-z]+\\$'},
                                      'password': {'type': 'string'}, 'full-name': {'type': 'string'},
                                      'role': {'enum': ['system-admin', 'nvue-admin', 'nvue-monitor']}}),
                             {'pattern': '^[a-z_][a-z0-9_-]{0,31}$'}),
                'tacacs': _strict({'server': _map(_strict({'host': {'type': 'string', 'format': 'ipv4'},
                                                           'port': {'type': 'integer', 'minimum': 1, 'maximum': 65535}}),
                                                  {'pattern': '^[0-9]+$'}),
                                   'vrf': {'type': 'string'}, 'enable': ON_OFF})}),
            'hostname': {'type': 'string', 'pattern': r'^[A-Za-z0-9]([A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$'},
            'forwarding': _strict({'ecmp-hash': {
                'type': 'object', 'additionalProperties': on_off, 'propertyNames': {'enum': [
                    'destination-ip', 'destination-port', 'gtp-teid', 'ingress-interface', 'inner-destination-ip',
                    'inner-destination-port', 'inner-ip-protocol', 'inner-ipv6-label', 'inner-source-ip',
                    'inner-source-port', 'ip-protocol', 'ipv6-label', 'source-ip', 'source-port']}}})},
            **system_services)),
        'vrf': _map(_strict({'router': _strict({'bgp': vrf_bgp}),
                             'evpn': _strict(dict({'vni': _map(EMPTY, {'format': 'vni'})}, **switch))})),
        # VXLAN: `nve vxlan source address`, `port <1024-65535>`, DSCP operations (CL "VXLAN Tunnel DSCP Operations")
        'nve': _strict({'vxlan': _strict(dict({
            'port': {'type': 'integer', 'minimum': 1024, 'maximum': 65535},
            'source': _strict({'address': {'type': 'string', 'format': 'ipv4'}}),
            'encapsulation': _strict({'dscp': _strict({'action': {'enum': ['copy', 'set', 'derive']},
                                                       'value': {'type': 'integer', 'minimum': 0, 'maximum': 63}})}),
            'decapsulation': _strict({'dscp': _strict({'action': {'enum': ['copy', 'preserve', 'derive']}})})},
            **switch))}),
        'evpn': _strict(dict({'vni': _map(_strict({
            'rd': {'type': 'string', 'pattern': '^([0-9.]+|[0-9]+):[0-9]+$'},
            'route-target': _strict({direction: route_targets for direction in ('both', 'import', 'export')})}),
            {'format': 'vni'})}, **switch)),
        # Bridge: `nv set bridge domain <domain> vlan <vid> vni <vni>`
        'bridge': _strict({'domain': _map(_strict({
            'vlan': _map(_strict({'vni': _map(EMPTY, {'format': 'vni'})}), {'format': 'vlan-id'}),
            'type': {'enum': ['vlan-aware']}, 'untagged': {'type': 'integer'}}))}),
        'qos': _strict({
            'pfc': _map(_strict({'switch-priority': _map(EMPTY, PRIORITY_KEYS), 'rx': enable, 'tx': enable,
                                 'cable-length': {'type': 'integer', 'minimum': 1, 'maximum': 100000}})),
            'mapping': _map(_strict({'trust': {'enum': ['l2', 'l3', 'port', 'both']},
                                     'dscp': _map(_strict({'switch-priority': {'type': 'integer', 'minimum': 0, 'maximum': 7}}),
                                                  {'pattern': '^([0-9]|[1-5][0-9]|6[0-3])$'})})),
            'congestion-control': _map(_strict({'traffic-class': per_class({
                'ecn': enable, 'red': enable, 'probability': {'type': 'integer', 'minimum': 0, 'maximum': 100},
                'min-threshold': {'type': 'integer', 'minimum': 1}, 'max-threshold': {'type': 'integer', 'minimum': 1}})})),
            'egress-scheduler': _map(_strict({'traffic-class': per_class({
                'mode': {'enum': ['dwrr', 'strict']}, 'bw-percent': {'type': 'integer', 'minimum': 0, 'maximum': 100}})})),
            'egress-queue-mapping': _map(_strict({'switch-priority': per_class({
                'traffic-class': {'type': 'integer', 'minimum': 0, 'maximum': 7}})})),
            'pfc-watchdog': _strict({'polling-interval': {'type': 'integer', 'minimum': 100, 'maximum': 5000},
                                     'robustness': {'type': 'integer', 'minimum': 1, 'maximum': 1000}}),
            'traffic-pool': _map(_strict({'memory-percent': {'type': 'integer', 'minimum': 0, 'maximum': 100},
                                          'switch-priority': _map(EMPTY, PRIORITY_KEYS)}))}),
        'service': _strict(services),
    })


def _vni(value):
    """A VXLAN network identifier: 24 bits, 0 reserved (RFC 7348 section 5; NVUE's own bound is [unverified])."""
    return bool(re.fullmatch(r'[0-9]+', str(value))) and 1 <= int(value) <= 16777215


def _vlan_id(value):
    """`nv set bridge domain <domain-id> vlan <vid>`: 1-4094 (IEEE 802.1Q)."""
    return bool(re.fullmatch(r'[0-9]+', str(value))) and 1 <= int(value) <= 4094


def _ip_prefix(value):
    try:
        ipaddress.ip_interface(value)
        return '/' in value
    except ValueError:
        return False


@functools.lru_cache(maxsize=None)
def _yaml():
    """(yaml, Loader, Dumper) as NVUE reads and writes YAML, imported on first use: every command is a process of its
    own and the JSON ones (`nv show ... -o json`, what the drivers and gatherers run) do not need PyYAML."""
    import yaml  # pylint: disable=import-outside-toplevel

    class Loader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
        """`on`/`off`/`yes`/`no` stay strings (YAML 1.2 booleans are true/false only)."""

    Loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != 'tag:yaml.org,2002:bool']
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver('tag:yaml.org,2002:bool', re.compile(r'^(?:true|True|TRUE|false|False|FALSE)$'),
                                 list('tTfF'))

    class Dumper(yaml.SafeDumper):  # pylint: disable=too-many-ancestors
        pass

    def quote_on_off(dumper, value):
        style = "'" if value in ('on', 'off', 'yes', 'no', 'y', 'n') or re.match(r'^[\d.:/]+$', value) else None
        return dumper.represent_scalar('tag:yaml.org,2002:str', value, style=style)

    Dumper.add_representer(str, quote_on_off)
    return yaml, Loader, Dumper


def to_yaml(data):
    yaml, _loader, dumper = _yaml()
    return yaml.dump(data, Dumper=dumper, default_flow_style=False, sort_keys=False)


def from_yaml(stream):
    """A YAML document (text or file) as NVUE reads it."""
    yaml, loader, _dumper = _yaml()
    return yaml.load(stream, Loader=loader)  # nosec - loader is a SafeLoader


# -- revisions ---------------------------------------------------------------------------------------------
def _file(directory):
    return state.path(directory, 'nvue', 'revisions.json')


def load(directory):
    return state.read_json(_file(directory))


def save(directory, data):
    state.write_json(_file(directory), data, indent=1)


def factory(directory, facts):
    deploy_state = state.path(directory, 'etc', 'aifabric-deploy')  # the deploy's confirm state: a fresh switch has none
    for name in os.listdir(deploy_state) if os.path.isdir(deploy_state) else ():
        os.remove(os.path.join(deploy_state, name))
    major, minor = (int(part) for part in str(facts.get('release', state.CUMULUS_RELEASE)).split('.')[:2])
    eth0 = {'type': 'eth', 'ipv4': {'address': {'192.0.2.10/24': {}}}, 'vrf': 'mgmt'} if (major, minor) >= (5, 15) \
        else {'type': 'eth', 'ip': {'address': {'192.0.2.10/24': {}}, 'vrf': 'mgmt'}}
    tree = {'system': {'hostname': 'cumulus'}, 'interface': {'eth0': eth0}}
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


FORMATS = {'vni': _vni, 'vlan-id': _vlan_id, 'ip-prefix': _ip_prefix}


@functools.lru_cache(maxsize=8)
def _validator(release):
    # Imported here: jsonschema loads its meta-schemas on import (~0.15 s), and every `nv show` is a new process.
    import jsonschema  # pylint: disable=import-outside-toplevel
    checker = jsonschema.FormatChecker()
    for name, check in FORMATS.items():
        checker.checks(name)(check)
    return jsonschema.Draft7Validator(schema(release), format_checker=checker)


BUILTIN_VRFS = ('default', 'mgmt')  # Cumulus Linux's own VRFs (the management VRF exists on every switch)


def reference_errors(tree):
    """References between objects, as the NVUE reference builds them: a neighbor's peer-group is a peer-group of the
    same VRF (`nv set vrf <vrf-id> router bgp neighbor <id> peer-group <peer-group-id>`), an interface's or a
    service's VRF is a VRF (`nv set interface <id> ip vrf <vrf-id>`, 5.15 `interface <id> vrf <vrf-id>`, `nv set
    service ntp <vrf-id> ...`, `system syslog server <id> vrf <vrf-id>`), a bridge access VLAN is a VLAN of that
    domain, a congestion-control or PFC profile exists (`nv set interface <id> qos congestion-control profile
    <profile-id>`, `qos pfc profile <profile-id>`), a neighbor's BFD profile exists (5.15+: `nv set vrf <vrf-id> router
    bgp neighbor <id> bfd profile <profile-name>` "using the specified BFD profile"). The error texts are
    [unverified]."""
    errors = []
    vrfs = set(BUILTIN_VRFS) | set(tree.get('vrf') or {})
    bfd_profiles = set((((tree.get('router') or {}).get('bfd') or {}).get('profile')) or {})
    for vrf, body in (tree.get('vrf') or {}).items():
        bgp = ((body.get('router') or {}).get('bgp') or {}) if isinstance(body, dict) else {}
        groups = set(bgp.get('peer-group') or {})
        for name, neighbor in (bgp.get('neighbor') or {}).items():
            # `<neighbor-id>`: the peer's IP address, or the interface of an unnumbered session
            if name not in (tree.get('interface') or {}) and not frr.is_address(name):
                errors.append("Config invalid at vrf.%s.router.bgp.neighbor.%s: '%s' is neither an IP address nor an "
                              "interface" % (vrf, name, name))
            group = (neighbor or {}).get('peer-group') if isinstance(neighbor, dict) else None
            if group is not None and group not in groups:
                errors.append("Config invalid at vrf.%s.router.bgp.neighbor.%s.peer-group: '%s' is not a peer-group of "
                              "vrf %s" % (vrf, name, group, vrf))
            profile = ((neighbor.get('bfd') or {}).get('profile')) if isinstance(neighbor, dict) else None
            if profile is not None and profile not in bfd_profiles:
                errors.append("Config invalid at vrf.%s.router.bgp.neighbor.%s.bfd.profile: '%s' is not a bfd profile"
                              % (vrf, name, profile))
    domains = ((tree.get('bridge') or {}).get('domain')) or {}
    profiles = {kind: set(((tree.get('qos') or {}).get(kind)) or {}) for kind in ('congestion-control', 'pfc')}
    for name, body in (tree.get('interface') or {}).items():
        if not isinstance(body, dict):
            continue
        for where, vrf in (('ip.vrf', (body.get('ip') or {}).get('vrf')), ('vrf', body.get('vrf'))):
            if vrf is not None and vrf not in vrfs:
                errors.append("Config invalid at interface.%s.%s: '%s' is not a vrf" % (name, where, vrf))
        for domain, member in (((body.get('bridge') or {}).get('domain')) or {}).items():
            if domain not in domains:
                errors.append("Config invalid at interface.%s.bridge.domain: '%s' is not a bridge domain" % (name, domain))
            elif isinstance(member, dict) and member.get('access') is not None and \
                    str(member['access']) not in (domains[domain].get('vlan') or {}):
                errors.append("Config invalid at interface.%s.bridge.domain.%s.access: VLAN %s is not a VLAN of %s"
                              % (name, domain, member['access'], domain))
        for kind, known in profiles.items():
            profile = (((body.get('qos') or {}).get(kind)) or {}).get('profile')
            if profile is not None and profile not in known:
                errors.append("Config invalid at interface.%s.qos.%s.profile: '%s' is not a %s profile"
                              % (name, kind, profile, kind))
    for service, by_vrf in (tree.get('service') or {}).items():
        for vrf in (by_vrf or {}) if isinstance(by_vrf, dict) and service != 'lldp' else ():
            if vrf not in vrfs:
                errors.append("Config invalid at service.%s.%s: '%s' is not a vrf" % (service, vrf, vrf))
    system = tree.get('system') or {}
    named = [('system.ntp.vrf', (system.get('ntp') or {}).get('vrf'))]
    for service in ('dns', 'syslog'):
        named.extend(('system.%s.server.%s.vrf' % (service, server), (fields or {}).get('vrf'))
                     for server, fields in ((system.get(service) or {}).get('server') or {}).items()
                     if isinstance(fields, dict))
    for where, vrf in named:
        if vrf is not None and vrf not in vrfs:
            errors.append("Config invalid at %s: '%s' is not a vrf" % (where, vrf))
    tacacs_vrf = (((tree.get('system') or {}).get('aaa') or {}).get('tacacs') or {}).get('vrf')
    if tacacs_vrf is not None and tacacs_vrf not in vrfs:
        errors.append("Config invalid at system.aaa.tacacs.vrf: '%s' is not a vrf" % tacacs_vrf)
    return errors


def validation_errors(tree, facts):
    errors = []
    modelled = {key: value for key, value in tree.items() if key not in NOT_MODELLED}
    for key in sorted(set(tree) & set(NOT_MODELLED)):
        errors.append('Config invalid at %s: the device double does not model this NVUE object' % key)
    validator = _validator(str(facts.get('release', state.CUMULUS_RELEASE)))
    for error in sorted(validator.iter_errors(modelled), key=lambda e: list(e.absolute_path)):
        where = '.'.join(str(part) for part in error.absolute_path)
        errors.append('Config invalid at %s: %s' % (where or '<root>', error.message))
    ports = set(facts.get('ports', []))
    for name, body in (tree.get('interface') or {}).items():
        kind = body.get('type') if isinstance(body, dict) else None
        if (kind == 'swp' or (kind is None and name.startswith('swp'))) and name not in ports:
            errors.append("Config invalid at interface.%s: '%s' is not a port of this platform" % (name, name))
    return errors + (reference_errors(tree) if not errors else [])


def _revision(data, directory, base_id):
    rev_id = str(data['next'])
    data['next'] += 1
    base = data['revs'][base_id]['config'] if base_id else {}
    import getpass  # pylint: disable=import-outside-toplevel  # `nv set`'s, not every command's
    data['revs'][rev_id] = {'state': 'pending', 'config': copy.deepcopy(base), 'parent': data['applied'],
                            'date': time.time(), 'user': getpass.getuser(), 'message': 'Config update by %s' % PROMPT}
    data['pending'] = rev_id
    return rev_id


PROMPT = 'cumulus'


CONFIRM_UNITS = {'s': 1 / 60, 'm': 1, 'h': 60, 'd': 24 * 60}


def _confirm_seconds(text, facts):
    """`--confirm <time>`: a number of minutes (NVUE reference, Config Commands: "nv config apply --confirm 60 requires
    you to confirm within one hour"; ten minutes without a time), or a number with a unit (`300s`, `5m`, `1h`, `1d`),
    which switches take too (`nv config apply --confirm 300s`) though NVIDIA's reference shows only the bare form
    [unverified]. The double's minute lasts `minute_s` seconds (a device fact, 60 by default) so that tests need not
    wait minutes."""
    match = re.fullmatch(r'([0-9]+)([smhd]?)', text)
    if not match or int(match.group(1)) < 1:
        raise ValueError(text)
    return int(match.group(1)) * CONFIRM_UNITS[match.group(2) or 'm'] * float(facts.get('minute_s', 60))


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
            yaml = _yaml()[0]
            try:
                with open(rest[0], encoding='utf-8') as handle:
                    tree = from_operations(from_yaml(handle))
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


# The options of `nv config apply` in NVIDIA's reference ("Config Commands").
APPLY_OPTIONS = ('-y', '--y', '--assume-yes', '--assume-no', '--confirm', '--confirm-status')


def _apply(directory, faults, data, facts, rest):
    flags = [item for item in rest if item.startswith('-')]
    unknown = [flag for flag in flags if flag not in APPLY_OPTIONS]
    if unknown:
        sys.stderr.write('Error: unrecognized option %s\n' % unknown[0])  # the text is ours: NVUE's is unverified
        return 1
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
    if confirm:
        sys.stderr.write('Error: Revision %s is pending confirmation; confirm it or let it roll back first\n' % confirm['rev'])
        return 1
    seconds = None
    if confirm_time is not None:
        try:
            seconds = _confirm_seconds(confirm_time, facts)
        except ValueError:
            sys.stderr.write("Error: Invalid confirm time '%s'\n" % confirm_time)
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
    faults.committed()
    if seconds is not None:
        data['revs'][rev_id]['state'] = 'confirm'
        data['confirm'] = {'rev': rev_id, 'deadline': time.time() + seconds, 'previous': previous}
    else:
        data['revs'][rev_id]['state'] = 'applied'
        _autosave(data, facts)
    save(directory, data)
    sys.stdout.write('applied [rev_id: %s]\n' % rev_id)
    sys.stdout.flush()
    if faults.get('drop_after_commit'):
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
                           'interface': name if neighbor.get('type') == 'unnumbered' or not frr.is_address(name) else None}
        if peers or bgp:
            vrfs[vrf] = {'asn': asn, 'router_id': bgp.get('router-id') or tree.get('router', {}).get('bgp', {}).get('router-id'),
                         'peers': peers}
    seen = state.first_seen(directory, ['%s|%s' % (vrf, peer) for vrf, body in vrfs.items() for peer in body['peers']])

    owner = frr.subnet_owner((prefix, ifname) for ifname, body in interfaces.items() for prefix in body['ip']['address'])

    def link_up(name, peer):
        ifname = peer['interface'] or owner(name)
        return interfaces.get(ifname, {}).get('link', {}).get('oper-status') == 'up' if ifname else True
    return vrfs, seen, link_up


def _switched_on(node):
    """`enable: on` (5.14 and earlier) or `state: enabled` (5.15 and later)."""
    node = node or {}
    return node.get('enable') == 'on' or node.get('state') == 'enabled'


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
    enabled = configured == 'enable'
    status = {}
    for priority in _lossless(tree, name):
        tripped = bool(trip) and int(trip.get('priority', priority)) == priority
        status[str(priority)] = {'status': 'stormed' if tripped else 'operational',
                                 'deadlock-count': int(trip.get('count', 1)) if tripped else 0}
    return {'state': configured if enabled else 'disable', 'status': status}


ROUTE_SHOW = ['-j', '-4', 'route', 'show', 'table', 'main']


def ip_route(directory, faults, args):
    """`ip -j -4 route show table main`, the kernel table switchd programs into the ASIC: the connected subnets of
    the interfaces that are up, a BGP route to every remote VTEP over the established sessions (zebra installs them in
    the kernel), and the routes of the `routes` fault knob (tests/doubles/routes.py). Nothing else of iproute2."""
    if args not in (ROUTE_SHOW, ROUTE_SHOW[:-2]):
        sys.stderr.write('The NVUE double answers only ip %s\n' % ' '.join(ROUTE_SHOW))
        return 1
    from tests.doubles import routes as route_tables  # pylint: disable=import-outside-toplevel  # `ip route`'s alone
    tree = load(directory)
    tree = tree['revs'][tree['applied']]['config']
    interfaces = _interfaces(directory, faults, tree)
    connected = [(prefix, name) for name, body in interfaces.items() for prefix in body['ip']['address']
                 if body['ip'].get('vrf', 'default') == 'default' and '.' in prefix and not prefix.endswith('/32')
                 and body.get('link', {}).get('oper-status') == 'up']
    vrfs, seen, link_up = _bgp(directory, faults, tree)
    owner = frr.subnet_owner(connected)
    hops = route_tables.frr_hops(vrfs, seen, faults, link_up, owner)
    world = state.device(directory).get('world', {})
    held = route_tables.held(faults.get('routes'))
    sys.stdout.write(route_tables.iproute2_json(route_tables.switch_routes(connected, hops, flooding_vteps(world), held)) + '\n')
    return 0


def main(directory, faults, command, args):
    if command == 'ip':
        return ip_route(directory, faults, args)
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
