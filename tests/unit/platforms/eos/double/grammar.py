"""The EOS configuration commands the eAPI double accepts, per CLI mode, section by section.

Every command shape below is written from the section of Arista's own configuration generator that emits it,
AVD's eos_cli_config_gen (aristanetworks/avd @ 3cac535c16, python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/
<section>.j2, value ranges from its schema eos_cli_config_gen.schema.yml), and the EOS User Manual chapter of the
feature (https://www.arista.com/en/um-eos). The section each mode comes from is named above it; README.md ("EOS:
rules and sources") lists them. Sections the renderer does not write and no source describes are not accepted:
an unknown command is refused the way EOS refuses it, `Invalid input (at token N: 'word')` for the first token no
pattern accepts, `Incomplete command` when the line stops early. Like EOS, a line that is not valid in the current
mode is tried in the parent modes (leaving the current mode), which is how flattened configuration (napalm strips
indentation) lands in the right section.

Pattern syntax, one per line:
  keyword | a|b|c          literal keyword(s)
  <type> / <int:lo-hi>      typed argument (see TYPES); a trailing `+` repeats it
  ...                       any further tokens: only where the source takes free text (descriptions, names)
  @N                        the first N tokens (without a leading `no`) identify the line: a later line
                            with the same identity replaces it (e.g. `mtu 9100` replaces `mtu 1500`)
  -> mode                   the line opens a sub-mode

Unverified (no public source found; docs/platform-eos.md marks them [V]): `dcbx application ... priority <p>` and
`dcbx mode ieee|cee` (no AVD section writes DCBX), the 9214 upper bound of an interface MTU (AVD allows 65535).
The conflicts EOS refuses between lines (one BGP instance, peer groups defined before use, a VNI on one VLAN or VRF)
are in conflicts() below.
"""

from __future__ import annotations

import ipaddress
import re

INTERFACE = re.compile(
    r'^(Ethernet\d+(/\d+){0,2}(\.\d+)?|Loopback\d+|Vlan\d+|Vxlan1|Management\d+(/\d+)?|Port-Channel\d+(\.\d+)?)$')
NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.:/@+-]*$')
FLOAT = re.compile(r'^\d+(\.\d+)?$')
# priority_flow_control.watchdog timers: "decimal with up to 2 decimal point" (AVD schema)
SECONDS = re.compile(r'^\d+(\.\d{1,2})?$')
POLL_SECONDS = re.compile(r'^\d+(\.\d{1,3})?$')  # polling_interval: up to 3 decimals
MAC = re.compile(r'^([0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}|[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){2})$')
SPEED = re.compile(r'^(\d+(g|m)(-\d+)?|auto|forced)$')
VLAN_LIST = re.compile(r'^\d+(-\d+)?(,\d+(-\d+)?)*$')
SHA512 = re.compile(r'^\$6\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{86}$')


def _ipv4(token):
    try:
        ipaddress.IPv4Address(token)
        return True
    except ValueError:
        return False


def _ipv6(token):
    try:
        ipaddress.IPv6Address(token)
        return True
    except ValueError:
        return False


def _prefix(token, version):
    if '/' not in token:
        return False
    try:
        return ipaddress.ip_interface(token).version == version
    except ValueError:
        return False


def _asn(token):
    if re.match(r'^\d+\.\d+$', token):
        high, low = token.split('.')
        return int(high) < 65536 and int(low) < 65536
    return token.isdigit() and 1 <= int(token) <= 4294967295


def _route_target(token):
    left, sep, right = token.rpartition(':')
    return bool(sep) and right.isdigit() and (_asn(left) or _ipv4(left))


def _vlan_list(token):
    if not VLAN_LIST.match(token):
        return False
    return all(1 <= int(part) <= 4094 for part in re.split(r'[-,]', token))


