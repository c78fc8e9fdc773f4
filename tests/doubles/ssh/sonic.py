"""Community SONiC's management commands, as an SSH double runs them against its state directory.

Modelled on sonic-utilities (config/main.py: `config replace|apply-patch|checkpoint|list-checkpoints|rollback|
delete-checkpoint|save`, their `--dry-run`; generic_config_updater: the checks and messages, see sonic_gcu.py and
sonic_yang.py) and SONiC's command reference (https://github.com/sonic-net/sonic-utilities/blob/master/doc/
Command-Reference.md). The generic config updater (GCU) exists from release 202205 on (SONiC 202205 release notes);
on an older release `config replace` fails as click does for an unknown command. The bgp container follows
sonic-buildimage dockers/docker-fpm-frr/docker_init.sh: its FRR config mode is the CONFIG_DB
docker_routing_config_mode it was started with. Files: D/db/CONFIG_DB.json (running CONFIG_DB),
D/etc/sonic/config_db.json (saved), D/etc/sonic/checkpoints/NAME.cp.json, D/frr/running.conf (the bgp container's
running FRR), D/frr/container.json (the mode it started in) and D/etc/sonic/frr/ (the container's /etc/frr).
"""

from __future__ import annotations

import copy
import fnmatch
import json
import os
import re
import sys
import time
import zlib

from tests.doubles.ssh import accounts, frr, sonic_factory, state
# sonic_gcu (jsonpatch, the YANG rules), shutil and subprocess are imported by the commands that use them: every
# command is a process of its own and the show commands, most of them, would pay for their import.
from tests.doubles.ssh.cli import drop_my_session, table
from tests.doubles.world import remote_vteps

GCU_SINCE = 202205
CONTAINER_FRR = '/etc/sonic/frr'  # what the bgp container sees as /etc/frr
INTEGRATED_MODES = ('split-unified', 'unified')
# docker_init.sh write_default_zebra_config: what zebra needs to program routes through fpmsyncd.
ZEBRA_DEFAULTS = ('no fpm use-next-hop-groups', 'fpm address 127.0.0.1')
DAEMON_FILES = ('bgpd.conf', 'zebra.conf', 'staticd.conf', 'sharpd.conf')


def _release(facts):
    match = re.match(r'^(\d{6})', str(facts.get('release', '')))
    return int(match.group(1)) if match else 0


def factory(directory, facts):
    """A freshly installed switch (sonic_factory.py) whose bgp container started in the mode CONFIG_DB gives."""
    config = sonic_factory.config_db(facts)
    state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), config)
    state.write_json(state.path(directory, 'etc', 'sonic', 'config_db.json'), config)
    frr_dir = state.path(directory, 'etc', 'sonic', 'frr')
    for leftover in (frr_dir, state.path(directory, 'etc', 'sonic', 'aifabric-deploy'),
                     state.path(directory, 'etc', 'sonic', 'checkpoints')):
        if os.path.isdir(leftover):
            import shutil  # pylint: disable=import-outside-toplevel
            shutil.rmtree(leftover)
    os.makedirs(frr_dir)
    accounts.factory(directory)
    os.makedirs(state.path(directory, 'frr'), exist_ok=True)
    start_bgp_container(directory, config)


def running(directory):
    return state.read_json(state.path(directory, 'db', 'CONFIG_DB.json'), {})


# -- the bgp container (docker-fpm-frr) ---------------------------------------------------------------------------
def _generated_frr(config):
    """What sonic-cfggen's bgpd/zebra templates make of CONFIG_DB in `separated` mode (hostname, ASN, router-id from
    Loopback0, a neighbour per BGP_NEIGHBOR row): enough for a deploy to read back and replace."""
    metadata = config.get('DEVICE_METADATA', {}).get('localhost', {})
    loopback = next((key.split('|', 1)[1].split('/')[0] for key in config.get('LOOPBACK_INTERFACE', {})
                     if key.startswith('Loopback0|')), None)
    lines = ['hostname %s' % metadata.get('hostname', 'sonic'), '!', 'router bgp %s' % metadata.get('bgp_asn', '65100')]
    if loopback:
        lines.append(' bgp router-id %s' % loopback)
    for peer, fields in sorted(config.get('BGP_NEIGHBOR', {}).items()):
        if fields.get('asn'):
            lines.append(' neighbor %s remote-as %s' % (peer, fields['asn']))
    return '\n'.join(lines + ['!', 'end']) + '\n'


