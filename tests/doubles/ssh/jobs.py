"""`systemd-run --on-active=...` and `systemctl`: the transient timers a switch's systemd offers, with systemd's
semantics (systemd-run(1), systemctl(1), systemd.timer(5)):

- `systemd-run --unit=NAME [--collect] CMD...` runs CMD now as the transient service NAME.service;
- `systemd-run --on-active=SPAN --unit=NAME [--collect] CMD...` creates NAME.timer and NAME.service; a name whose
  timer or service is still loaded is refused ("Unit NAME.timer was already loaded or has a fragment file.");
- the timer is `active` while it waits, while its service runs, and after it elapsed (RemainAfterElapse= defaults to
  yes): `systemctl is-active NAME.timer` cannot tell a timer that will fire from one whose service is running or done;
- stopping the timer does not stop a service that already runs; `systemctl is-active NAME.service` is `active` while
  it runs, `failed` after a failure: a failed service stays loaded until `systemctl reset-failed`, or is unloaded at
  once with `--collect` ("Unload the transient unit after it completed, even if it failed");
- `systemctl show UNIT -p ActiveState -p SubState -p Result`, `systemctl list-timers`, `systemctl restart bgp`
  (SONiC: the bgp container restarts: sonic_bgp.start).
Spans as systemd.time(7) (`300`, `300s`, `5min`).
"""

from __future__ import annotations

import os
import re
import signal
import sys

from tests.doubles.ssh import state

SPAN = re.compile(r'^(\d+)\s*(s|sec|second|seconds|m|min|minute|minutes|h|hr|hour|hours)?$')
FACTOR = {None: 1, 's': 1, 'sec': 1, 'second': 1, 'seconds': 1, 'm': 60, 'min': 60, 'minute': 60, 'minutes': 60,
          'h': 3600, 'hr': 3600, 'hour': 3600, 'hours': 3600}


def seconds(span):
    match = SPAN.match(span.strip())
    if not match:
        raise ValueError('Failed to parse timespan: %s' % span)
    return int(match.group(1)) * FACTOR[match.group(2)]


def _states(record, kind):
    """(ActiveState, SubState, Result) of NAME.timer or NAME.service."""
    if not record:
        return 'inactive', 'dead', 'success'
    if kind == 'timer':
        sub = record.get('timer')
        return ('active', sub, 'success') if sub in state.TIMER_ACTIVE else ('inactive', 'dead', 'success')
    service = record.get('service')
    result = record.get('result') or 'success'
    if service == 'active':
        return 'active', 'running', 'success'
    if service == 'failed':
        return 'failed', 'failed', result
    return 'inactive', 'dead', result


def _run(directory, args):
    unit, delay, collect, rest = None, None, False, list(args)
    while rest and rest[0].startswith('-'):
        option = rest.pop(0)
        value = None
        if '=' in option:
            option, value = option.split('=', 1)
        elif option in ('--on-active', '--unit', '-u') and rest:
            value = rest.pop(0)
        if option == '--on-active':
            try:
                delay = seconds(value)
            except ValueError as exc:
                sys.stderr.write('%s\n' % exc)
                return 1
        elif option in ('--unit', '-u'):
            unit = value
        elif option in ('--collect', '-G'):
            collect = True
    if not rest:
        sys.stderr.write('The double supports only: systemd-run [--on-active=SPAN] [--unit=NAME] [--collect] COMMAND...\n')
        return 1
    unit = unit or 'run-double-%d' % len(state.jobs(directory))
    with state.locked(directory):
        if state.loaded(state.job(directory, unit)):
            sys.stderr.write('Failed to start transient timer unit: Unit %s.timer was already loaded or has a fragment '
                             'file.\n' % unit)
            return 1
        state.schedule(directory, unit, delay or 0, rest, collect=collect, timer=delay is not None)
    if delay is None:  # a transient service, started now
        sys.stdout.write('Running as unit: %s.service\n' % unit)
        return 0
    sys.stdout.write('Running timer as unit: %s.timer\nWill run service as unit: %s.service\n' % (unit, unit))
    return 0


def _stop(directory, names):
    with state.locked(directory):
        for name in names:
            record = state.job(directory, name)
            if not record:
                continue
            if name.endswith('.service') and record.get('service') == 'active' and record.get('pid'):
                try:
                    os.kill(record['pid'], signal.SIGTERM)
                except ProcessLookupError:
                    pass
                continue
            if not name.endswith('.service'):
                state.cancel(directory, name)


def main(directory, command, args):
    if command == 'systemd-run':
        return _run(directory, args)
    if args[:1] == ['stop'] and len(args) >= 2:
        _stop(directory, args[1:])
        return 0
    if args[:1] in (['restart'], ['start'], ['reload']) and len(args) == 2 and args[1] in ('bgp', 'bgp.service') \
            and state.device(directory).get('kind') == 'sonic':
        from tests.unit.platforms.sonic.double import bgp as sonic_bgp
        sonic_bgp.start(directory)
        return 0
    if args[:1] == ['is-active'] and len(args) == 2 and args[1].endswith(('.timer', '.service')):
        kind = 'timer' if args[1].endswith('.timer') else 'service'
        active = _states(state.job(directory, args[1]), kind)[0]
        sys.stdout.write(active + '\n')
        return 0 if active == 'active' else 3
    if args[:1] == ['is-active'] and len(args) == 2:
        running = args[1] in ('bgp', 'bgp.service', 'swss', 'syncd', 'nvued', 'frr')
        if args[1] in ('swss', 'swss.service') and state.device(directory).get('kind') == 'sonic':
            from tests.unit.platforms.sonic.double import buffers as sonic_buffers
            running = sonic_buffers.swss_active(directory)  # stopped while a `config reload` runs
        sys.stdout.write('active\n' if running else 'inactive\n')
        return 0 if running else 3
    if args[:1] == ['show'] and len(args) >= 2:
        unit = args[1]
        kind = 'timer' if unit.endswith('.timer') else 'service'
        values = dict(zip(('ActiveState', 'SubState', 'Result'), _states(state.job(directory, unit), kind)))
        wanted = [args[index + 1] for index, item in enumerate(args) if item == '-p' and index + 1 < len(args)]
        wanted = [name for item in wanted for name in item.split(',')] or list(values)
        sys.stdout.write(''.join('%s=%s\n' % (name, values.get(name, '')) for name in wanted))
        return 0
    if args[:1] == ['reset-failed']:
        with state.locked(directory):
            for record in state.jobs(directory):
                if (len(args) == 1 or state.unit_name(args[1]) == record['unit']) and record.get('service') == 'failed':
                    record['service'] = None
                    state.save_job(directory, record)
        return 0
    if args[:1] == ['list-timers']:
        for record in state.jobs(directory):
            if record.get('timer') == 'waiting':
                sys.stdout.write('%s.timer %s\n' % (record['unit'], ' '.join(record['argv'])))
        return 0
    sys.stderr.write('The double supports only: systemctl stop|is-active|show|reset-failed UNIT, list-timers, restart '
                     'bgp (SONiC)\n')
    return 1