TYPES = {
    'name': lambda t: bool(NAME.match(t)),
    'word': lambda t: True,
    'intf': lambda t: bool(INTERFACE.match(t)),
    'ipv4': _ipv4,
    'ipv6': _ipv6,
    'ip': lambda t: _ipv4(t) or _ipv6(t),
    'host': lambda t: _ipv4(t) or _ipv6(t) or bool(re.match(r'^[A-Za-z0-9][A-Za-z0-9.-]*$', t)),
    'prefix4': lambda t: _prefix(t, 4),
    'prefix6': lambda t: _prefix(t, 6),
    'asn': _asn,
    'rt': _route_target,
    'rd': _route_target,
    'mac': lambda t: bool(MAC.match(t)),
    'float': lambda t: bool(FLOAT.match(t)),
    'seconds': lambda t: bool(SECONDS.match(t)),
    'poll': lambda t: bool(POLL_SECONDS.match(t)),
    'sha512': lambda t: bool(SHA512.match(t)),
    'speed': lambda t: bool(SPEED.match(t)),
    'vlans': _vlan_list,
    # A peer is an address or a peer-group name; a malformed address is not taken for a group name.
    'group': lambda t: bool(NAME.match(t)) and not re.match(r'^[\d.:]+$', t),
    'peer': lambda t: _ipv4(t) or _ipv6(t) or (bool(NAME.match(t)) and not re.match(r'^[\d.:]+$', t)),
}

# router-bgp.j2: neighbor lines shared by the BGP instance and its VRFs (peer groups, then their members).
_NEIGHBOR = '''
neighbor <group> peer group @3
neighbor <peer> peer group <group> @3
neighbor <peer> remote-as <asn> @3
neighbor <peer> description ... @3
neighbor <peer> send-community @3
neighbor <peer> send-community standard|extended|large|link-bandwidth ... @3
neighbor <peer> maximum-routes <int:0-4294967294> @3
neighbor <peer> maximum-routes <int:0-4294967294> warning-limit ... @3
neighbor <peer> bfd @3
neighbor <peer> update-source <intf> @3
neighbor <peer> ebgp-multihop <int:1-255> @3
neighbor <peer> ebgp-multihop @3
neighbor <peer> password <int:0-7> <word> @3
neighbor <peer> allowas-in @3
neighbor <peer> allowas-in <int:1-10> @3
neighbor <peer> next-hop-self @3
neighbor <peer> next-hop-unchanged @3
neighbor <peer> route-map <name> in|out @4
neighbor <peer> timers <int:0-3600> <int:0-3600> @3
neighbor <peer> local-as <asn> no-prepend replace-as @3
neighbor <peer> shutdown @3
neighbor interface <intf> peer-group <group> remote-as <asn> @3
neighbor interface <intf> peer-group <group> peer-filter <name> @3
'''

