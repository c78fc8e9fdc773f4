"""The EOS configuration commands the eAPI double accepts, per CLI mode.

This is an explicit allow-list of documented EOS keywords (Arista EOS User Manual, "Command-Line Interface"
and the chapters of each feature; https://www.arista.com/en/um-eos). A line that matches no pattern of the
current mode or of any parent mode is rejected the way EOS rejects it: `Invalid input (at token N: 'word')`
for the first token no pattern accepts, `Incomplete command` when the line stops early. Like EOS, a line
that is not valid in the current mode is tried in the parent modes (leaving the current mode), which is how
flattened configuration (napalm strips indentation) still lands in the right section.

Pattern syntax, one per line:
  keyword | a|b|c          literal keyword(s)
  <type> / <int:lo-hi>      typed argument (see TYPES); a trailing `+` repeats it
  ...                       any further tokens (keyword-checked only; used for free-form tails)
  @N                        the first N tokens (without a leading `no`) identify the line: a later line
                            with the same identity replaces it (e.g. `mtu 9100` replaces `mtu 1500`)
  -> mode                   the line opens a sub-mode

Extend a mode here when the renderer emits a new documented command; tests/doubles/test_eos_double.py
proves every line of the golden EOS configurations is accepted. `dcbx application udp|tcp-sctp|ether ...
priority <p>` (the DCBX application priority table, EOS manual "Data Center Bridging") follows the form the
renderer writes; docs/platform-eos.md marks it [V] (to confirm on a real release), so the double accepting it
proves only that the file is consistent, not that EOS takes the line.
"""

from __future__ import annotations

import ipaddress
import re

INTERFACE = re.compile(
    r'^(Ethernet\d+(/\d+){0,2}(\.\d+)?|Loopback\d+|Vlan\d+|Vxlan1|Management\d+(/\d+)?|Port-Channel\d+(\.\d+)?)$')
NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.:/@+-]*$')
FLOAT = re.compile(r'^\d+(\.\d+)?$')
MAC = re.compile(r'^([0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}|[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){2})$')
SPEED = re.compile(r'^(\d+(g|m)(-\d+)?|auto|forced)$')
VLAN_LIST = re.compile(r'^\d+(-\d+)?(,\d+(-\d+)?)*$')


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
    'speed': lambda t: bool(SPEED.match(t)),
    'vlans': _vlan_list,
    # A peer is an address or a peer-group name; a malformed address is not taken for a group name.
    'group': lambda t: bool(NAME.match(t)) and not re.match(r'^[\d.:]+$', t),
    'peer': lambda t: _ipv4(t) or _ipv6(t) or (bool(NAME.match(t)) and not re.match(r'^[\d.:]+$', t)),
}

_NEIGHBOR = '''
neighbor <group> peer group @3
neighbor <group> peer-group @3
neighbor <peer> peer group <name> @3
neighbor <peer> peer-group <name> @3
neighbor <peer> remote-as <asn> @3
neighbor <peer> description ... @3
neighbor <peer> send-community ... @3
neighbor <peer> maximum-routes <int:0-4294967294> ... @3
neighbor <peer> bfd @3
neighbor <peer> update-source <intf> @3
neighbor <peer> ebgp-multihop ... @3
neighbor <peer> password ... @3
neighbor <peer> allowas-in ... @3
neighbor <peer> next-hop-self @3
neighbor <peer> next-hop-unchanged @3
neighbor <peer> route-map <name> in|out @4
neighbor <peer> timers <int:0-3600> <int:0-7200> @3
neighbor <peer> local-as <asn> ... @3
neighbor <peer> shutdown @3
neighbor interface <intf> peer-group <name> remote-as <asn> @3
neighbor interface <intf> peer-group <name> peer-filter <name> @3
'''

