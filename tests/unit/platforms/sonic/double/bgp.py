"""SONiC's bgp container (docker-fpm-frr) as the image builds it, with real FRR inside (frr_daemons.py).

What the container has, from sonic-buildimage @ 086b03bd70:
- rules/docker-fpm-frr.mk: the image installs FRR, SWSS and libyang3 (`_DEPENDS`) and the bgpcfgd and
  sonic-frr-mgmt-framework wheels, nothing else of FRR: frr-pythontools, the package that holds
  /usr/lib/frr/frr-reload.py (FRR debian/frr-pythontools.install @ frr-10.5.4), is built beside FRR (rules/frr.mk
  add_extra_package) but not installed here (sonic-buildimage issue #12163 asks to add it back; open). `docker exec
  bgp /usr/lib/frr/frr-reload.py` fails as docker fails for a missing executable.
- files/build_templates/docker_image_ctl.j2: /etc/sonic/frr is the container's /etc/frr (read-write); /etc/sonic is
  mounted read-only (rules/docker-fpm-frr.mk _RUN_OPT).
- dockers/docker-fpm-frr/docker_init.sh: at every start the container writes its files by
  DEVICE_METADATA.docker_routing_config_mode: separated (the default) renders bgpd.conf/zebra.conf/staticd.conf
  from CONFIG_DB and writes `no service integrated-vtysh-config`; split keeps the per-daemon files; split-unified
  keeps frr.conf, writes `service integrated-vtysh-config`, removes the per-daemon files and appends the FPM lines
  (write_default_zebra_config); unified renders frr.conf from CONFIG_DB.
- frr/supervisord/supervisord.conf.common.j2: zebra (FPM module), staticd, bgpd, then bgpcfgd (frrcfgd instead
  when DEVICE_METADATA.frr_mgmt_framework_config is "true": not modelled, the double refuses to start it), and
  `vtysh -b` in the unified modes.
- src/sonic-bgpcfgd: bgpcfgd runs in every routing mode; its ZebraSetSrc manager (managers_setsrc.py), once
  Loopback0's first IPv4 (IPv6) address is up, pushes zebra.set_src.conf.j2 through `vtysh -f` (frr.py write):
  `route-map RM_SET_SRC permit 10` / `set src <address>` / `ip protocol bgp route-map RM_SET_SRC` (RM_SET_SRC6 and
  `ipv6 protocol` for IPv6). A later address is not applied ("Update command is not supported"); a removed one is
  not withdrawn. Its peer managers (BGP_NEIGHBOR and friends) are modelled only as the separated mode's rendered
  neighbours.

Files: D/frr/running.conf (what FRR prints as its running configuration), D/frr/container.json (the mode the
container started in), D/frr/bgpcfgd.json (the loopback addresses bgpcfgd has pushed since the start).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

from tests.doubles.ssh import frr, state
from tests.doubles.world import flooding_vteps, remote_vteps

CONTAINER_FRR = '/etc/sonic/frr'  # what the bgp container sees as /etc/frr
INTEGRATED_MODES = ('split-unified', 'unified')
# docker_init.sh write_default_zebra_config and zebra.conf.j2's fpm block.
ZEBRA_DEFAULTS = ('no fpm use-next-hop-groups', 'fpm address 127.0.0.1')
DAEMON_FILES = ('bgpd.conf', 'zebra.conf', 'staticd.conf', 'sharpd.conf')
# FRR debian/frr-pythontools.install @ frr-10.5.4: built for SONiC (rules/frr.mk), not installed in the bgp container.
NOT_IN_IMAGE = ('/usr/lib/frr/frr-reload.py', '/usr/lib/frr/generate_support_bundle.py', '/usr/lib/frr/frr_babeltrace.py',
                '/usr/lib/frr/ospfclient.py')
SHOW_HEADER = 'Building configuration...\n\nCurrent configuration:\n'


def _config(directory):
    return state.read_json(state.path(directory, 'db', 'CONFIG_DB.json'), {})


def _metadata(config):
    return config.get('DEVICE_METADATA', {}).get('localhost', {})


def _frr_path(directory, name):
    return state.path(directory, 'etc', 'sonic', 'frr', name)


def _read(file_path):
    if not os.path.exists(file_path):
        return ''
    with open(file_path, encoding='utf-8') as handle:
        return handle.read()


def _write(file_path, text):
    os.makedirs(os.path.dirname(file_path), exist_ok=True)
    with open(file_path, 'w', encoding='utf-8') as handle:
        handle.write(text)


def running_text(directory):
    return _read(state.path(directory, 'frr', 'running.conf'))


def container_mode(directory):
    return state.read_json(state.path(directory, 'frr', 'container.json'), {}).get('mode', 'separated')


def integrated(directory):
    """The container's /etc/frr/vtysh.conf does not say `no service integrated-vtysh-config`."""
    return not any(line.strip() == 'no service integrated-vtysh-config'
                   for line in _read(_frr_path(directory, 'vtysh.conf')).splitlines())