def _with_zebra_defaults(text):
    missing = [line for line in ZEBRA_DEFAULTS if not re.search(r'^%s$' % re.escape(line), text, re.M)]
    return text if not missing else text.rstrip('\n') + '\n' + '\n'.join(missing) + '\n'


def container_mode(directory):
    return state.read_json(state.path(directory, 'frr', 'container.json'), {}).get('mode', 'separated')


def start_bgp_container(directory, config=None):
    """`systemctl restart bgp`: docker_init.sh with the running CONFIG_DB's docker_routing_config_mode."""
    config = running(directory) if config is None else config
    mode = config.get('DEVICE_METADATA', {}).get('localhost', {}).get('docker_routing_config_mode') or 'separated'
    frr_dir = state.path(directory, 'etc', 'sonic', 'frr')
    os.makedirs(frr_dir, exist_ok=True)

    def write(name, text):
        with open(os.path.join(frr_dir, name), 'w', encoding='utf-8') as handle:
            handle.write(text)

    def remove(*names):
        for name in names:
            if os.path.exists(os.path.join(frr_dir, name)):
                os.remove(os.path.join(frr_dir, name))

    def read(name):
        path = os.path.join(frr_dir, name)
        if not os.path.exists(path):
            return ''
        with open(path, encoding='utf-8') as handle:
            return handle.read()

    if mode in INTEGRATED_MODES:
        write('vtysh.conf', 'service integrated-vtysh-config\n')
        remove(*DAEMON_FILES)
        if mode == 'unified':
            write('frr.conf', _generated_frr(config))
        write('frr.conf', _with_zebra_defaults(read('frr.conf')))
        text = read('frr.conf')
    else:
        write('vtysh.conf', 'no service integrated-vtysh-config\n')
        remove('frr.conf')
        if mode == 'separated':
            write('bgpd.conf', _generated_frr(config))
            write('zebra.conf', '')
        write('zebra.conf', _with_zebra_defaults(read('zebra.conf')))
        text = ''.join(read(name) for name in DAEMON_FILES)
    with state.locked(directory):
        with open(state.path(directory, 'frr', 'running.conf'), 'w', encoding='utf-8') as handle:
            handle.write(text)
        state.write_json(state.path(directory, 'frr', 'container.json'), {'mode': mode, 'started': time.time()})
        # every BGP session of the switch starts over
        state.write_json(state.path(directory, 'bgp_first_seen.json'), {})


def integrated(directory):
    """frr-reload.py's test: /etc/frr/vtysh.conf does not say `no service integrated-vtysh-config`."""
    path = state.path(directory, 'etc', 'sonic', 'frr', 'vtysh.conf')
    if not os.path.exists(path):
        return True
    with open(path, encoding='utf-8') as handle:
        return not any(line.strip() == 'no service integrated-vtysh-config' for line in handle)


# -- config: the generic config updater ----------------------------------------------------------------------------
def _reject_lines(target, faults):
    from tests.doubles.ssh import sonic_gcu
    for pattern in faults.get('reject_lines') or []:
        for table_name, rows in target.items():
            for key, fields in rows.items():
                entry = '%s|%s %s' % (table_name, key, json.dumps(fields, sort_keys=True))
                if re.search(pattern, entry):
                    raise sonic_gcu.Refused('Given patch will produce invalid config. Error: Data Loading Failed\n'
                                            'Entry "%s|%s" refused by the device.' % (table_name, key))


def _apply_target(directory, faults, target, dry_run):
    """GCU's checks, then (unless a dry run) the target becomes the running CONFIG_DB."""
    from tests.doubles.ssh import sonic_gcu
    facts = state.device(directory)
    current = running(directory)
    patch = sonic_gcu.check_target(current, target, facts)
    _reject_lines(target, faults)
    if not dry_run:
        state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), target)
        faults.committed()
    return patch


def _fail(subcommand, usage, message, verb):
    sys.stderr.write('Failed to %s\nUsage: config %s [OPTIONS] %s\nTry "config %s -h" for help.\n\nError: %s\n'
                     % (verb, subcommand, usage, subcommand, message))
    return 2


def _options(args):
    flags, positional = set(), []
    rest = list(args)
    while rest:
        item = rest.pop(0)
        if item in ('-f', '--format', '-i', '--ignore-path', '-t', '--path-trace'):
            if rest:
                rest.pop(0)
        elif item.startswith('-'):
            flags.add(item)
        else:
            positional.append(item)
    return flags, positional


