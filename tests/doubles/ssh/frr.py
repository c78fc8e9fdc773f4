"""FRR as the SSH doubles run it: the running frr.conf, `vtysh` show commands in FRR 8.4's JSON, frr-reload.py.

Configuration checks are real: `vtysh -C -f FILE` runs the host's FRR vtysh (Debian frr 8.4) in dry-run mode.
Session state is derived from the configured neighbours (Established after `convergence_s`, unless stuck or
their link is down), in the JSON shape of FRR 8.4's `show bgp [vrf all] summary json` (see the captured
output in tests/unit/fixtures/state/captured).
"""

from __future__ import annotations

import ipaddress
import os
import re
import time

REAL_VTYSH = '/usr/bin/vtysh'
FRR_RELOAD_PATHS = ('/usr/lib/frr/frr-reload.py', 'frr-reload.py', '/usr/bin/frr-reload.py')


def parse(text):
    """router bgp sections as data: {vrf: {asn, router_id, peers: {peer: {...}}, evpn: bool, ipv4_default}}."""
    vrfs, groups = {}, {}
    current, family, vni_block = None, None, None
    for raw in text.splitlines():
        line = raw.strip()
        words = line.split()
        if not words or line.startswith('!'):
            continue
        if words[:2] == ['router', 'bgp']:
            vrf = words[4] if len(words) >= 5 and words[3] == 'vrf' else 'default'
            current = vrfs.setdefault(vrf, {'asn': int(words[2]), 'router_id': None, 'peers': {},
                                            'advertise_all_vni': False, 'ipv4_default': True, 'activated': {}})
            family = None
            continue
        if current is None:
            continue
        if words[0] == 'exit' or words[0] == 'exit-vrf':
            current, family = None, None
        elif words[0] == 'address-family':
            family = 'l2VpnEvpn' if words[1:3] == ['l2vpn', 'evpn'] else ('ipv4Unicast' if words[1] == 'ipv4' else words[1])
        elif words[0] == 'exit-address-family':
            family = None
        elif words[:2] == ['bgp', 'router-id']:
            current['router_id'] = words[2]
        elif words == ['no', 'bgp', 'default', 'ipv4-unicast']:
            current['ipv4_default'] = False
        elif words == ['advertise-all-vni']:
            current['advertise_all_vni'] = True
        elif family == 'l2VpnEvpn' and words[0] == 'vni' and len(words) == 2:
            vni_block = current.setdefault('vnis', {}).setdefault(int(words[1]), {'rd': None, 'import': [], 'export': []})
        elif words[0] == 'exit-vni':
            vni_block = None
        elif vni_block is not None and words[0] == 'rd' and len(words) == 2:
            vni_block['rd'] = words[1]
        elif vni_block is not None and words[0] == 'route-target' and len(words) == 3:
            for direction in (('import', 'export') if words[1] == 'both' else (words[1],)):
                vni_block[direction].append(words[2])
        elif words[0] == 'neighbor' and len(words) >= 3:
            target = words[1]
            if family:
                if words[2] == 'activate':
                    current['activated'].setdefault(family, set()).add(target)
                continue
            if words[2:] == ['peer-group']:
                groups[target] = {'remote_as': None}
                continue
            if target in groups:  # a peer group's own settings (remote-as, timers, bfd, ...): not a peer
                if words[2] == 'remote-as':
                    groups[target]['remote_as'] = words[3]
                continue
            peer = current['peers'].setdefault(target, {'group': None, 'remote_as': None, 'desc': None, 'interface': None})
            if words[2] == 'interface':
                peer['interface'] = target
                rest = words[3:]
                if rest[:1] == ['peer-group']:
                    peer['group'] = rest[1]
                elif rest[:1] == ['remote-as']:
                    peer['remote_as'] = rest[1]
            elif words[2] == 'peer-group':
                peer['group'] = words[3]
            elif words[2] == 'remote-as':
                peer['remote_as'] = words[3]
            elif words[2] == 'description':
                peer['desc'] = ' '.join(words[3:])
    for vrf in vrfs.values():
        for name, peer in vrf['peers'].items():
            group = groups.get(peer['group'] or '', {})
            peer['remote_as'] = peer['remote_as'] or group.get('remote_as')
            names = {name, peer['group']}
            peer['families'] = [family for family in ('ipv4Unicast', 'l2VpnEvpn')
                                if names & vrf['activated'].get(family, set())
                                or (family == 'ipv4Unicast' and vrf['ipv4_default'])]
            if peer['interface'] is None and not is_address(name):
                peer['interface'] = name  # `neighbor swp1 interface ...` written as `neighbor swp1 remote-as ...`
    return vrfs