def _hostname(config):
    # hostname-config sets the system host name from DEVICE_METADATA; the container shares it.
    return _metadata(config).get('hostname') or 'sonic'


def _generated_bgpd(config):
    """What separated mode makes of CONFIG_DB (gen_bgpd.conf.j2 and bgpcfgd's peers), reduced to what a deploy reads
    and replaces: the instance of DEVICE_METADATA.bgp_asn, its router-id (Loopback0), a neighbour per BGP_NEIGHBOR."""
    metadata = _metadata(config)
    loopback = next((key.split('|', 1)[1].split('/')[0] for key in config.get('LOOPBACK_INTERFACE', {})
                     if key.startswith('Loopback0|') and '.' in key), None)
    lines = ['router bgp %s' % metadata.get('bgp_asn', '65100')]
    if loopback:
        lines.append(' bgp router-id %s' % loopback)
    for peer, fields in sorted(config.get('BGP_NEIGHBOR', {}).items()):
        if fields.get('asn'):
            lines.append(' neighbor %s remote-as %s' % (peer, fields['asn']))
    return '\n'.join(lines + ['!']) + '\n'


def _with_zebra_defaults(text):
    missing = [line for line in ZEBRA_DEFAULTS if not re.search(r'^%s$' % re.escape(line), text, re.M)]
    return text if not missing else text.rstrip('\n') + '\n' + '\n'.join(missing) + '\n'


def _set_src_actions(directory, config, pushed):
    """bgpcfgd ZebraSetSrc: the template for Loopback0's first IPv4 and IPv6 address not pushed yet."""
    actions = []
    for key in sorted(config.get('LOOPBACK_INTERFACE', {})):
        if not key.startswith('Loopback0|'):
            continue
        address = key.split('|', 1)[1].rsplit('/', 1)[0]
        family = 'lo_ipv6' if ':' in address else 'lo_ipv4'
        if pushed.get(family):
            continue
        pushed[family] = address
        name, proto = ('RM_SET_SRC6', 'v6') if family == 'lo_ipv6' else ('RM_SET_SRC', '')
        text = ('!\n! Set ip source to loopback for bgp learned routes\n!\nroute-map %s permit 10\n    set src %s\n!\n'
                'ip%s protocol bgp route-map %s\n!\n' % (name, address, proto, name))
        path = state.path(directory, 'frr', 'bgpcfgd-%s.conf' % family)
        _write(path, text)
        actions.append(['-f', path])
    return actions


def start(directory, config=None):
    """`systemctl restart bgp`: docker_init.sh with the running CONFIG_DB, FRR booted as supervisord boots it, then
    bgpcfgd's set-src template."""
    from tests.doubles.ssh import frr_daemons  # FRR's processes: the commands that change it, not vtysh's show
    config = _config(directory) if config is None else config
    metadata = _metadata(config)
    if metadata.get('frr_mgmt_framework_config') == 'true':
        raise frr_daemons.FrrFailed('frr_mgmt_framework_config "true" starts frrcfgd instead of bgpcfgd: the double '
                                    'does not model frrcfgd')
    mode = metadata.get('docker_routing_config_mode') or 'separated'
    if mode in INTEGRATED_MODES:
        _write(_frr_path(directory, 'vtysh.conf'), 'service integrated-vtysh-config\n')
        for name in DAEMON_FILES:
            if os.path.exists(_frr_path(directory, name)):
                os.remove(_frr_path(directory, name))
        if mode == 'unified':  # rendered from CONFIG_DB (gen_frr.conf.j2): the double renders what separated renders
            _write(_frr_path(directory, 'frr.conf'), _generated_bgpd(config))
        else:
            _write(_frr_path(directory, 'frr.conf'), _with_zebra_defaults(_read(_frr_path(directory, 'frr.conf'))))
        boot = ('integrated', _read(_frr_path(directory, 'frr.conf')))
    else:
        _write(_frr_path(directory, 'vtysh.conf'), 'no service integrated-vtysh-config\n')
        if os.path.exists(_frr_path(directory, 'frr.conf')):
            os.remove(_frr_path(directory, 'frr.conf'))
        if mode == 'separated':
            _write(_frr_path(directory, 'bgpd.conf'), _generated_bgpd(config))
            _write(_frr_path(directory, 'zebra.conf'), _with_zebra_defaults(''))
            _write(_frr_path(directory, 'staticd.conf'), '!\n')
        else:
            _write(_frr_path(directory, 'zebra.conf'), _with_zebra_defaults(_read(_frr_path(directory, 'zebra.conf'))))
        boot = ('separated', {name: _read(_frr_path(directory, name)) for name in DAEMON_FILES
                              if os.path.exists(_frr_path(directory, name))})
    pushed = {}
    result = frr_daemons.run(directory, _hostname(config), boot, _read(_frr_path(directory, 'vtysh.conf')),
                             _set_src_actions(directory, config, pushed))
    with state.locked(directory):
        _write(state.path(directory, 'frr', 'running.conf'), result.running)
        state.write_json(state.path(directory, 'frr', 'container.json'), {'mode': mode, 'started': time.time()})
        state.write_json(state.path(directory, 'frr', 'bgpcfgd.json'), pushed)
        state.write_json(state.path(directory, 'bgp_first_seen.json'), {})  # every BGP session starts over