MODES = {
    'config': '''
# service-routing-protocols-model.j2, hostname.j2, vlans.j2, vrfs.j2
service routing protocols model multi-agent|ribd @4
hostname <name> @1
vlan <vlans> -> vlan
vrf instance <name> -> vrf-instance
# ip-routing.j2, ip-routing-vrfs.j2, ipv6-unicast-routing.j2, ip-virtual-router-mac-address.j2, static-routes.j2
ip routing @2
ip routing ipv6 interfaces @4
ip routing vrf <name> @4
ipv6 unicast-routing @2
ip virtual-router mac-address <mac> @3
ip route <prefix4> <ipv4> @4
ip route <prefix4> <intf> @4
ip route <prefix4> <ipv4> <int:1-255> @4
ip route vrf <name> <prefix4> <ipv4> @6
ip route vrf <name> <prefix4> <ipv4> <int:1-255> @6
# ip-name-servers.j2, dns-domain.j2, ntp.j2, logging.j2, ip-tacacs-source-interfaces.j2, tacacs-servers.j2,
# aaa-server-groups-tacacs-plus.j2, aaa-authentication.j2, aaa-authorization.j2, local-users.j2, clock.j2
ip name-server <ip>
ip name-server vrf <name> <ip>
dns domain <name> @2
ntp server <host>
ntp server <host> prefer|iburst ...
ntp server vrf <name> <host>
ntp server vrf <name> <host> prefer|iburst|local-interface ...
ntp local-interface <intf> @2
ntp local-interface vrf <name> <intf> @2
logging host <host>
logging vrf <name> host <host>
logging vrf <name> source-interface <intf> @3
logging source-interface <intf> @2
logging buffered <int:10-2147483647> @2
logging trap debugging|informational|notifications|warnings|errors|critical|alerts|emergencies @2
ip tacacs source-interface <intf> @2
ip tacacs vrf <name> source-interface <intf> @4
tacacs-server host <host>
tacacs-server host <host> vrf <name>
tacacs-server host <host> vrf <name> key <int:0-7> <word>
tacacs-server key <int:0-7> <word> @2
tacacs-server timeout <int:1-1000> @2
aaa group server tacacs+|radius <name> -> aaa-group
aaa authentication login default|console group <name> local @4
aaa authentication login default|console local @4
aaa authorization exec default group <name> local @4
aaa authorization exec default local @4
# aaa-authorization.j2 `commands all|<level> default <methods>`, aaa-accounting.j2 (type none|start-stop|stop-only,
# commands 'all' or privilege 0-15: AVD schema aaa_accounting; molecule eos_cli_config_gen/intended/configs/aaa.cfg)
aaa authorization commands all|<int:0-15> default group <name> local @5
aaa authorization commands all|<int:0-15> default group <name> @5
aaa accounting exec default|console none @4
aaa accounting exec default|console start-stop|stop-only @4
aaa accounting exec default|console start-stop|stop-only group <name> @4
aaa accounting exec default|console start-stop|stop-only group <name> logging @4
aaa accounting commands all|<int:0-15> default|console none @5
aaa accounting commands all|<int:0-15> default|console start-stop|stop-only @5
aaa accounting commands all|<int:0-15> default|console start-stop|stop-only group <name> @5
aaa accounting commands all|<int:0-15> default|console start-stop|stop-only group <name> logging @5
username <name> privilege <int:0-15> role <name> secret sha512 <sha512> @2
username <name> privilege <int:0-15> role <name> nopassword @2
username <name> privilege <int:0-15> secret sha512 <sha512> @2
username <name> privilege <int:0-15> nopassword @2
username <name> secret sha512 <sha512> @2
username <name> nopassword @2
clock timezone <word> @2
# spanning-tree.j2, lldp.j2, load-interval.j2
spanning-tree mode mstp|rstp|rapid-pvst|none @2
lldp run @2
lldp timer <int:5-32768> @2
lldp holdtime <int:10-65535> @2
load-interval default <int:0-600> @3
# qos.j2 (qos map dscp/traffic-class/cos), qos-profiles.j2, priority-flow-control.j2
qos map dscp <int:0-63>+ to traffic-class <int:0-7>
qos map traffic-class <int:0-7>+ to dscp <int:0-63>
qos map traffic-class <int:0-7>+ to cos <int:0-7>
qos map traffic-class <int:0-7>+ to tx-queue <int:0-7>
qos map cos <int:0-7>+ to traffic-class <int:0-7>
qos rewrite dscp @3
qos random-detect ecn allow non-ect @5
qos random-detect ecn allow non-ect chip-based @5
qos profile <name> -> qos-profile
priority-flow-control all off @3
priority-flow-control pause watchdog action drop|no-drop @4
priority-flow-control pause watchdog default timeout <seconds> @5
priority-flow-control pause watchdog default recovery-time <seconds> @5
priority-flow-control pause watchdog default recovery-time <seconds> forced @5
priority-flow-control pause watchdog default polling-interval <poll> @5
priority-flow-control pause watchdog override action drop @5
# [unverified] the DCBX application priority table (EOS manual "Data Center Bridging"; no AVD section)
dcbx application udp|tcp-sctp|tcp-sctp-udp <int:1-65535> priority <int:0-7> @4
dcbx application ether <int:1536-65535> priority <int:0-7> @4
dcbx application iscsi priority <int:0-7> @3
# ethernet-interfaces.j2, loopback-interfaces.j2, management-interfaces.j2, vlan-interfaces.j2, vxlan-interface.j2
interface <intf> -> interface
# router-bfd.j2, router-bgp.j2, route-maps.j2, prefix-lists.j2
router bfd -> router-bfd
router bgp <asn> -> router-bgp
route-map <name> permit|deny <int:1-16777215> -> route-map
ip prefix-list <name> seq <int:0-65535> permit|deny <prefix4> @5
ip prefix-list <name> seq <int:0-65535> permit|deny <prefix4> ge|le <int:0-32> ... @5
# standard-access-lists.j2 (sequence 1-4294967295 [unverified] upper bound, AVD schema standard_access_lists)
ip access-list standard <name> -> acl-standard
# management-api-http.j2, management-ssh.j2
management api http-commands -> management-api
management ssh -> management-ssh
# management-security.j2 (the SSL profiles an operator gives eAPI's HTTPS)
management security -> management-security
''',
    # vlans.j2
    'vlan': '''
name <name> @1
state active|suspend @1
trunk group <name>
''',
    # vrfs.j2
    'vrf-instance': '''
description ... @1
''',
    # ethernet-interfaces.j2, loopback-interfaces.j2, management-interfaces.j2, vlan-interfaces.j2, vxlan-interface.j2
    # (MTU 68-9214: [unverified] upper bound), the PFC and queue lines of ethernet-interface-tx-queues.j2
    'interface': '''
description ... @1
mtu <int:68-9214> @1
speed <speed> @1
speed forced|auto <speed> @1
shutdown @1
no shutdown @1
switchport @1
no switchport @1
switchport mode access|trunk|routed @2
switchport access vlan <int:1-4094> @3
switchport trunk allowed vlan <vlans> @4
switchport trunk native vlan <int:1-4094> @4
switchport trunk group <name>
spanning-tree portfast @2
spanning-tree portfast edge|network @2
spanning-tree bpduguard enable|disable @2
service-profile <name> @1
ip address <prefix4> @2
ip address <prefix4> secondary
ip address virtual <prefix4> @3
ipv6 enable @2
ipv6 address <prefix6>
ipv6 address auto-config @2
vrf <name> @1
load-interval <int:0-600> @1
qos trust dscp|cos @2
no qos trust @2
priority-flow-control on @1
priority-flow-control priority <int:0-7> no-drop|drop @3
error-correction encoding reed-solomon|fire-code @2
no error-correction encoding @2
bfd interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> @1
channel-group <int:1-2000> mode active|passive|on @1
lldp transmit|receive @2
ip proxy-arp @2
tx-queue <int:0-7> -> tx-queue
uc-tx-queue <int:0-7> -> tx-queue
vxlan source-interface <intf> @2
vxlan udp-port <int:1024-65535> @2
vxlan vlan <int:1-4094> vni <int:1-16777215> @3
vxlan vrf <name> vni <int:1-16777215> @3
vxlan qos ecn propagation @3
vxlan qos dscp propagation encapsulation @3
vxlan qos map dscp to traffic-class decapsulation @3
vxlan flood vtep <ipv4>+ @3
vxlan controller-client @2
# [unverified] DCBX per port (EOS manual "Data Center Bridging"; no AVD section)
dcbx mode ieee|cee @2
''',
    # qos-profiles.j2
    'qos-profile': '''
qos trust dscp|cos @2
no qos trust @2
tx-queue <int:0-7> -> tx-queue
uc-tx-queue <int:0-7> -> tx-queue
priority-flow-control on @1
no priority-flow-control @1
priority-flow-control priority <int:0-7> no-drop|drop @3
priority-flow-control pause watchdog @3
priority-flow-control pause watchdog port action drop|notify-only @5
priority-flow-control pause watchdog port timer timeout <seconds> polling-interval <poll>|auto recovery-time <seconds> @5
priority-flow-control pause watchdog port timer timeout <seconds> polling-interval <poll>|auto recovery-time <seconds> forced @5
service-policy type qos input <name> @3
''',
    # ethernet-interface-tx-queues.j2 (max-mark-probability 1-100, AVD schema)
    'tx-queue': '''
bandwidth percent <int:0-100> @1
bandwidth guaranteed percent <int:0-100> @2
priority strict @1
no priority @1
random-detect ecn minimum-threshold <int:1-4294967295> bytes|kbytes|mbytes|segments maximum-threshold \
<int:1-4294967295> bytes|kbytes|mbytes|segments @2
random-detect ecn minimum-threshold <int:1-4294967295> bytes|kbytes|mbytes|segments maximum-threshold \
<int:1-4294967295> bytes|kbytes|mbytes|segments max-mark-probability <int:1-100> @2
random-detect ecn minimum-threshold <int:1-4294967295> bytes|kbytes|mbytes|segments maximum-threshold \
<int:1-4294967295> bytes|kbytes|mbytes|segments max-mark-probability <int:1-100> weight <int:0-15> @2
random-detect ecn count @3
''',
    # router-bgp.j2 (maximum-paths 1-600, AVD schema)
    'router-bgp': _NEIGHBOR + '''
router-id <ipv4> @1
bgp default ipv4-unicast @3
no bgp default ipv4-unicast @3
bgp log-neighbor-changes @2
bgp bestpath as-path multipath-relax @4
maximum-paths <int:1-600> @1
maximum-paths <int:1-600> ecmp <int:1-600> @1
distance bgp <int:1-255> <int:1-255> <int:1-255> @2
timers bgp <int:0-3600> <int:0-3600> @2
update wait-install @2
update wait-for-convergence @2
graceful-restart @1
graceful-restart restart-time <int:1-3600> @2
redistribute connected @2
redistribute connected route-map <name> @2
redistribute static @2
vlan <int:1-4094> -> bgp-vlan
vlan-aware-bundle <name> -> bgp-vlan
address-family evpn -> bgp-af
address-family ipv4|ipv6 -> bgp-af
vrf <name> -> bgp-vrf
''',
    'bgp-vlan': '''
rd <rd> @1
rd auto @1
route-target both|import|export <rt> @3
route-target both|import|export auto @3
redistribute learned|static|host-route @2
vlan <vlans> @1
''',
    'bgp-af': '''
neighbor <peer> activate @2
no neighbor <peer> activate @2
neighbor <peer> next-hop address-family ipv6 originate @3
neighbor <peer> encapsulation vxlan|mpls @3
neighbor <peer> route-map <name> in|out @4
bgp next-hop-unchanged @2
network <prefix4> @1
network <prefix6> @1
network <prefix4> route-map <name> @1
redistribute connected @2
redistribute static @2
maximum-paths <int:1-600> @1
''',
    'bgp-vrf': _NEIGHBOR + '''
rd <rd> @1
route-target both|import|export evpn|vpn-ipv4|vpn-ipv6 <rt>
route-target both|import|export <rt>
redistribute connected|static @2
router-id <ipv4> @1
maximum-paths <int:1-600> @1
network <prefix4> @1
address-family ipv4|ipv6 -> bgp-af
''',
    # router-bfd.j2 (multiplier 3-50, AVD schema)
    'router-bfd': '''
interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> default @1
interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> @1
multihop interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> @1
''',
    # management-api-http.j2
    'management-api': '''
protocol https|http @2
protocol https certificate @3
protocol https ssl profile <name> @3
no protocol https|http @2
shutdown @1
no shutdown @1
default-services @1
no default-services @1
vrf <name> -> management-api-vrf
''',
    'management-api-vrf': '''
shutdown @1
no shutdown @1
ip access-group <name> @2
ipv6 access-group <name> @2
''',
    # management-security.j2 (AVD eos_cli_config_gen @ 0a29e185)
    'management-security': '''
ssl profile <name> -> management-security-ssl
''',
    'management-security-ssl': '''
tls versions ... @1
fips restrictions @1
cipher-list ... @1
trust certificate <word>
chain certificate <word>
certificate <word> key <word> @1
crl <word>
''',
    # management-ssh.j2: the access groups are lines of `management ssh` itself (`ip access-group <acl> [vrf <vrf>] in`),
    # its `vrf <name>` sub-mode takes only shutdown / no shutdown
    'management-ssh': '''
shutdown @1
no shutdown @1
idle-timeout <int:0-86400> @1
authentication empty-passwords auto|deny|permit @2
ip access-group <name> in @2
ip access-group <name> vrf <name> in @4
ipv6 access-group <name> in @2
ipv6 access-group <name> vrf <name> in @4
vrf <name> -> management-ssh-vrf
''',
    'management-ssh-vrf': '''
shutdown @1
no shutdown @1
''',
    # standard-access-lists.j2: `<sequence> <action>`, the action a standard ACL entry as AVD's molecule scenario
    # eos_cli_config_gen/intended/configs/acl.cfg writes it (`20 permit 10.0.0.0/8`, `20 permit host 10.10.10.10`,
    # `10 remark ...`)
    'acl-standard': '''
counters per-entry @2
<int:1-4294967295> permit|deny <prefix4> @1
<int:1-4294967295> permit|deny host <ipv4> @1
<int:1-4294967295> remark ... @1
''',
    # aaa-server-groups-tacacs-plus.j2
    'aaa-group': '''
server <host>
server <host> vrf <name>
''',
    # route-maps.j2
    'route-map': '''
description ... @1
match ip address prefix-list <name> @3
set ...
continue @1
''',
}