def config(directory, faults, args):
    facts = state.device(directory)
    gcu = _release(facts) >= GCU_SINCE
    sub, rest = (args[0], args[1:]) if args else ('', [])
    gcu_commands = ('replace', 'apply-patch', 'checkpoint', 'list-checkpoints', 'rollback', 'delete-checkpoint')
    if sub in gcu_commands and not gcu or sub not in gcu_commands + ('save', 'reload', 'load'):
        sys.stderr.write('Usage: config [OPTIONS] COMMAND [ARGS]...\nTry "config -h" for help.\n\n'
                         'Error: No such command "%s".\n' % sub)
        return 2
    if os.environ.get('DOUBLE_PRIVILEGED') != '1' and sub not in ('list-checkpoints',):
        sys.stderr.write('Root privileges are required for this operation\n')
        return 1
    if sub in (faults.get('refuse_config') or []):
        sys.stderr.write('Error: config %s failed (fault knob refuse_config)\n' % sub)
        return 1
    flags, positional = _options(rest)
    dry_run = bool(flags & {'-d', '--dry-run'})
    if dry_run:
        sys.stdout.write('** DRY RUN EXECUTION **\n')
    checkpoints = state.path(directory, 'etc', 'sonic', 'checkpoints')
    with state.locked(directory):
        if sub in ('replace', 'apply-patch'):
            usage = 'TARGET_FILE_PATH' if sub == 'replace' else 'PATCH_FILE_PATH'
            verb = 'replace config' if sub == 'replace' else 'apply patch'
            if len(positional) != 1:
                return _fail(sub, usage, 'Missing argument "%s".' % usage, verb)
            try:
                with open(positional[0], encoding='utf-8') as handle:
                    document = json.load(handle)
                if sub == 'apply-patch':
                    from tests.doubles.ssh import sonic_gcu
                    document = sonic_gcu.apply_patch(running(directory), document)
                sys.stdout.write('Patch Applier: localhost: Patch application starting.\n'
                                 'Patch Applier: localhost getting current config db.\n'
                                 'Patch Applier: localhost: simulating the target full config after applying the patch.\n'
                                 'Patch Applier: localhost: validating all JsonPatch operations are permitted on the specified fields\n')
                patch = _apply_target(directory, faults, document, dry_run)
            except (OSError, ValueError) as exc:
                return _fail(sub, usage, exc, verb)
            sys.stdout.write('Patch Applier: The localhost patch was converted into %d change%s.\n'
                             'Patch Applier: localhost patch application completed.\n'
                             % (len(patch), '' if len(patch) == 1 else 's'))
            sys.stdout.write('Config replaced successfully.\n' if sub == 'replace' else 'Patch applied successfully.\n')
            sys.stdout.flush()
            if faults.get('drop_after_commit') and not dry_run:
                drop_my_session()
            return 0
        if sub == 'checkpoint':
            if len(positional) != 1:
                return _fail(sub, 'CHECKPOINT_NAME', 'Missing argument "CHECKPOINT_NAME".', 'create a config checkpoint')
            sys.stdout.write('Config Rollbacker: Config checkpoint starting.\nConfig Rollbacker: Checkpoint name: %s.\n'
                             'Config Rollbacker: Getting current config db.\nConfig Rollbacker: Getting checkpoint full-path.\n'
                             'Config Rollbacker: Ensuring checkpoint directory exist.\nConfig Rollbacker: Saving config db content '
                             'to %s.\nConfig Rollbacker: Config checkpoint completed.\n'
                             % (positional[0], '/etc/sonic/checkpoints/%s.cp.json' % positional[0]))
            state.write_json(os.path.join(checkpoints, positional[0] + '.cp.json'), running(directory))
            sys.stdout.write('Checkpoint created successfully.\n')
            return 0
        if sub == 'list-checkpoints':
            names = sorted(name[:-8] for name in os.listdir(checkpoints) if name.endswith('.cp.json')) \
                if os.path.isdir(checkpoints) else []
            sys.stdout.write(json.dumps(names, indent=4) + '\n')
            return 0
        if sub in ('rollback', 'delete-checkpoint'):
            verb = 'rollback config' if sub == 'rollback' else 'delete config checkpoint'
            if len(positional) != 1:
                return _fail(sub, 'CHECKPOINT_NAME', 'Missing argument "CHECKPOINT_NAME".', verb)
            file_path = os.path.join(checkpoints, positional[0] + '.cp.json')
            if not os.path.exists(file_path):
                return _fail(sub, 'CHECKPOINT_NAME', "Checkpoint '%s' does not exist" % positional[0], verb)
            if sub == 'delete-checkpoint':
                os.remove(file_path)
                sys.stdout.write('Checkpoint deleted successfully.\n')
                return 0
            try:
                _apply_target(directory, faults, state.read_json(file_path), dry_run)
            except ValueError as exc:
                return _fail(sub, 'CHECKPOINT_NAME', exc, verb)
            sys.stdout.write('Config rolled back successfully.\n')
            return 0
        if sub == 'save':
            if not flags & {'-y', '--yes'}:
                sys.stdout.write('Existing files will be overwritten, continue? [y/N]: \nAborted!\n')
                return 1
            sys.stdout.write('Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json\n')
            state.write_json(state.path(directory, 'etc', 'sonic', 'config_db.json'), running(directory))
            return 0
        # reload / load: the pre-GCU ways (no validation, services restart)
        if not flags & {'-y', '--yes'}:
            sys.stdout.write('Aborted!\n')
            return 1
        source = positional[0] if positional else state.path(directory, 'etc', 'sonic', 'config_db.json')
        try:
            with open(source, encoding='utf-8') as handle:
                document = json.load(handle)
        except (OSError, ValueError) as exc:
            sys.stderr.write('%s\n' % exc)
            return 1
        target = document if sub == 'reload' else _merge(running(directory), document)
        state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), target)
        sys.stdout.write('Running command: /usr/local/bin/sonic-cfggen -j %s --write-to-db\n' % source)
    if sub == 'reload':
        start_bgp_container(directory)  # config reload restarts every service, the bgp container included
    return 0


