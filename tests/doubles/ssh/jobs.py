"""`systemd-run --on-active=...` and `systemctl stop|list-timers`: the transient timers a switch's systemd offers.

A SONiC deploy arms its confirm timer this way (`systemd-run --on-active=300 --unit=NAME config rollback CP`)
and cancels it on confirm (`systemctl stop NAME.timer`), asking first whether it still runs (`systemctl is-active
NAME.timer`: `active`, exit 0 / `inactive`, exit 3); systemd.time(7) spans (`300`, `300s`, `5min`).
Documented in systemd-run(1) and systemctl(1).
"""

from __future__ import annotations

import re
import shutil
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


def main(directory, command, args):
    if command == 'systemd-run':
        unit, delay, rest = None, None, list(args)
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
        if delay is None or not rest:
            sys.stderr.write('The double supports only: systemd-run --on-active=SPAN [--unit=NAME] COMMAND...\n')
            return 1
        unit = unit or 'run-double-%d' % len(state.jobs(directory))
        state.schedule(directory, unit, delay, rest)
        sys.stdout.write('Running timer as unit: %s.timer\nWill run service as unit: %s.service\n' % (unit, unit))
        return 0
    if args[:1] == ['stop'] and len(args) >= 2:
        for unit in args[1:]:
            state.cancel(directory, unit)
        return 0
    if args[:1] in (['restart'], ['start'], ['reload']) and len(args) == 2 and args[1] in ('bgp', 'bgp.service') \
            and state.device(directory).get('kind') == 'sonic':
        # The bgp container starts FRR from its saved configuration (/etc/sonic/frr/frr.conf).
        with state.locked(directory):
            shutil.copyfile(state.path(directory, 'etc', 'sonic', 'frr', 'frr.conf'), state.path(directory, 'frr', 'running.conf'))
        return 0
    if args[:1] == ['is-active'] and len(args) == 2 and args[1].endswith('.timer'):
        # a transient timer is active until it fires or is stopped
        active = any(job['unit'] == args[1][:-len('.timer')] for job in state.jobs(directory))
        sys.stdout.write('active\n' if active else 'inactive\n')
        return 0 if active else 3
    if args[:1] == ['is-active'] and len(args) == 2:
        sys.stdout.write('active\n' if args[1] in ('bgp', 'bgp.service', 'swss', 'syncd', 'nvued', 'frr') else 'inactive\n')
        return 0 if args[1] in ('bgp', 'bgp.service', 'swss', 'syncd', 'nvued', 'frr') else 3
    if args[:1] == ['list-timers']:
        for job in state.jobs(directory):
            sys.stdout.write('%s.timer %s\n' % (job['unit'], ' '.join(job['argv'])))
        return 0
    sys.stderr.write('The double supports only: systemctl stop UNIT..., list-timers, is-active UNIT, restart bgp (SONiC)\n')
    return 1
