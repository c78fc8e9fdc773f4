"""The on-disk state of an SSH double (one directory per device), shared by its commands and its timer thread.

Commands run as separate processes, so every read-modify-write holds the device lock (fcntl on D/lock).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SONIC_RELEASE = '202311'
CUMULUS_RELEASE = '5.14.0'


def sonic_ports(count=128, step=4):
    """Front-panel names of a 64 x 800G switch in SONiC's lane-indexed naming (Ethernet0, Ethernet4, ...)."""
    return ['Ethernet%d' % (index * step) for index in range(count)]


def nvue_ports(count=64):
    return ['swp%d' % index for index in range(1, count + 1)] + \
        ['swp%ds%d' % (index, lane) for index in range(1, count + 1) for lane in range(8)]


def path(directory, *parts):
    return os.path.join(directory, *parts)


@contextlib.contextmanager
def locked(directory):
    with open(path(directory, 'lock'), 'a', encoding='utf-8') as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_json(file_path, default=None):
    try:
        with open(file_path, encoding='utf-8') as handle:
            return json.load(handle)
    except FileNotFoundError:
        return default


def write_json(file_path, data, indent=4):
    os.makedirs(os.path.dirname(file_path), exist_ok=True)
    # one temporary file per writer: sessions of one switch run commands in parallel (a validation reads with 8)
    tmp = '%s.%d.%d.tmp' % (file_path, os.getpid(), threading.get_ident())
    with open(tmp, 'w', encoding='utf-8') as handle:
        json.dump(data, handle, indent=indent, sort_keys=True)
        handle.write('\n')
    os.replace(tmp, file_path)


def device(directory):
    return read_json(path(directory, 'device.json'), {})


def init_device(directory, facts):
    """Write device.json and the factory state once (a restarted double keeps its saved state)."""
    facts = dict(facts)
    kind = facts['kind']
    if kind == 'sonic':
        facts.setdefault('release', SONIC_RELEASE)
        facts.setdefault('hwsku', 'Arista-7060X6-64PE-C256S2')
        facts.setdefault('platform', 'x86_64-arista_7060x6_64pe')
        facts.setdefault('ports', sonic_ports())
    else:
        facts.setdefault('release', CUMULUS_RELEASE)
        facts.setdefault('ports', nvue_ports())
    facts.setdefault('world', {})
    write_json(path(directory, 'device.json'), facts)
    if kind == 'sonic' and not os.path.exists(path(directory, 'db', 'CONFIG_DB.json')):
        from tests.unit.platforms.sonic.double import shell as sonic
        sonic.factory(directory, facts)
    if kind == 'nvue' and not os.path.exists(path(directory, 'nvue', 'revisions.json')):
        from tests.unit.platforms.nvue.double import shell as nvue
        nvue.factory(directory, facts)


def first_seen(directory, keys):
    """When each BGP peer key first appeared in the configuration (sessions come up some time after)."""
    file_path = path(directory, 'bgp_first_seen.json')
    seen = read_json(file_path, {})
    now = time.time()
    updated = {key: seen.get(key, now) for key in keys}
    if updated != seen:
        write_json(file_path, updated)
    return updated


# -- timers: transient units (systemd-run) and NVUE's confirm rollback ----------------------------------------
# One record per transient unit name: its timer (waiting, running while its service runs, elapsed after it: systemd
# keeps an elapsed timer loaded, RemainAfterElapse=yes by default, systemd.timer(5); None once stopped) and its
# service (inactive, active, failed: a failed unit stays loaded unless systemd-run --collect, systemd-run(1)).
TIMER_ACTIVE = ('waiting', 'running', 'elapsed')


def _job_path(directory, unit):
    return path(directory, 'jobs', unit + '.json')


def unit_name(unit):
    for suffix in ('.timer', '.service'):
        if unit.endswith(suffix):
            return unit[:-len(suffix)]
    return unit


def job(directory, unit):
    return read_json(_job_path(directory, unit_name(unit)))