def _merge(base, extra):
    merged = copy.deepcopy(base)
    for table, rows in extra.items():
        for key, fields in rows.items():
            merged.setdefault(table, {}).setdefault(key, {}).update(fields)
    return merged


# -- derived state -------------------------------------------------------------------------------------------
def port_up(directory, faults, port, config=None):
    config = config if config is not None else running(directory)
    fields = config.get('PORT', {}).get(port)
    return bool(fields) and fields.get('admin_status') == 'up' and port not in (faults.get('interfaces_down') or [])


def _lossless(config, port):
    value = config.get('PORT_QOS_MAP', {}).get(port, {}).get('pfc_enable', '')
    return [int(item) for item in value.split(',') if item]


def _oid(kind, index):
    return 'oid:0x%x%013x' % (kind, index + 1)


def counters_db(directory, faults):
    config = running(directory)
    ports = sorted(config.get('PORT', {}), key=lambda name: int(re.sub(r'\D', '', name) or 0))
    db = {'COUNTERS_PORT_NAME_MAP': {}, 'COUNTERS_QUEUE_NAME_MAP': {}}
    for index, port in enumerate(ports):
        port_oid = _oid(0x100, index)
        db['COUNTERS_PORT_NAME_MAP'][port] = port_oid
        pause = (faults.get('pfc_pause') or {}).get(port, {})
        stats = {'SAI_PORT_STAT_IF_IN_OCTETS': '0', 'SAI_PORT_STAT_IF_OUT_OCTETS': '0',
                 'SAI_PORT_STAT_IF_IN_DISCARDS': '0', 'SAI_PORT_STAT_IF_OUT_DISCARDS': '0'}
        for priority in range(8):
            hit = pause and int(pause.get('priority', -1)) == priority
            stats['SAI_PORT_STAT_PFC_%d_RX_PKTS' % priority] = str(faults.counter('pfc_pause', port, 'rx_per_s') if hit else 0)
            stats['SAI_PORT_STAT_PFC_%d_TX_PKTS' % priority] = str(faults.counter('pfc_pause', port, 'tx_per_s') if hit else 0)
        db['COUNTERS:' + port_oid] = stats
        lossless = _lossless(config, port)
        for queue in range(8):
            queue_oid = _oid(0x150, index * 8 + queue)
            db['COUNTERS_QUEUE_NAME_MAP']['%s:%d' % (port, queue)] = queue_oid
            drops = (faults.get('lossless_drops') or {}).get(port, {})
            marks = (faults.get('ecn_marks') or {}).get(port, {})
            trip = (faults.get('watchdog_tripped') or {}).get(port, {})
            tripped = trip and int(trip.get('priority', queue)) == queue and queue in lossless
            fields = {
                'SAI_QUEUE_STAT_PACKETS': '0', 'SAI_QUEUE_STAT_BYTES': '0',
                'SAI_QUEUE_STAT_DROPPED_PACKETS': str(faults.counter('lossless_drops', port)
                                                      if drops and int(drops.get('priority', -1)) == queue else 0),
                'SAI_QUEUE_STAT_DROPPED_BYTES': '0',
                'SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS': str(faults.counter('ecn_marks', port)
                                                              if marks and int(marks.get('queue', -1)) == queue else 0),
            }
            if queue in lossless and port in config.get('PFC_WD', {}):
                fields.update({'PFC_WD_STATUS': 'stormed' if tripped else 'operational',
                               'PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED': str(trip.get('count', 1) if tripped else 0),
                               'PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED': str(max(0, int(trip.get('count', 1)) - 1) if tripped else 0),
                               'PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS': fields['SAI_QUEUE_STAT_DROPPED_PACKETS'],
                               'PFC_WD_QUEUE_STATS_TX_PACKETS': '0', 'PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS': '0',
                               'PFC_WD_QUEUE_STATS_RX_PACKETS': '0'})
            db['COUNTERS:' + queue_oid] = fields
    return db


