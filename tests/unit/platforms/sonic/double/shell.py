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

import fnmatch
import json
import os
import re
import sys
import time

from tests.doubles.ssh import state
from tests.doubles.ssh.cli import drop_all_sessions, table
# Every command is a process of its own, and a reading runs many: the modules of the commands that change the switch
# (sonic_gcu with jsonpatch and the YANG rules, the bgp container's FRR with subprocess, the factory, the accounts) are
# imported by those commands, so that the read-only ones (sonic-db-cli, sonic-db-dump, show, sonic-cfggen) start lean.

GCU_SINCE = 202205


def _release(facts):
    match = re.match(r'^(\d{6})', str(facts.get('release', '')))
    return int(match.group(1)) if match else 0


def factory(directory, facts):
    """A freshly installed switch (sonic_factory.py) whose bgp container started in the mode CONFIG_DB gives."""
    from tests.unit.platforms.sonic.double import accounts, bgp as sonic_bgp, factory as sonic_factory
    config = sonic_factory.config_db(facts)
    state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), config)
    state.write_json(state.path(directory, 'etc', 'sonic', 'config_db.json'), config)
    state.write_json(state.path(directory, 'etc', 'sonic', 'init_cfg.json'), sonic_factory.init_cfg(facts))
    for stale in ('outage_until',):
        if os.path.exists(state.path(directory, stale)):
            os.remove(state.path(directory, stale))
    frr_dir = state.path(directory, 'etc', 'sonic', 'frr')
    for leftover in (frr_dir, state.path(directory, 'etc', 'sonic', 'aifabric-deploy'),
                     state.path(directory, 'etc', 'sonic', 'checkpoints')):
        if os.path.isdir(leftover):
            import shutil  # pylint: disable=import-outside-toplevel
            shutil.rmtree(leftover)
    os.makedirs(frr_dir)
    accounts.factory(directory)
    os.makedirs(state.path(directory, 'frr'), exist_ok=True)
    sonic_bgp.start(directory, config)
    from tests.unit.platforms.sonic.double import buffers as sonic_buffers
    # swss came up at boot, `uptime_s` ago (the double's world; `config reload` wants it up for 2 minutes)
    sonic_buffers.restart(directory, up_since=time.time() - float(facts.get('uptime_s', 3600)))


def running(directory):
    return state.read_json(state.path(directory, 'db', 'CONFIG_DB.json'), {})


# -- config: the generic config updater ----------------------------------------------------------------------------
def _reject_lines(target, faults):
    from tests.unit.platforms.sonic.double import gcu as sonic_gcu
    for pattern in faults.get('reject_lines') or []:
        for table_name, rows in target.items():
            for key, fields in rows.items():
                entry = '%s|%s %s' % (table_name, key, json.dumps(fields, sort_keys=True))
                if re.search(pattern, entry):
                    raise sonic_gcu.Refused('Given patch will produce invalid config. Error: Data Loading Failed\n'
                                            'Entry "%s|%s" refused by the device.' % (table_name, key))


def _check_target(directory, faults, target):
    """GCU's checks of the whole target against the running CONFIG_DB; returns the patch (raises Refused)."""
    from tests.unit.platforms.sonic.double import gcu as sonic_gcu
    patch = sonic_gcu.check_target(running(directory), target, state.device(directory))
    _reject_lines(target, faults)
    return patch


def _sort(faults, patch):
    """The patch sorter's time (patch_sorter.py: a search over orders of the patch's changes; no source states how
    long it takes, public reports range from seconds to hours: sonic-utilities #2263, sonic-buildimage #23945): the
    fault knob `gcu_sort_s_per_change` (seconds per change of the patch). GCU holds no lock meanwhile (S20)."""
    seconds = float(faults.get('gcu_sort_s_per_change') or 0) * len(patch)
    if seconds > 0:
        sys.stdout.write('Patch Applier: localhost: sorting patch updates.\n')
        sys.stdout.flush()
        time.sleep(seconds)


def _commit(directory, faults, target):
    """The target becomes the running CONFIG_DB; returns the CONFIG_DB it replaced."""
    with state.locked(directory):
        before = running(directory)
        state.write_json(state.path(directory, 'db', 'CONFIG_DB.json'), target)
    faults.committed()
    return before