MODES = {
    'config': '''
hostname <name> @1
service routing protocols model multi-agent|ribd @4
ip routing @2
ip routing vrf <name> @4
ip routing ipv6 interfaces @4
ipv6 unicast-routing @2
ip virtual-router mac-address <mac> @3
ip route <prefix4> <word> ...
ip route vrf <name> <prefix4> <word> ...
ipv6 route ...
ip name-server <ip>
ip name-server vrf <name> <ip>+
ip domain lookup ... @3
ip domain-name <name> @1
dns domain <name> @2
ip tacacs ... @2
ip radius ... @2
ip ssh ...
ntp server <host> ...
ntp server vrf <name> <host> ...
ntp local-interface ... @2
ntp authenticate ...
ntp authentication-key ...
ntp trusted-key ...
logging host <host> ...
logging vrf <name> host <host> ...
logging vrf <name> source-interface <intf> @3
logging source-interface <intf> @2
logging buffered ... @2
logging trap ... @2
logging console ... @2
logging format ...
username <name> ... @2
enable password ... @2
enable secret ... @2
aaa authentication ...
aaa authorization ...
aaa accounting ...
aaa root ...
aaa group server tacacs+|radius <name> -> aaa-group
tacacs-server host <host> ...
tacacs-server key ... @2
tacacs-server timeout <int:1-1000> @2
radius-server host <host> ...
radius-server key ... @2
snmp-server ...
clock timezone <word> @2
banner ...
spanning-tree mode mstp|rstp|rapid-pvst|none|backup @2
spanning-tree ...
vlan <vlans> -> vlan
vrf instance <name> -> vrf-instance
interface <intf> -> interface
qos map dscp <int:0-63>+ to traffic-class <int:0-7>
qos map traffic-class <int:0-7>+ to tx-queue <int:0-7>
qos map traffic-class <int:0-7>+ to dscp <int:0-63>
qos map traffic-class <int:0-7>+ to cos <int:0-7>
qos map cos <int:0-7>+ to traffic-class <int:0-7>
qos rewrite dscp @3
qos profile <name> -> qos-profile
dcbx application udp|tcp-sctp|tcp-sctp-udp <int:1-65535> priority <int:0-7> @4
dcbx application ether <int:1536-65535> priority <int:0-7> @4
dcbx application iscsi priority <int:0-7> @3
priority-flow-control pause watchdog default timeout <float> @5
priority-flow-control pause watchdog default recovery-time <float> ... @5
priority-flow-control pause watchdog default polling-interval <float> @5
priority-flow-control pause watchdog action drop|notify-only|errdisable @4
priority-flow-control pause watchdog hardware ...
priority-flow-control pause watchdog override action ...
router bgp <asn> -> router-bgp
router bfd -> router-bfd
management api http-commands -> management-api
management api gnmi -> management-api
management api models -> management-api
management ssh -> management-api
management console -> management-api
management security -> management-api
lldp run @2
lldp ...
transceiver qsfp default-mode <word> @3
queue-monitor length ...
queue-monitor streaming -> management-api
hardware counter feature ...
hardware tcam -> management-api
hardware ...
platform ...
sflow ...
route-map <name> permit|deny <int:1-16777215> -> route-map
ip prefix-list <name> ...
ipv6 prefix-list <name> ...
ip access-list <name> -> access-list
ip access-list standard <name> -> access-list
ip community-list ...
peer-filter <name> -> access-list
errdisable ...
load-interval default <int:0-600> @3
event-handler <name> -> access-list
daemon <name> -> access-list
''',
    'vlan': '''
name <name> @1
state active|suspend @1
trunk group <name>
''',
    'vrf-instance': '''
description ... @1
''',
    'interface': '''
description ... @1
mtu <int:68-9214> @1
speed <speed> ... @1
shutdown @1
no shutdown @1
switchport @1
no switchport @1
switchport mode access|trunk|routed @2
switchport access vlan <int:1-4094> @3
switchport trunk allowed vlan ... @4
switchport trunk native vlan <int:1-4094> @4
switchport trunk group <name>
spanning-tree portfast @2
spanning-tree portfast ... @2
spanning-tree bpduguard ... @2
spanning-tree bpdufilter ... @2
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
priority-flow-control mode on @1
priority-flow-control priority <int:0-7> no-drop|drop @3
priority-flow-control pause watchdog ... @3
vxlan source-interface <intf> @2
vxlan udp-port <int:1024-65535> @2
vxlan vlan <int:1-4094> vni <int:1-16777215> @3
vxlan vrf <name> vni <int:1-16777215> @3
vxlan qos ecn propagation @3
vxlan qos dscp propagation encapsulation @3
vxlan qos map dscp to traffic-class decapsulation @3
vxlan learn-restrict ... @2
vxlan flood vtep ... @3
vxlan controller-client @2
bfd interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> @1
bfd ... @2
lldp transmit|receive @2
channel-group <int:1-2000> mode active|passive|on @1
dcbx mode ieee|cee @2
ip helper-address ...
ip proxy-arp @2
arp ...
tx-queue <int:0-7> -> tx-queue
uc-tx-queue <int:0-7> -> tx-queue
hardware ...
error-correction ...
link-debounce ...
''',
    'qos-profile': '''
qos trust dscp|cos @2
no qos trust @2
tx-queue <int:0-7> -> tx-queue
uc-tx-queue <int:0-7> -> tx-queue
priority-flow-control on @1
priority-flow-control priority <int:0-7> no-drop|drop @3
priority-flow-control pause watchdog @3
priority-flow-control pause watchdog port action drop|notify-only|errdisable @5
priority-flow-control pause watchdog port timer timeout <float> polling-interval <float>|auto recovery-time <float> ... @5
service-policy type qos input <name> @3
shape rate ... @2
''',
    'tx-queue': '''
bandwidth percent <int:1-100> @1
bandwidth guaranteed ... @2
priority strict @1
no priority @1
random-detect ecn minimum-threshold <int:1-4294967295> bytes|kbytes|mbytes|segments maximum-threshold \
<int:1-4294967295> bytes|kbytes|mbytes|segments ... @2
random-detect ecn count @3
random-detect drop ... @2
shape rate ... @2
''',
    'router-bgp': _NEIGHBOR + '''
router-id <ipv4> @1
bgp default ipv4-unicast @3
no bgp default ipv4-unicast @3
bgp log-neighbor-changes @2
bgp bestpath ... @3
bgp asn notation ... @3
maximum-paths <int:1-600> ... @1
distance bgp ... @2
timers bgp <int:0-3600> <int:0-7200> @2
update wait-install @2
update wait-for-convergence @2
graceful-restart ... @1
network <prefix4> ...
network <prefix6> ...
redistribute connected|static|attached-host|learned ... @2
vlan <int:1-4094> -> bgp-vlan
vlan-aware-bundle <name> -> bgp-vlan
address-family evpn -> bgp-af
address-family ipv4|ipv6 -> bgp-af
address-family ipv4 unicast -> bgp-af
vrf <name> -> bgp-vrf
''',
    'bgp-vlan': '''
rd <rd> @1
rd auto @1
route-target both|import|export <rt> @3
route-target both|import|export auto @3
redistribute learned|static|host-route ... @2
vlan <vlans> @1
''',
    'bgp-af': '''
neighbor <peer> activate @2
no neighbor <peer> activate @2
neighbor <peer> next-hop address-family ipv6 originate @3
neighbor <peer> encapsulation vxlan|mpls @3
neighbor <peer> route-map <name> in|out @4
neighbor <peer> additional-paths ... @3
bgp next-hop-unchanged @2
bgp additional-paths ... @3
network <prefix4> ...
network <prefix6> ...
redistribute connected|static|learned ... @2
maximum-paths <int:1-600> ... @1
host-flap ... @2
''',
    'bgp-vrf': _NEIGHBOR + '''
rd <rd> @1
route-target both|import|export evpn|vpn-ipv4|vpn-ipv6 <rt>
route-target both|import|export <rt>
redistribute connected|static|learned|attached-host ... @2
router-id <ipv4> @1
maximum-paths <int:1-600> ... @1
network <prefix4> ...
address-family ipv4|ipv6 -> bgp-af
''',
    'router-bfd': '''
interval <int:50-60000> min-rx <int:50-60000> multiplier <int:3-50> ... @1
multihop ... @1
''',
    'management-api': '''
protocol https|http|unix-socket @2
protocol http localhost ... @3
no protocol ... @2
shutdown @1
no shutdown @1
idle-timeout <int:0-86400> @1
authentication ... @1
cors ... @1
transport ... @2
provider ... @2
vrf <name> -> management-api-vrf
''',
    'management-api-vrf': '''
shutdown @1
no shutdown @1
access-group ... @2
ip access-group ... @3
''',
    'aaa-group': '''
server <host> ...
''',
    'route-map': '''
description ... @1
match ...
set ...
continue ...
''',
    'access-list': '''
<int:1-4294967295> ...
permit ...
deny ...
remark ...
match ...
action ...
exec ...
trigger ...
''',
}