def is_address(text):
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def subnet_owner(prefixes):
    """owner(name): the value paired with the first of `prefixes` ((interface prefix, value); anything else is
    skipped) whose subnet holds the neighbour address `name`, None when none does or `name` is no address (an
    unnumbered neighbour). The prefixes are parsed once: `show bgp summary` asks for every neighbour."""
    subnets = []
    for prefix, value in prefixes:
        try:
            subnets.append((ipaddress.ip_interface(prefix).network, value))
        except ValueError:
            continue

    def owner(name):
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return None
        return next((value for subnet, value in subnets if address in subnet), None)
    return owner


def peer_keys(vrfs):
    return ['%s|%s' % (vrf, peer) for vrf, body in vrfs.items() for peer in body['peers']]


def peer_state(peer_name, peer, vrf, first_seen, faults, link_up):
    """(state, established_since) of one neighbour."""
    stuck = faults.get('bgp_stuck') or []
    since = first_seen.get('%s|%s' % (vrf, peer_name), time.time())
    if '*' in stuck or peer_name in stuck:
        return 'Active', since
    if not link_up(peer_name, peer):
        return 'Active', since
    up_at = since + float(faults.get('convergence_s', 1.0))
    if time.time() < up_at:
        return 'Connect', up_at
    return 'Established', up_at


def _uptime(seconds):
    seconds = int(seconds)
    return '%02d:%02d:%02d' % (seconds // 3600, seconds % 3600 // 60, seconds % 60)


def summary(vrfs, first_seen, faults, link_up, vrf_filter='default'):
    """`show bgp [vrf all] summary json` (FRR 8.4)."""
    out = {}
    for vrf, body in vrfs.items():
        if vrf_filter != 'all' and vrf != vrf_filter:
            continue
        families = {}
        for family in ('ipv4Unicast', 'l2VpnEvpn'):
            peers = {}
            for name, peer in body['peers'].items():
                if family not in peer['families']:
                    continue
                state, since = peer_state(name, peer, vrf, first_seen, faults, link_up)
                up = state == 'Established'
                uptime = max(0.0, time.time() - since) if up else 0.0
                remote = peer['remote_as']
                peers[name] = {
                    'remoteAs': int(remote) if remote and remote.isdigit() else (remote or 0),
                    'localAs': body['asn'], 'version': 4, 'msgRcvd': 100 if up else 0, 'msgSent': 100 if up else 0,
                    'tableVersion': 0, 'outq': 0, 'inq': 0, 'peerUptime': _uptime(uptime) if up else 'never',
                    'peerUptimeMsec': int(uptime * 1000), 'pfxRcd': 2 if up else 0, 'pfxSnt': 2 if up else 0,
                    'state': state, 'peerState': 'OK' if up else 'Idle', 'connectionsEstablished': 1 if up else 0,
                    'connectionsDropped': 0, 'idType': 'interface' if peer['interface'] else 'ipv4',
                }
                if peer['desc']:
                    peers[name]['desc'] = peer['desc']
            if peers:
                families[family] = {
                    'routerId': body['router_id'] or '0.0.0.0', 'as': body['asn'], 'vrfId': 0, 'vrfName': vrf,
                    'tableVersion': 1, 'ribCount': 2, 'ribMemory': 384, 'peerCount': len(peers), 'peerMemory': 741464,
                    'peers': peers, 'failedPeers': sum(1 for peer in peers.values() if peer['state'] != 'Established'),
                    'displayedPeers': len(peers), 'totalPeers': len(peers), 'dynamicPeers': 0,
                    'bestPath': {'multiPathRelax': 'false'},
                }
        if vrf_filter == 'all':
            out[vrf] = families
        else:
            out = families
    return out


def check(file_path):
    """`vtysh -C -f FILE` with the real FRR vtysh: (returncode, output)."""
    if not os.path.exists(REAL_VTYSH):
        return 0, ''
    import subprocess  # pylint: disable=import-outside-toplevel  # a process per command: only this one pays
    result = subprocess.run([REAL_VTYSH, '-C', '-f', file_path], capture_output=True, text=True, check=False)
    return result.returncode, (result.stdout + result.stderr)


def reload_diff(old, new):
    """frr-reload.py --test: the lines to delete and to add."""
    old_lines = [line for line in old.splitlines() if line.strip() and not line.strip().startswith('!')]
    new_lines = [line for line in new.splitlines() if line.strip() and not line.strip().startswith('!')]
    delete, add = [], []
    import difflib  # pylint: disable=import-outside-toplevel  # a process per command: only frr-reload pays
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes():
        if tag in ('replace', 'delete'):
            delete.extend(old_lines[i1:i2])
        if tag in ('replace', 'insert'):
            add.extend(new_lines[j1:j2])
    return ('\nLines To Delete\n===============\n' + ''.join(line.strip() + '\n' for line in delete) +
            '\nLines To Add\n============\n' + ''.join(line.strip() + '\n' for line in add))


def hostname(text):
    match = re.search(r'^hostname (\S+)$', text, re.M)
    return match.group(1) if match else None