def after_commit(directory, faults, before):
    """What the switch's daemons do once CONFIG_DB changed: bgpcfgd (sonic_bgp.after_commit), buffermgrd
    (sonic_buffers.after_commit) and, when the management VRF changes, hostcfgd restarting the management interface
    (SONiC Command Reference, `config vrf add mgmt`: eth0 moves into the VRF and every SSH session over it ends)."""
    from tests.unit.platforms.sonic.double import bgp as sonic_bgp, buffers as sonic_buffers
    now = running(directory)
    sonic_bgp.after_commit(directory)
    sonic_buffers.after_commit(directory, before, now)

    def vrf(config):
        return config.get('MGMT_VRF_CONFIG', {}).get('vrf_global', {}).get('mgmtVrfEnabled', 'false')

    if vrf(before) != vrf(now):
        restart_management(directory, faults)


def restart_management(directory, faults, drop=True):
    """eth0 restarts (networking / interfaces-config): new SSH sessions are refused for the fault knob
    `management_restart_s` (config/main.py _restart_services: "cause device lost network for 10 seconds"); with `drop`
    (its address or VRF changed) every SSH session ends as well."""
    seconds = float(faults.get('management_restart_s', 1))
    with open(state.path(directory, 'outage_until'), 'w', encoding='utf-8') as handle:
        handle.write('%d\n' % int(time.time() + seconds + 0.999))
    sys.stdout.flush()
    if drop:
        drop_all_sessions()


def _fail(subcommand, usage, message, verb):
    sys.stderr.write('Failed to %s\nUsage: config %s [OPTIONS] %s\nTry "config %s -h" for help.\n\nError: %s\n'
                     % (verb, subcommand, usage, subcommand, message))
    return 2


# The options that take a value, of `config`'s other subcommands and of `config reload` (sonic-utilities
# config/main.py); every other dash word is a flag (reload's -f is --force, not a format).
VALUED_OPTIONS = ('-f', '--format', '-i', '--ignore-path', '-t', '--path-trace')
RELOAD_VALUED_OPTIONS = ('-t', '--file_format')