def _apply(directory, actions, config=None):
    """Run vtysh `actions` on the running container's FRR; FRR's new running configuration replaces the old one."""
    from tests.doubles.ssh import frr_daemons
    config = _config(directory) if config is None else config
    with state.locked(directory):
        result = frr_daemons.run(directory, _hostname(config), ('replay', running_text(directory)),
                                 _read(_frr_path(directory, 'vtysh.conf')), actions)
        _write(state.path(directory, 'frr', 'running.conf'), result.running)
    return result.outputs


def after_commit(directory):
    """bgpcfgd watches CONFIG_DB: a Loopback0 address it has not pushed yet gets its set-src template."""
    config = _config(directory)
    pushed = state.read_json(state.path(directory, 'frr', 'bgpcfgd.json'), {})
    actions = _set_src_actions(directory, config, pushed)
    if actions:
        _apply(directory, actions, config)
        state.write_json(state.path(directory, 'frr', 'bgpcfgd.json'), pushed)


# -- vtysh -------------------------------------------------------------------------------------------------------
SHOW = re.compile(r'^(show|sh)\s')


def _link_up(directory, faults, config):
    """Whether a neighbour's session can come up: its port is up and, where the double knows the fabric (world
    `bgp_peers`, from the fleet's design), the speaker behind that port is the one configured (its address and AS): a
    factory switch's preset neighbours (ARISTAnnT2 in AS 65200...) find nobody."""
    from tests.unit.platforms.sonic.double import shell as sonic
    # INTERFACE keys: 'Ethernet0' (the port's own entry) and 'Ethernet0|10.0.0.1/31'
    owner = frr.subnet_owner((prefix, port) for port, _sep, prefix in (key.partition('|') for key in config.get('INTERFACE', {})))
    peers = state.device(directory).get('world', {}).get('bgp_peers')

    def link_up(name, peer):
        port = peer['interface'] or owner(name)
        if not port:
            return True
        if peers is not None:
            there = peers.get(port)
            remote = str(peer.get('remote_as') or '')
            if there is None or (not peer['interface'] and there.get('ip') != name) or (
                    remote.isdigit() and int(remote) != int(there['asn'])):
                return False
        return sonic.port_up(directory, faults, port, config)
    return link_up