def _lldp(directory, faults, config):
    world = state.device(directory).get('world', {})
    return {port: item for port, item in sorted(world.get('lldp', {}).items()) if port_up(directory, faults, port, config)}


def databases(directory, faults):
    """name -> {redis key: hash} for CONFIG_DB, APPL_DB, STATE_DB, COUNTERS_DB."""
    config = running(directory)
    flat = {}
    for table, rows in config.items():
        for key, fields in rows.items():
            flat['%s|%s' % (table, key)] = {name: (','.join(value) if isinstance(value, list) else str(value))
                                            for name, value in fields.items()} or {'NULL': 'NULL'}
    appl, state_db = {}, {}
    for port, fields in config.get('PORT', {}).items():
        up = port_up(directory, faults, port, config)
        appl['PORT_TABLE:' + port] = {'admin_status': fields.get('admin_status', 'down'), 'oper_status': 'up' if up else 'down',
                                      'mtu': str(fields.get('mtu', '9100')), 'speed': str(fields.get('speed', '')),
                                      'description': fields.get('description', ''), 'alias': fields.get('alias', '')}
        state_db['PORT_TABLE|' + port] = {'state': 'ok', 'netdev_oper_status': 'up' if up else 'down',
                                          'admin_status': fields.get('admin_status', 'down'), 'mtu': str(fields.get('mtu', '9100'))}
    for port, item in _lldp(directory, faults, config).items():
        appl['LLDP_ENTRY_TABLE:' + port] = {'lldp_rem_sys_name': item['device'], 'lldp_rem_port_id': item['port'],
                                            'lldp_rem_port_desc': item.get('description', ''), 'lldp_rem_chassis_id_subtype': '4'}
    counters = {key: (value if isinstance(value, dict) else value) for key, value in counters_db(directory, faults).items()}
    return {'CONFIG_DB': flat, 'APPL_DB': appl, 'STATE_DB': state_db, 'COUNTERS_DB': counters}


def sonic_db_cli(directory, faults, args):
    if len(args) < 2:
        sys.stderr.write('usage: sonic-db-cli [-h] [-s] [-n NAMESPACE] db_or_op [cmd ...]\n')
        return 1
    db_name, operation, rest = args[0], args[1].upper(), args[2:]
    dbs = databases(directory, faults)
    if db_name not in dbs:
        sys.stderr.write('Invalid database name input : \'%s\'\n' % db_name)
        return 1
    db = dbs[db_name]
    if operation == 'KEYS' and len(rest) == 1:
        for key in sorted(key for key in db if fnmatch.fnmatchcase(key, rest[0])):
            sys.stdout.write(key + '\n')
    elif operation == 'HGETALL' and len(rest) == 1:
        sys.stdout.write('%r\n' % db.get(rest[0], {}))
    elif operation == 'HGET' and len(rest) == 2:
        value = db.get(rest[0], {}).get(rest[1])
        sys.stdout.write('%s\n' % ('' if value is None else value))
    elif operation == 'EXISTS' and len(rest) == 1:
        sys.stdout.write('%d\n' % (1 if rest[0] in db else 0))
    else:
        sys.stderr.write('The double supports KEYS, HGETALL, HGET and EXISTS (got %s)\n' % ' '.join(args[1:]))
        return 1
    return 0