def _options(args, valued=VALUED_OPTIONS):
    flags, positional = set(), []
    rest = list(args)
    while rest:
        item = rest.pop(0)
        if item in valued:
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
    if sub in gcu_commands and not gcu or sub not in gcu_commands + ('save', 'reload', 'load', 'interface'):
        sys.stderr.write('Usage: config [OPTIONS] COMMAND [ARGS]...\nTry "config -h" for help.\n\n'
                         'Error: No such command "%s".\n' % sub)
        return 2
    if os.environ.get('DOUBLE_PRIVILEGED') != '1' and sub not in ('list-checkpoints',):
        sys.stderr.write('Root privileges are required for this operation\n')
        return 1
    if sub in (faults.get('refuse_config') or []):
        sys.stderr.write('Error: config %s failed (fault knob refuse_config)\n' % sub)
        return 1
    flags, positional = _options(rest, RELOAD_VALUED_OPTIONS if sub == 'reload' else VALUED_OPTIONS)
    dry_run = bool(flags & {'-d', '--dry-run'})
    if dry_run:
        sys.stdout.write('** DRY RUN EXECUTION **\n')
    checkpoints = state.path(directory, 'etc', 'sonic', 'checkpoints')
    if sub in ('replace', 'apply-patch'):
        return _replace(directory, faults, sub, positional, dry_run)
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
        return _replace(directory, faults, sub, [file_path], dry_run)
    if sub == 'save':
        if not flags & {'-y', '--yes'}:
            sys.stdout.write('Existing files will be overwritten, continue? [y/N]: \nAborted!\n')
            return 1
        sys.stdout.write('Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json\n')
        state.write_json(state.path(directory, 'etc', 'sonic', 'config_db.json'), running(directory))
        return 0
    if sub == 'interface':
        return _interface(directory, faults, positional)
    if not flags & {'-y', '--yes'}:
        sys.stdout.write('Aborted!\n')
        return 1
    if sub == 'reload':
        return _reload(directory, faults, positional, force=bool(flags & {'-f', '--force'}))
    # config load: sonic-cfggen -j FILE --write-to-db, no validation, no service restarts
    source = positional[0] if positional else state.path(directory, 'etc', 'sonic', 'config_db.json')
    try:
        with open(source, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        sys.stderr.write('%s\n' % exc)
        return 1
    sys.stdout.write('Running command: /usr/local/bin/sonic-cfggen -j %s --write-to-db\n' % source)
    before = _commit(directory, faults, _merge(running(directory), document))
    after_commit(directory, faults, before)
    return 0


def _replace(directory, faults, sub, positional, dry_run):
    """config replace FILE, apply-patch FILE, rollback NAME (FILE: the checkpoint): GCU's pipeline
    (generic_updater.py PatchApplier.apply), the sorter's time, then the changes."""
    usage, verb = {'replace': ('TARGET_FILE_PATH', 'replace config'), 'apply-patch': ('PATCH_FILE_PATH', 'apply patch'),
                   'rollback': ('CHECKPOINT_NAME', 'rollback config')}[sub]
    if len(positional) != 1:
        return _fail(sub, usage, 'Missing argument "%s".' % usage, verb)
    try:
        with open(positional[0], encoding='utf-8') as handle:
            document = json.load(handle)
        if sub == 'apply-patch':
            from tests.unit.platforms.sonic.double import gcu as sonic_gcu
            document = sonic_gcu.apply_patch(running(directory), document)
        if sub != 'rollback':
            sys.stdout.write('Patch Applier: localhost: Patch application starting.\n'
                             'Patch Applier: localhost getting current config db.\n'
                             'Patch Applier: localhost: simulating the target full config after applying the patch.\n'
                             'Patch Applier: localhost: validating all JsonPatch operations are permitted on the specified fields\n')
        patch = _check_target(directory, faults, document)
    except (OSError, ValueError) as exc:
        return _fail(sub, usage, exc, verb)
    if not dry_run:
        _sort(faults, patch)
        before = _commit(directory, faults, document)
    if sub != 'rollback':
        sys.stdout.write('Patch Applier: The localhost patch was converted into %d change%s.\n'
                         'Patch Applier: localhost patch application completed.\n'
                         % (len(patch), '' if len(patch) == 1 else 's'))
    sys.stdout.write({'replace': 'Config replaced successfully.\n', 'apply-patch': 'Patch applied successfully.\n',
                      'rollback': 'Config rolled back successfully.\n'}[sub])
    sys.stdout.flush()
    if not dry_run:
        after_commit(directory, faults, before)
        if faults.get('drop_after_commit') and sub != 'rollback':
            drop_all_sessions()  # the management connection dies (a replace may run in a job, away from any session)
    return 0


def _interface(directory, faults, positional):
    """config interface shutdown|startup PORT (config/main.py: PORT admin_status down|up)."""
    if len(positional) != 2 or positional[0] not in ('shutdown', 'startup'):
        sys.stderr.write('Usage: config interface [OPTIONS] COMMAND [ARGS]...\n\nError: the double supports '
                         'config interface shutdown|startup PORT\n')
        return 2
    config = running(directory)
    if positional[1] not in config.get('PORT', {}):
        sys.stderr.write('Error: Interface name is invalid. Please enter a valid interface name!!\n')
        return 2
    config['PORT'][positional[1]]['admin_status'] = 'down' if positional[0] == 'shutdown' else 'up'
    before = _commit(directory, faults, config)
    after_commit(directory, faults, before)
    return 0


def _reload(directory, faults, positional, force=False):
    """config reload -y [FILE] (config/main.py reload): a given file must load against the YANG models and every
    table of it must have one (config_file_yang_validation); the services stop, CONFIG_DB is flushed and written from
    /etc/sonic/init_cfg.json then the file, the services start again: the bgp container (docker_init.sh with the new
    mode), swss (buffermgrd picks its model at start, buffermgrd.sh), and eth0 ("device lost network for 10 seconds"):
    every SSH session ends. The fault knob `reload_s` is how long the services take to come back. Without -f it
    first refuses while swss has been up for 2 minutes or less, or is stopped (_swss_ready: a reload right after a
    reload, or after one that was ended halfway)."""
    from tests.unit.platforms.sonic.double import bgp as sonic_bgp, buffers as sonic_buffers, factory as sonic_factory
    if not force and not sonic_buffers.swss_ready(directory):
        sys.stdout.write('SwSS container is not ready. Retry later or use -f to avoid system checks\n')
        return 1
    source = positional[0] if positional else state.path(directory, 'etc', 'sonic', 'config_db.json')
    try:
        with open(source, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        sys.stdout.write('Failed to read config file %s: %s\n' % (source, exc))
        sys.stdout.write('Aborted!\n')
        return 1
    problem = reload_problem(document, source) if positional else None
    if positional and not problem:
        from tests.unit.platforms.sonic.double import gcu as sonic_gcu
        try:
            _reject_lines(document, faults)  # the fault knob: an entry the switch refuses
        except sonic_gcu.Refused as error:
            problem = '%s fails YANG validation! Error: %s' % (source, str(error).split('Error: ', 1)[-1])
    if problem:
        sys.stdout.write(problem + '\nAborted!\n')
        return 1
    sys.stdout.write('Disabling container and routeCheck monitoring ...\nStopping SONiC target ...\n')
    init = state.read_json(state.path(directory, 'etc', 'sonic', 'init_cfg.json'), {})
    sys.stdout.write('Running command: /usr/local/bin/sonic-cfggen -j /etc/sonic/init_cfg.json -j %s --write-to-db\n'
                     % source)
    sys.stdout.flush()
    sonic_buffers.stop(directory)
    time.sleep(float(faults.get('reload_s') or 0))
    before = _commit(directory, faults, sonic_factory.merged(init, document))
    sys.stdout.write('Restarting SONiC target ...\nReloading Monit configuration ...\n')
    sys.stdout.flush()
    sonic_bgp.start(directory)
    sonic_buffers.restart(directory)
    restart_management(directory, faults, drop=_management(before) != _management(running(directory)))
    return 0


def reload_problem(document, source='FILE'):
    """Why `config reload FILE` refuses the file before it stops anything (config/main.py
    config_file_yang_validation: not a JSON object, a YANG error, tables without a YANG model), or None."""
    from tests.unit.platforms.sonic.double import yang as sonic_yang
    if not isinstance(document, dict):
        return "Invalid config file:'%s'!" % source
    try:
        sonic_yang.validate({table: rows for table, rows in document.items() if table in sonic_yang.YANG_TABLES})
    except sonic_yang.Invalid as error:
        return '%s fails YANG validation! Error: Data Loading Failed\n%s' % (source, error)
    without = sorted(table for table in document if table not in sonic_yang.YANG_TABLES and table != 'bgpraw')
    if without:
        return 'Config tables are missing yang models: dict_keys(%r)' % without
    return None


def _management(config):
    return (config.get('MGMT_INTERFACE', {}), config.get('MGMT_VRF_CONFIG', {}))


def _merge(base, extra):
    import copy  # pylint: disable=import-outside-toplevel
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
    # the knobs once per call, not once per port and queue (every sonic-db-cli call builds the whole database)
    knobs = {name: faults.get(name) or {} for name in ('pfc_pause', 'lossless_drops', 'ecn_marks', 'watchdog_tripped')}
    watchdog_ports = config.get('PFC_WD', {})
    for index, port in enumerate(ports):
        port_oid = _oid(0x100, index)
        db['COUNTERS_PORT_NAME_MAP'][port] = port_oid
        pause = knobs['pfc_pause'].get(port, {})
        stats = {'SAI_PORT_STAT_IF_IN_OCTETS': '0', 'SAI_PORT_STAT_IF_OUT_OCTETS': '0',
                 'SAI_PORT_STAT_IF_IN_DISCARDS': '0', 'SAI_PORT_STAT_IF_OUT_DISCARDS': '0'}
        for priority in range(8):
            hit = pause and int(pause.get('priority', -1)) == priority
            stats['SAI_PORT_STAT_PFC_%d_RX_PKTS' % priority] = str(faults.counter('pfc_pause', port, 'rx_per_s') if hit else 0)
            stats['SAI_PORT_STAT_PFC_%d_TX_PKTS' % priority] = str(faults.counter('pfc_pause', port, 'tx_per_s') if hit else 0)
        db['COUNTERS:' + port_oid] = stats
        lossless = _lossless(config, port)
        drops = knobs['lossless_drops'].get(port, {})
        marks = knobs['ecn_marks'].get(port, {})
        trip = knobs['watchdog_tripped'].get(port, {})
        for queue in range(8):
            queue_oid = _oid(0x150, index * 8 + queue)
            db['COUNTERS_QUEUE_NAME_MAP']['%s:%d' % (port, queue)] = queue_oid
            tripped = trip and int(trip.get('priority', queue)) == queue and queue in lossless
            fields = {
                'SAI_QUEUE_STAT_PACKETS': '0', 'SAI_QUEUE_STAT_BYTES': '0',
                'SAI_QUEUE_STAT_DROPPED_PACKETS': str(faults.counter('lossless_drops', port)
                                                      if drops and int(drops.get('priority', -1)) == queue else 0),
                'SAI_QUEUE_STAT_DROPPED_BYTES': '0',
                'SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS': str(faults.counter('ecn_marks', port)
                                                              if marks and int(marks.get('queue', -1)) == queue else 0),
            }
            if queue in lossless and port in watchdog_ports:
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


DATABASES = ('CONFIG_DB', 'APPL_DB', 'STATE_DB', 'COUNTERS_DB')


def databases(directory, faults, only=None):
    """name -> {redis key: hash} for CONFIG_DB, APPL_DB, STATE_DB, COUNTERS_DB (`only`: the one a sonic-db-cli call
    reads, built alone: the validate reader calls it once per port of a table)."""
    if only == 'COUNTERS_DB':
        return {only: dict(counters_db(directory, faults))}
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
    if only in ('CONFIG_DB', 'STATE_DB'):
        return {'CONFIG_DB': flat, 'STATE_DB': state_db}
    from tests.unit.platforms.sonic.double import buffers as sonic_buffers
    appl.update(sonic_buffers.appl_db(directory, config))
    if only == 'APPL_DB':
        return {'APPL_DB': appl}
    return {'CONFIG_DB': flat, 'APPL_DB': appl, 'STATE_DB': state_db, 'COUNTERS_DB': dict(counters_db(directory, faults))}


def sonic_db_cli(directory, faults, args):
    if len(args) < 2:
        sys.stderr.write('usage: sonic-db-cli [-h] [-s] [-n NAMESPACE] db_or_op [cmd ...]\n')
        return 1
    db_name, operation, rest = args[0], args[1].upper(), args[2:]
    dbs = databases(directory, faults, only=db_name if db_name in DATABASES else None)
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


# redisdl's dump options as sonic-db-dump takes them (sonic-buildimage src/sonic-py-common/sonic_py_common/
# sonic_db_dump_load.py, an optparse parser; the host's console script since 202211, sonic-py-swsssdk's before).
_DUMP_VALUE_OPTIONS = {'-n': 'dbname', '--dbname': 'dbname', '-k': 'keys', '--keys': 'keys', '-t': 'conntype',
                       '--conntype': 'conntype', '-o': 'output', '--output': 'output', '-w': 'password',
                       '--password': 'password', '--netns': 'netns', '-E': 'encoding', '--encoding': 'encoding'}


def sonic_db_dump(directory, faults, args):
    """`sonic-db-dump -n DB [-k PATTERN] [-y]`: every key of DB matching the glob PATTERN as redisdl writes it, one JSON
    object {key: {"type": "hash", "value": {field: value}, "ttl": -0.001, "expireat": <time>}}. SONiC's redisdl (its
    pipelined dump, sonic-buildimage src/redis-dump-load.patch) reads PTTL, -1 for a key that does not expire, as
    -0.001 s and writes it with an "expireat" for every key (SONiC's own dumps show it: sonic-utilities
    tests/fast_reboot_dump_dbs). Compact separators; -y indents by 2 with sorted keys. No trailing newline."""
    options = {'keys': '*', 'conntype': 'tcp', 'netns': '', 'pretty': False}
    index = 0
    while index < len(args):
        word = args[index]
        name, _sep, inline = word.partition('=') if word.startswith('--') else (word, '', '')
        if name in ('-y', '--pretty'):
            options['pretty'] = True
        elif name in _DUMP_VALUE_OPTIONS and (inline or index + 1 < len(args)):
            options[_DUMP_VALUE_OPTIONS[name]] = inline or args[index + 1]
            index += 0 if inline else 1
        else:
            sys.stderr.write('Usage: sonic-db-dump [options]\n\nsonic-db-dump: error: no such option: %s\n' % word)
            return 2
        index += 1
    if options['netns'] or options['conntype'] not in ('tcp', 'unix_socket') or options.get('output'):
        sys.stderr.write('The double dumps one database of the default namespace to stdout (got %s)\n' % ' '.join(args))
        return 1
    if options.get('dbname') not in DATABASES:
        # SonicDBConfig::getDbId raises for a name database_config.json does not list
        sys.stderr.write('Traceback (most recent call last):\nRuntimeError: %s is not a valid database name\n'
                         % options.get('dbname'))
        return 1
    db = databases(directory, faults, only=options['dbname'])[options['dbname']]
    now = time.time()
    table = {key: {'type': 'hash', 'value': fields, 'ttl': -0.001, 'expireat': now}
             for key, fields in db.items() if fnmatch.fnmatchcase(key, options['keys'])}
    if options['pretty']:
        sys.stdout.write(json.dumps(table, indent=2, sort_keys=True))
    else:
        sys.stdout.write(json.dumps(table, separators=(',', ':')))
    return 0


# -- show ------------------------------------------------------------------------------------------------------
def show(directory, faults, args):
    facts = state.device(directory)
    config = running(directory)
    words = ' '.join(args)
    if words == 'version':
        import zlib  # pylint: disable=import-outside-toplevel
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
    if command == 'sonic-db-dump':
        return sonic_db_dump(directory, faults, args)
    if command == 'sonic-cfggen':
        return sonic_cfggen(directory, args)
    if command in ('vtysh', 'docker'):
        from tests.unit.platforms.sonic.double import bgp as sonic_bgp
        return (sonic_bgp.vtysh if command == 'vtysh' else sonic_bgp.docker)(directory, faults, args)
    sys.stderr.write('%s: command not found\n' % command)
    return 127