def loaded(record):
    return bool(record) and (record.get('timer') in TIMER_ACTIVE or record.get('service') in ('active', 'failed'))


def save_job(directory, record):
    """Keep a record while any of its units is loaded."""
    if loaded(record):
        write_json(_job_path(directory, record['unit']), record)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.remove(_job_path(directory, record['unit']))


def schedule(directory, unit, seconds, argv, collect=False, timer=True):
    """A transient unit: with `timer`, NAME.timer that starts NAME.service in `seconds`; without, NAME.service that
    starts now (systemd-run without a timer option)."""
    save_job(directory, {'unit': unit, 'due': time.time() + seconds, 'argv': argv, 'collect': collect,
                         'timer': 'waiting', 'service': 'inactive', 'result': None, 'pid': None, 'timer_unit': timer})


def cancel(directory, unit):
    """Stop a unit's timer (a service that runs is left to finish, a failed one stays loaded)."""
    record = job(directory, unit)
    if not record:
        return False
    record['timer'] = None
    save_job(directory, record)
    return True


def forget_jobs(directory):
    """Every transient unit gone (a switch back to its factory state)."""
    folder = path(directory, 'jobs')
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path(folder, name))


def jobs(directory):
    folder = path(directory, 'jobs')
    if not os.path.isdir(folder):
        return []
    return [record for record in (read_json(path(folder, name)) for name in sorted(os.listdir(folder))
                                  if name.endswith('.json')) if record]


def run_due_timers(directory, inside=None, namespace_pid=None, python=None, python_path=None):
    """Called every 100 ms by the double's timer thread: starts the jobs that are due, each waited for by a thread of
    its own (a long transient service does not hold back a timer, as systemd runs units side by side). Jobs run inside
    the device's mount namespace, with the interpreter and its PYTHONPATH (the checkout, site-packages) as the switch
    sees them."""
    now = time.time()
    for record in jobs(directory):
        if record.get('timer') != 'waiting' or record['due'] > now:
            continue
        where = inside or directory
        env = dict(os.environ, DOUBLE_STATE=where, PYTHONPATH=python_path or ROOT, DOUBLE_PYTHON=python or interpreter(),
                   DOUBLE_PRIVILEGED='1')
        env['PATH'] = path(where, 'bin') + ':' + env.get('PATH', '/usr/bin:/bin')
        import subprocess  # pylint: disable=import-outside-toplevel  # the timer thread's; not every command's
        argv = ['nsenter', '--target', str(namespace_pid), '--mount', '--'] + record['argv'] if namespace_pid else record['argv']
        log = open(path(directory, 'jobs.log'), 'a', encoding='utf-8')  # pylint: disable=consider-using-with
        log.write('%s run %s: %s\n' % (time.ctime(), record['unit'], ' '.join(record['argv'])))
        log.flush()
        process = subprocess.Popen(argv, env=env, stdout=log, stderr=log, cwd='/')  # pylint: disable=consider-using-with
        record.update(timer='running' if record.get('timer_unit', True) else None, service='active', pid=process.pid)
        save_job(directory, record)
        threading.Thread(target=_finish, args=(directory, record['unit'], process, log), daemon=True).start()
    if device(directory).get('kind') == 'nvue':
        from tests.unit.platforms.nvue.double import shell as nvue
        nvue.expire_confirm(directory)


def _finish(directory, unit, process, log):
    code = process.wait()
    log.write('%s %s exited %d\n' % (time.ctime(), unit, code))
    log.close()
    with locked(directory):
        record = job(directory, unit)
        if not record:
            return
        record.update(service='inactive' if code == 0 else 'failed', result='success' if code == 0 else 'exit-code',
                      pid=None)
        if record.get('timer') == 'running':
            record['timer'] = 'elapsed'
        if record['service'] == 'inactive' or record.get('collect'):
            record['service'] = None  # unloaded: an inactive unit always, a failed one with --collect
        save_job(directory, record)


def interpreter():
    return os.environ.get('DOUBLE_PYTHON', sys.executable)