# -- show ------------------------------------------------------------------------------------------------------
def show(directory, faults, args):
    facts = state.device(directory)
    config = running(directory)
    words = ' '.join(args)
    if words == 'version':
        sys.stdout.write('\nSONiC Software Version: SONiC.%s.1-double\nSONiC OS Version: 12\nDistribution: Debian 12.5\n'
                         'Kernel: 6.1.0-22-2-amd64\nBuild commit: 0000000\nBuild date: Mon Jan  1 00:00:00 UTC 2024\n'
                         'Built by: double@aifabric\n\nPlatform: %s\nHwSKU: %s\nASIC: %s\nASIC Count: 1\n'
                         'Serial Number: DBL%08X\nModel Number: %s\nHardware Revision: N/A\nUptime: %s\nDate: %s\n'
                         % (facts['release'], facts['platform'], facts['hwsku'], facts.get('asic_type', 'broadcom'),
                            zlib.crc32(facts['name'].encode()),
                            facts['hwsku'], time.strftime(' %H:%M:%S up 1 day,  0:00,  1 user,  load average: 0.00, 0.00, 0.00'),
                            time.strftime('%a %d %b %Y %H:%M:%S')))
    elif words in ('runningconfiguration all', 'runningconfig all'):
        sys.stdout.write(json.dumps(config, indent=4, sort_keys=True) + '\n')
    elif words == 'runningconfiguration bgp':
        with open(state.path(directory, 'frr', 'running.conf'), encoding='utf-8') as handle:
            sys.stdout.write(handle.read())
    elif words == 'interfaces status':
        rows = []
        for port in sorted(config.get('PORT', {}), key=lambda name: int(re.sub(r'\D', '', name))):
            fields = config['PORT'][port]
            mode = 'routed' if any(key == port or key.startswith(port + '|') for key in config.get('INTERFACE', {})) else (
                'trunk' if any(key.endswith('|' + port) for key in config.get('VLAN_MEMBER', {})) else 'routed')
            rows.append([port, fields.get('lanes', 'N/A'), '%dG' % (int(fields.get('speed', 0)) // 1000), fields.get('mtu', '9100'),
                         fields.get('fec', 'N/A'), fields.get('alias', 'N/A'), mode,
                         'up' if port_up(directory, faults, port, config) else 'down', fields.get('admin_status', 'down'),
                         'OSFP 8X Pluggable Transceiver', 'off'])
        sys.stdout.write(table(['Interface', 'Lanes', 'Speed', 'MTU', 'FEC', 'Alias', 'Vlan', 'Oper', 'Admin', 'Type', 'Asym PFC'], rows))
    elif words == 'lldp table':
        entries = _lldp(directory, faults, config)
        sys.stdout.write('Capability codes: (R) Router, (B) Bridge, (O) Other\n')
        sys.stdout.write(table(['LocalPort', 'RemoteDevice', 'RemotePortID', 'Capability', 'RemotePortDescr'],
                               [[port, item['device'], item['port'], 'BR', item.get('description', '')] for port, item in entries.items()]))
        sys.stdout.write('-' * 50 + '\nTotal entries displayed:  %d\n' % len(entries))
    elif words in ('pfc counters', 'priority-flow-control counters'):
        counters = counters_db(directory, faults)
        names = counters['COUNTERS_PORT_NAME_MAP']
        for direction in ('RX', 'TX'):
            rows = [[port] + [counters['COUNTERS:' + oid]['SAI_PORT_STAT_PFC_%d_%s_PKTS' % (p, direction)] for p in range(8)]
                    for port, oid in names.items() if config['PORT'][port].get('admin_status') == 'up']
            sys.stdout.write(table(['  Port %sx' % direction.capitalize()[0]] + ['PFC%d' % p for p in range(8)], rows) + '\n')
    elif words == 'pfcwd stats':
        counters = counters_db(directory, faults)
        rows = []
        for name, oid in counters['COUNTERS_QUEUE_NAME_MAP'].items():
            fields = counters['COUNTERS:' + oid]
            if 'PFC_WD_STATUS' in fields:
                rows.append([name, fields['PFC_WD_STATUS'], '%s/%s' % (fields['PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED'],
                                                                       fields['PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED']),
                             '0/%s' % fields['PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS'], '0/0', '0/0', '0/0'])
        sys.stdout.write(table(['QUEUE', 'STATUS', 'STORM DETECTED/RESTORED', 'TX OK/DROP', 'RX OK/DROP',
                                'TX LAST OK/DROP', 'RX LAST OK/DROP'], rows))
    elif words.startswith('queue counters'):
        counters = counters_db(directory, faults)
        only = args[2] if len(args) > 2 else None
        rows = []
        for name, oid in counters['COUNTERS_QUEUE_NAME_MAP'].items():
            port, queue = name.split(':')
            if (only and port != only) or config['PORT'][port].get('admin_status') != 'up':
                continue
            fields = counters['COUNTERS:' + oid]
            rows.append([port, 'UC%s' % queue, fields['SAI_QUEUE_STAT_PACKETS'], fields['SAI_QUEUE_STAT_BYTES'],
                         fields['SAI_QUEUE_STAT_DROPPED_PACKETS'], fields['SAI_QUEUE_STAT_DROPPED_BYTES']])
        sys.stdout.write(table(['Port', 'TxQ', 'Counter/pkts', 'Counter/bytes', 'Drop/pkts', 'Drop/bytes'], rows))
    elif words in ('queue wredcounters', 'queue wredcounters --all'):
        counters = counters_db(directory, faults)
        rows = [[name.split(':')[0], 'UC' + name.split(':')[1], '0', '0',
                 counters['COUNTERS:' + oid]['SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS'], '0']
                for name, oid in counters['COUNTERS_QUEUE_NAME_MAP'].items()
                if config['PORT'][name.split(':')[0]].get('admin_status') == 'up']
        sys.stdout.write(table(['Port', 'TxQ', 'WredDrp/pkts', 'WredDrp/bytes', 'EcnMarked/pkts', 'EcnMarked/bytes'], rows))
    else:
        sys.stderr.write('Usage: show [OPTIONS] COMMAND [ARGS]...\nTry "show -h" for help.\n\nError: No such command "%s".\n'
                         % (args[0] if args else ''))
        return 2
    return 0


# -- FRR in the bgp container -----------------------------------------------------------------------------
def _frr_running(directory):
    with open(state.path(directory, 'frr', 'running.conf'), encoding='utf-8') as handle:
        return handle.read()


def _link_up(directory, faults, config):
    # INTERFACE keys: 'Ethernet0' (the port's own entry) and 'Ethernet0|10.0.0.1/31'
    owner = frr.subnet_owner((prefix, port) for port, _sep, prefix in (key.partition('|') for key in config.get('INTERFACE', {})))

    def link_up(name, peer):
        port = peer['interface'] or owner(name)
        return port_up(directory, faults, port, config) if port else True
    return link_up


def vtysh(directory, faults, args):
    if args[:1] == ['-C'] or args[:2] == ['-C', '-f'] or ('-C' in args and '-f' in args):
        file_path = args[args.index('-f') + 1]
        code, output = frr.check(file_path)
        sys.stdout.write(output)
        return code
    commands = [args[index + 1] for index, item in enumerate(args) if item == '-c' and index + 1 < len(args)]
    if not commands:
        sys.stderr.write('The double supports vtysh -c COMMAND... and vtysh -C -f FILE\n')
        return 1
    config = running(directory)
    text = _frr_running(directory)
    vrfs = frr.parse(text)
    seen = state.first_seen(directory, frr.peer_keys(vrfs))
    for command in commands:
        words = ' '.join(command.split())
        if words == 'show version':
            sys.stdout.write('FRRouting 8.5.4 (%s) on Linux(6.1.0-22-2-amd64).\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\n'
                             % state.device(directory).get('name', 'sonic'))
        elif words in ('show running-config', 'show run', 'show running-config no-header'):
            sys.stdout.write('Building configuration...\n\nCurrent configuration:\n' + text)
        elif words in ('show bgp summary json', 'show ip bgp summary json', 'show bgp vrf default summary json'):
            sys.stdout.write(json.dumps(frr.summary(vrfs, seen, faults, _link_up(directory, faults, config)), indent=2) + '\n')
        elif words in ('show bgp vrf all summary json', 'show ip bgp vrf all summary json'):
            sys.stdout.write(json.dumps(frr.summary(vrfs, seen, faults, _link_up(directory, faults, config), 'all'), indent=2) + '\n')
        elif words == 'show evpn vni json':
            sys.stdout.write(json.dumps(evpn_vni(directory, config, vrfs), indent=2) + '\n')
        elif words == 'show bgp l2vpn evpn vni json':
            sys.stdout.write(json.dumps(bgp_evpn_vni(directory, config, vrfs), indent=2) + '\n')
        elif words == 'show bgp l2vpn evpn route type multicast json':
            sys.stdout.write(json.dumps(bgp_evpn_imet(directory, config, vrfs), indent=2) + '\n')
        elif words in ('write memory', 'write', 'copy running-config startup-config'):
            import shutil  # pylint: disable=import-outside-toplevel
            shutil.copyfile(state.path(directory, 'frr', 'running.conf'), state.path(directory, 'etc', 'sonic', 'frr', 'frr.conf'))
            sys.stdout.write('Note: this version of vtysh never writes vtysh.conf\nBuilding Configuration...\n'
                             'Integrated configuration saved to /etc/frr/frr.conf\n[OK]\n')
        else:
            sys.stdout.write('% Unknown command: ' + command + '\n')
            return 1
    return 0


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


RELOAD_OPTIONS_WITH_VALUE = ('--bindir', '--confdir', '--vty_socket', '--rundir', '--log-level', '--pathspace', '-N',
                             '--daemon', '--logfile')


def frr_reload(directory, args):
    """frr-reload.py (--reload | --test) [options] FILENAME."""
    rest, files = list(args), []
    while rest:
        item = rest.pop(0)
        if item in RELOAD_OPTIONS_WITH_VALUE:
            if rest:
                rest.pop(0)
        elif not item.startswith('-'):
            files.append(item)
    mode = 'reload' if '--reload' in args else ('test' if '--test' in args else None)
    if mode is None or len(files) != 1:
        sys.stderr.write('usage: frr-reload.py [-h] (--reload | --test) [--debug] [--stdout] [--confdir CONFDIR] filename\n')
        return 1
    if not os.path.exists(files[0]):
        sys.stderr.write('Filename %s does not exist\n' % files[0])
        return 1
    with open(files[0], encoding='utf-8') as handle:
        new = handle.read()
    code, output = frr.check(files[0])
    if code != 0:
        sys.stdout.write('vtysh failed to process new configuration: %s\n' % output.strip())
        return 1
    old = _frr_running(directory)
    if mode == 'test':
        sys.stdout.write(frr.reload_diff(old, new))
        return 0
    if not integrated(directory) and '--daemon' not in args:
        # FRR tools/frr-reload.py: a reload needs `service integrated-vtysh-config` (docker_init.sh writes `no service
        # integrated-vtysh-config` in the separated and split modes); the message goes to its log.
        sys.stderr.write("'service integrated-vtysh-config' is not configured, this is required for 'service frr reload'\n")
        return 1
    with state.locked(directory):
        with open(state.path(directory, 'frr', 'running.conf'), 'w', encoding='utf-8') as handle:
            handle.write(new)
    return 0


def docker(directory, faults, args):
    if args[:1] == ['ps']:
        sys.stdout.write('CONTAINER ID   IMAGE                COMMAND                  NAMES\n'
                         '0123456789ab   docker-fpm-frr:latest  "/usr/bin/docker_ini…"   bgp\n')
        return 0
    if args[:1] == ['cp'] and len(args) == 3:
        source, target = (item.split(':', 1)[1] if ':' in item else item for item in args[1:])
        source, target = (CONTAINER_FRR + item[len('/etc/frr'):] if item.startswith('/etc/frr/') else item
                          for item in (source, target))
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
    # SONiC mounts /etc/sonic/frr as /etc/frr in the bgp container; the double's container shares the switch's
    # filesystem otherwise, so only that mapping is applied (to the arguments of the command).
    inner = [CONTAINER_FRR + item[len('/etc/frr'):] if item == '/etc/frr' or item.startswith('/etc/frr/') else item
             for item in rest[1:]]
    if inner[:1] == ['vtysh']:
        return vtysh(directory, faults, inner[1:])
    if inner[:1] and inner[0] in frr.FRR_RELOAD_PATHS or inner[:2] in (['python3', p] for p in frr.FRR_RELOAD_PATHS):
        return frr_reload(directory, inner[1:] if inner[0] != 'python3' else inner[2:])
    import subprocess  # pylint: disable=import-outside-toplevel
    return subprocess.run(inner, check=False).returncode


def sonic_cfggen(directory, args):
    if '-d' in args and '--print-data' in args:
        sys.stdout.write(json.dumps(running(directory), indent=4, sort_keys=True) + '\n')
        return 0
    if '-d' in args and '-v' in args:
        path_expr = args[args.index('-v') + 1]
        value = running(directory)
        for part in path_expr.split('.'):
            value = value.get(part, {}) if isinstance(value, dict) else {}
        sys.stdout.write('%s\n' % (value if value != {} else ''))
        return 0
    sys.stderr.write('The double supports sonic-cfggen -d --print-data and -d -v KEY\n')
    return 1


def main(directory, faults, command, args):
    if command == 'config':
        return config(directory, faults, args)
    if command == 'show':
        return show(directory, faults, args)
    if command == 'sonic-db-cli':
        return sonic_db_cli(directory, faults, args)
    if command == 'sonic-cfggen':
        return sonic_cfggen(directory, args)
    if command == 'vtysh':
        return vtysh(directory, faults, args)
    if command == 'docker':
        return docker(directory, faults, args)
    sys.stderr.write('%s: command not found\n' % command)
    return 127