def vtysh(directory, faults, args):
    """vtysh in the bgp container: -C -f checks a file (the machine's FRR), -f and configuration commands run in
    FRR (frr_daemons.py), the show commands of the neutral state are derived from the running configuration."""
    if '-C' in args and '-f' in args:
        code, output = frr.check(args[args.index('-f') + 1])
        sys.stdout.write(output)
        return code
    if '-f' in args:
        (code, output), = _apply(directory, [['-f', args[args.index('-f') + 1]]])
        sys.stdout.write(output)
        return code
    commands = [args[index + 1] for index, item in enumerate(args) if item == '-c' and index + 1 < len(args)]
    if not commands:
        sys.stderr.write('The double supports vtysh -c COMMAND..., vtysh -f FILE and vtysh -C -f FILE\n')
        return 1
    if not all(SHOW.match(' '.join(command.split())) or command.split()[:1] in (['write'], ['copy'])
               for command in commands):
        (code, output), = _apply(directory, [[item for command in commands for item in ('-c', command)]])
        sys.stdout.write(output)
        return code
    config = _config(directory)
    text = running_text(directory)
    vrfs = frr.parse(text)
    seen = state.first_seen(directory, frr.peer_keys(vrfs))
    for command in commands:
        words = ' '.join(command.split())
        if words == 'show version':
            sys.stdout.write('FRRouting 8.4.4 (%s) on Linux(6.1.0-22-2-amd64).\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\n'
                             % _hostname(config))
        elif words in ('show running-config', 'show run', 'show running-config no-header'):
            sys.stdout.write(SHOW_HEADER + text)
        elif words in ('show bgp summary json', 'show ip bgp summary json', 'show bgp vrf default summary json'):
            sys.stdout.write(json.dumps(frr.summary(vrfs, seen, faults, _link_up(directory, faults, config)), indent=2) + '\n')
        elif words in ('show bgp vrf all summary json', 'show ip bgp vrf all summary json'):
            sys.stdout.write(json.dumps(frr.summary(vrfs, seen, faults, _link_up(directory, faults, config), 'all'), indent=2) + '\n')
        elif words == 'show evpn vni json':
            sys.stdout.write(json.dumps(evpn_vni(directory, config, vrfs), indent=2) + '\n')
        elif words == 'show bgp l2vpn evpn vni json':
            sys.stdout.write(json.dumps(bgp_evpn_vni(directory, config, vrfs), indent=2) + '\n')
        elif words == 'show ip route json':
            sys.stdout.write(show_ip_route(directory, faults, config, vrfs, seen) + '\n')
        elif words == 'show bgp l2vpn evpn route type multicast json':
            sys.stdout.write(json.dumps(bgp_evpn_imet(directory, config, vrfs), indent=2) + '\n')
        elif words in ('write memory', 'write', 'write file', 'copy running-config startup-config'):
            # split-unified: vtysh writes the integrated file, /etc/frr/frr.conf
            _write(_frr_path(directory, 'frr.conf'), text)
            sys.stdout.write('Note: this version of vtysh never writes vtysh.conf\nBuilding Configuration...\n'
                             'Integrated configuration saved to /etc/frr/frr.conf\n[OK]\n')
        else:
            sys.stdout.write('% Unknown command: ' + command + '\n')
            return 1
    return 0


def show_ip_route(directory, faults, config, vrfs, seen):
    """`show ip route json`: the connected subnets of CONFIG_DB INTERFACE whose port is up, a BGP route to every
    remote VTEP over the established sessions, and the routes of the `routes` fault knob (tests/doubles/routes.py)."""
    from tests.doubles import routes as route_tables
    from tests.unit.platforms.sonic.double import shell as sonic
    prefixes = [(prefix, port) for port, _sep, prefix in (key.partition('|') for key in config.get('INTERFACE', {}))
                if prefix and sonic.port_up(directory, faults, port, config)]
    owner = frr.subnet_owner(prefixes)
    hops = route_tables.frr_hops(vrfs, seen, faults, _link_up(directory, faults, config), owner)
    world = state.device(directory).get('world', {})
    held = route_tables.held(faults.get('routes'))
    return route_tables.frr_show_ip_route(route_tables.switch_routes(prefixes, hops, flooding_vteps(world), held))


def evpn_vni(directory, config, vrfs):
    if not vrfs.get('default', {}).get('advertise_all_vni'):
        return {}
    world = state.device(directory).get('world', {})
    out = {}
    for _key, fields in sorted(config.get('VXLAN_TUNNEL_MAP', {}).items()):
        vni = int(fields['vni'])
        remote = remote_vteps(world, vni)
        out[str(vni)] = {'vni': vni, 'type': 'L2', 'vxlanIf': 'vtep-%s' % fields.get('vlan', '')[4:], 'numMacs': 0,
                         'numArpNd': 0, 'numRemoteVteps': len(remote), 'tenantVrf': 'default', 'remoteVteps': list(remote)}
    return out


def _evpn_vnis(directory, config, vrfs):
    """{vni: (rd, import RTs, export RTs)} of the VNIs bgpd advertises (FRR's defaults: RD router-id:VLAN-ish
    index, RT ASN:VNI), as `vni N` blocks of `address-family l2vpn evpn` override them."""
    bgpd = vrfs.get('default', {})
    vnis = {}
    for index, vni in enumerate(sorted(int(key) for key in evpn_vni(directory, config, vrfs)), start=1):
        block = (bgpd.get('vnis') or {}).get(vni) or {'rd': None, 'import': [], 'export': []}
        default_rt = '%s:%d' % (bgpd.get('asn'), vni)
        vnis[vni] = (block['rd'] or '%s:%d' % (bgpd.get('router_id') or '0.0.0.0', index),
                     block['import'] or [default_rt], block['export'] or [default_rt])
    return vnis


def _own_vtep(config):
    return next((fields.get('src_ip') for fields in config.get('VXLAN_TUNNEL', {}).values()), None)