class Pattern:
    """One command shape: its tokens, identity length and the mode it opens."""

    def __init__(self, text):
        text = text.strip()
        self.opens = None
        if '->' in text:
            text, self.opens = (part.strip() for part in text.split('->'))
        self.identity = None
        match = re.search(r'\s@(\d+)$', text)
        if match:
            self.identity = int(match.group(1))
            text = text[:match.start()]
        self.text = text
        self.tokens = text.split()
        self.negative = self.tokens[0] == 'no'

    def match(self, words):
        """Return ('ok'|'incomplete'|'mismatch', index of the first bad token)."""
        return _match(self.tokens, 0, words, 0)


def _token_ok(spec, word):
    for alternative in spec.rstrip('+').split('|'):
        if alternative.startswith('<'):
            kind = alternative.strip('<>')
            if kind.startswith('int:'):
                low, high = kind[4:].split('-')
                if word.isdigit() and int(low) <= int(word) <= int(high):
                    return True
            elif TYPES[kind](word):
                return True
        elif word == alternative:
            return True
    return False


def _match(specs, si, words, wi):
    if si == len(specs):
        return ('ok', wi) if wi == len(words) else ('mismatch', wi)
    spec = specs[si]
    if spec == '...':
        return 'ok', len(words)
    if wi == len(words):
        return 'incomplete', wi
    if not _token_ok(spec, words[wi]):
        return 'mismatch', wi
    if spec.endswith('+'):
        best = _match(specs, si + 1, words, wi + 1)
        if best[0] == 'ok':
            return best
        again = _match(specs, si, words, wi + 1) if wi + 1 < len(words) and _token_ok(spec, words[wi + 1]) else None
        if again and (again[0] == 'ok' or again[1] > best[1]):
            return again
        return best
    return _match(specs, si + 1, words, wi + 1)