# Parent of each sub-mode, for implicit exit (a line not valid here is tried in the parent).
PARENTS = {
    'vlan': 'config', 'vrf-instance': 'config', 'interface': 'config', 'qos-profile': 'config',
    'router-bgp': 'config', 'router-bfd': 'config', 'management-api': 'config', 'aaa-group': 'config',
    'route-map': 'config', 'access-list': 'config', 'bgp-vlan': 'router-bgp', 'bgp-af': 'router-bgp',
    'bgp-vrf': 'router-bgp', 'management-api-vrf': 'management-api',
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


PATTERNS = {mode: [Pattern(line) for line in text.replace('\\\n', '').splitlines() if line.strip()]
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


# Top-level sections in the order EOS prints its running-config (lines of one kind keep their input order).
ORDER = [
    'service', 'transceiver', 'errdisable', 'logging', 'hostname', 'ip name-server', 'dns', 'ip domain', 'ntp',
    'snmp-server', 'spanning-tree', 'tacacs-server', 'radius-server', 'aaa', 'enable', 'username', 'clock', 'vlan',
    'vrf instance', 'qos map', 'dcbx', 'qos rewrite', 'qos profile', 'priority-flow-control', 'queue-monitor', 'hardware',
    'platform', 'interface Ethernet', 'interface Loopback', 'interface Management', 'interface Port-Channel',
    'interface Vlan', 'interface Vxlan', 'ip access-list', 'ip prefix-list', 'ipv6 prefix-list', 'ip community-list',
    'ip virtual-router', 'ip routing', 'ipv6 unicast-routing', 'ip route', 'ipv6 route', 'route-map', 'peer-filter',
    'router bfd', 'router bgp', 'ip tacacs', 'ip radius', 'ip ssh', 'lldp', 'sflow', 'management', 'event-handler',
    'daemon', 'banner',
]


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