def bgp_evpn_vni(directory, config, vrfs):
    """`show bgp l2vpn evpn vni json` (FRR 8.x): bgpd's VNIs with their RD and route-targets."""
    vnis = _evpn_vnis(directory, config, vrfs)
    out = {'advertiseAllVnis': 'Enabled' if vrfs.get('default', {}).get('advertise_all_vni') else 'Disabled',
           'numVnis': len(vnis), 'numL2Vnis': len(vnis), 'numL3Vnis': 0}
    for vni, (rd, imports, exports) in vnis.items():
        out[str(vni)] = {'vni': vni, 'type': 'L2', 'inKernel': 'True', 'rd': rd, 'originatorIp': _own_vtep(config),
                         'advertiseGatewayMacip': 'Disabled', 'importRTs': imports, 'exportRTs': exports}
    return out


def bgp_evpn_imet(directory, config, vrfs):
    """`show bgp l2vpn evpn route type multicast json`: this switch's IMET route per VNI and one per remote VTEP
    of that VNI, with the VNI's route-targets (one RT per VNI in the fabric)."""
    world = state.device(directory).get('world', {})
    own = _own_vtep(config)
    out, count = {}, 0
    for vni, (rd, _imports, exports) in _evpn_vnis(directory, config, vrfs).items():
        remote = [('%s:%d' % (vtep, vni % 65536), vtep, vtep) for vtep in remote_vteps(world, vni)]
        origins = ([(rd, own, None)] if own else []) + remote
        for route_rd, vtep, peer in origins:
            prefix = '[3]:[0]:[32]:[%s]' % vtep
            path = {'valid': True, 'bestpath': True, 'ethTag': 0, 'ip': vtep, 'path': '' if peer is None else '65100',
                    'extendedCommunity': {'string': ' '.join('RT:%s' % target for target in exports) + ' ET:8'},
                    'nexthops': [{'ip': vtep or '0.0.0.0', 'afi': 'ipv4', 'used': True}]}
            if peer:
                path['peerId'] = peer
            out.setdefault(route_rd, {'rd': route_rd})[prefix] = {'prefix': prefix, 'prefixLen': 352, 'paths': [[path]]}
            count += 1
    out['numPrefix'] = count
    out['numPaths'] = count
    return out


# -- docker -------------------------------------------------------------------------------------------------------
def _in_container(item):
    """A path as the bgp container sees it mapped onto the switch's filesystem (/etc/frr is /etc/sonic/frr)."""
    return CONTAINER_FRR + item[len('/etc/frr'):] if item == '/etc/frr' or item.startswith('/etc/frr/') else item


def docker(directory, faults, args):
    if args[:1] == ['ps']:
        sys.stdout.write('CONTAINER ID   IMAGE                COMMAND                  NAMES\n'
                         '0123456789ab   docker-fpm-frr:latest  "/usr/bin/docker_ini…"   bgp\n')
        return 0
    if args[:1] == ['cp'] and len(args) == 3:
        source, target = (_in_container(item.split(':', 1)[1]) if ':' in item else item for item in args[1:])
        import shutil  # pylint: disable=import-outside-toplevel
        shutil.copyfile(source, target)
        return 0
    if args[:1] != ['exec']:
        sys.stderr.write('The double supports docker exec [-i] [-t] bgp CMD..., docker cp, docker ps\n')
        return 1
    rest = args[1:]
    while rest and rest[0].startswith('-'):
        rest.pop(0)
    if not rest or rest[0] != 'bgp':
        sys.stderr.write('Error: No such container: %s\n' % (rest[0] if rest else ''))
        return 1
    inner = [_in_container(item) for item in rest[1:]]
    if not inner:
        sys.stderr.write('"docker exec" requires at least 2 arguments.\n')
        return 1
    missing = next((item for item in inner[:2] if item in NOT_IN_IMAGE or os.path.basename(item) in
                    {os.path.basename(path) for path in NOT_IN_IMAGE}), None)
    if missing and inner[0] == missing:
        sys.stderr.write('OCI runtime exec failed: exec failed: unable to start container process: exec: "%s": stat %s: '
                         'no such file or directory: unknown\n' % (missing, missing))
        return 126
    if missing:  # python3 /usr/lib/frr/frr-reload.py
        sys.stderr.write("%s: can't open file '%s': [Errno 2] No such file or directory\n" % (inner[0], missing))
        return 2
    if inner[0] == 'vtysh':
        return vtysh(directory, faults, inner[1:])
    import subprocess  # pylint: disable=import-outside-toplevel
    return subprocess.run(inner, check=False).returncode