PATTERNS = {mode: [Pattern(line) for line in text.replace('\\\n', '').splitlines()
                   if line.strip() and not line.startswith('#')]
            for mode, text in MODES.items()}


def lookup(mode, words):
    """Match `words` in one mode: (pattern, None) when accepted, else (None, (kind, token index))."""
    best = ('mismatch', 0)  # an incomplete match always reaches further (the end of the line) than a mismatch
    negated = words[:1] in (['no'], ['default'])
    for pattern in PATTERNS[mode]:
        outcome, index = pattern.match(words)
        if outcome == 'ok':
            return pattern, None
        if index > best[1] or (index == best[1] and outcome == 'incomplete'):
            best = (outcome, index)
    if negated and len(words) > 1:
        # `no X` / `default X` removes X: the keywords of X must exist, arguments may be left out.
        rest = words[1:]
        for pattern in PATTERNS[mode]:
            outcome, index = pattern.match(rest)
            if outcome in ('ok', 'incomplete'):
                return Pattern(' '.join(pattern.tokens[:len(rest)]) + ' ...'), None
            if index + 1 > best[1]:
                best = (outcome, index + 1)
    return None, best


def identity(pattern, words):
    """The key under which a line is stored in its section (see module doc, `@N`)."""
    plain = words[1:] if words[:1] == ['no'] else words
    if pattern.identity is None:
        return tuple(words)
    return tuple(plain[:pattern.identity])


# Top-level sections in the order EOS prints its running-config, as AVD's eos-intended-config.j2 includes them (lines
# of one kind keep their input order). The place of `dcbx` (no AVD section) is [unverified].
ORDER = [
    'enable', 'aaa root', 'username', 'service', 'load-interval', 'queue-monitor', 'lldp', 'logging', 'hostname',
    'ip domain', 'ip name-server', 'dns', 'qos profile', 'spanning-tree', 'clock', 'vlan', 'vrf instance',
    'management api', 'tacacs-server', 'aaa group', 'aaa', 'interface Port-Channel', 'interface Ethernet',
    'interface Loopback', 'interface Management', 'interface Tunnel', 'interface Vlan', 'interface Vxlan',
    'ip virtual-router', 'ip access-list', 'ip routing', 'ip prefix-list', 'ipv6 unicast-routing', 'ip route', 'ntp',
    'qos map', 'qos rewrite', 'qos random-detect', 'priority-flow-control', 'dcbx', 'route-map', 'peer-filter',
    'router bfd', 'router bgp', 'ip tacacs', 'management ssh',
]


def conflicts(section, words, root):
    """What EOS refuses although the line itself is well formed, judged against the configuration built so far
    (`section`: the node the line goes into, `root`: the whole configuration). Returns EOS's message or None.

    - one BGP instance per switch (EOS User Manual, "Border Gateway Protocol (BGP)": "Arista switches support these
      BGP functions: A single BGP instance"); the message text is [unverified];
    - a neighbor joins a peer group defined before in the same instance or VRF (router-bgp.j2 writes every
      `neighbor <group> peer group` before the members); [unverified] message;
    - a VNI belongs to one VLAN or one VRF of interface Vxlan1 (EOS User Manual, "VXLAN": the VNI-to-VLAN mapping is
      one to one); [unverified] message.
    """
    plain = words[1:] if words[:1] in (['no'], ['default']) else None
    if plain is not None:
        return None
    if words[:2] == ['router', 'bgp'] and len(words) == 3:
        for node in root.children:
            if node.words[:2] == ['router', 'bgp'] and node.words[2] != words[2]:
                return '%% BGP is already running with AS number %s' % node.words[2]
    group = None
    if words[:1] == ['neighbor'] and len(words) >= 4 and words[2:4] == ['peer', 'group'] and len(words) == 5:
        group = words[4]
    elif words[:2] == ['neighbor', 'interface'] and len(words) >= 5 and words[3] == 'peer-group':
        group = words[4]
    if group is not None and section.mode in ('router-bgp', 'bgp-vrf') and \
            not any(node.words == ['neighbor', group, 'peer', 'group'] for node in section.children):
        return '%% Peer group %s does not exist' % group
    if words[:2] in (['vxlan', 'vlan'], ['vxlan', 'vrf']) and len(words) == 5 and words[3] == 'vni':
        for node in section.children:
            if node.words[:2] in (['vxlan', 'vlan'], ['vxlan', 'vrf']) and len(node.words) == 5 and \
                    node.words[3] == 'vni' and node.words[4] == words[4] and node.words[:3] != words[:3]:
                owner = 'VLAN' if node.words[1] == 'vlan' else 'VRF'
                return '%% VNI %s is already mapped to %s %s' % (words[4], owner, node.words[2])
    return None


def sort_key(words):
    """Where a top-level line goes in the running-config; interfaces sort by number like EOS."""
    line = ' '.join(words)
    rank = len(ORDER)
    for index, prefix in enumerate(ORDER):
        if line == prefix or line.startswith(prefix + ' ') or (prefix.startswith('interface ') and line.startswith(prefix)):
            rank = index
            break
    numbers = tuple(int(part) for part in re.findall(r'\d+', words[1])) if words[0] == 'interface' and len(words) > 1 else ()
    return rank, numbers
