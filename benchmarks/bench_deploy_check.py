#!/usr/bin/env python
"""`--check --diff` of every switch of the 16,384-GPU fabric, measured against that many emulated switches.

    python benchmarks/bench_deploy_check.py                                   # the 16k fabric: 1,280 switches
    python benchmarks/bench_deploy_check.py --fleet-servers 256 --concurrency 32
    python benchmarks/bench_deploy_check.py --parts transport --fleet-servers 256

- `playbook`: the fleet of doubles of bench_validate.py --parts fleet (the 16k fabric's shape with `--fleet-servers`
  GPU servers: EOS and SONiC leaves, NVUE spines, SONiC super-spines, every switch running its rendered
  configuration), playbooks/render.yml once, then `ansible-playbook playbooks/switches.yml --check --diff -e
  switch_deploy_runner=fleet` on every switch. Reported: wall, CPU and peak RSS of ansible-playbook and its workers
  (per switch), the fleet check's own figures, each switch's outcome, the doubles' CPU, the load. Target (1,280
  switches): <= 600 s wall on this machine.
- `transport`: what the fleet check's choice of transport costs the controller. The SONiC and NVUE switches' check
  commands and uploads (recorded from the drivers on one switch of each) are replayed on `--transport-switches`
  switches of each kind at `--concurrency` at once, (a) as the fleet check runs them, paramiko exec channels and
  SFTP in a thread pool, (b) the same from one asyncio event loop with asyncssh (the fleet reader's library).
  Reported: wall and controller CPU per switch for each.
`--keep-fleet DIR` starts the fleet in DIR-<servers> and leaves it running for the next run (its devices boot once).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402  pylint: disable=wrong-import-position
import bench_validate  # noqa: E402  pylint: disable=wrong-import-position

TARGET_WALL_S = 600.0  # issue 41: --check --diff of every switch of the 16k fabric
OUTCOMES = re.compile(r'"msg": "((?:[a-z_]+: [a-z0-9, ]+(?:; )?)+)"')
CHECKED = re.compile(r'Checked (\d+) switches from this controller in ([\d.]+) s \(([\d.]+) CPU-s\), (\d+) at once')


def deploy_intent(servers):
    """bench_validate.fleet_intent(servers) with the accounts every SONiC and NVUE switch comes with (admin, cumulus)
    in management.users: a deploy refuses a switch whose vendor default account keeps its default password."""
    intent = _validate_intent(servers)
    intent['management']['users'] = [{'name': 'admin', 'role': 'admin'}, {'name': 'cumulus', 'role': 'admin'}]
    return intent


_validate_intent = bench_validate.fleet_intent


def fleet_up(servers, keep, prefix):
    """bench_validate.fleet_up of deploy_intent(servers)."""
    bench_validate.fleet_intent = deploy_intent
    try:
        return bench_validate.fleet_up(servers, keep, prefix)
    finally:
        bench_validate.fleet_intent = _validate_intent


def _env():
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(_common.ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.default', ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    return env


def _ansible_playbook(name, inventories, extra=()):
    argv = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'),
            os.path.join(_common.ROOT, 'playbooks', name)]
    for inventory in inventories:
        argv += ['-i', inventory]
    return argv + list(extra)


def run_playbook(servers, concurrency, quiet, keep=None, timeout=300):
    """switches.yml --check --diff with the fleet runner against the fleet of bench_validate.fleet_intent(servers)."""
    work, inventory, fleet, up = fleet_up(servers, keep, 'aifabric-bench-deploy-check-')
    inventories = [inventory, os.path.join(fleet.state_dir, 'inventory.yml')]
    try:
        with open(os.path.join(work, 'fleet', 'fleetd.json'), encoding='utf-8') as handle:
            pids = list(json.load(handle)['pids'].values())
        started = time.perf_counter()
        rendered, _wall, _cpu, _rss = _common.measured(_ansible_playbook('render.yml', inventories), _env(), work)
        if rendered.returncode != 0:
            raise RuntimeError('render.yml failed: %s' % (rendered.stdout + rendered.stderr)[-3000:])
        render_s = time.perf_counter() - started
        _common.settle()
        load_before = os.getloadavg()
        doubles_before = bench_validate._process_cpu(pids)  # pylint: disable=protected-access
        proc, wall, cpu, peak = _common.measured(_ansible_playbook('switches.yml', inventories, [
            '--check', '--diff', '-e', json.dumps({'switch_deploy_runner': 'fleet',
                                                   'switch_deploy_fleet_concurrency': concurrency,
                                                   'switch_deploy_fleet_timeout': timeout})]), _env(), work)
        doubles_cpu = bench_validate._process_cpu(pids) - doubles_before  # pylint: disable=protected-access
        load_after = os.getloadavg()
    finally:
        bench_validate.fleet_down(fleet, keep)
    found = OUTCOMES.findall(proc.stdout)
    outcomes = {}
    for part in (found[-1].split('; ') if found else ()):
        outcome, names = part.split(': ', 1)
        outcomes[outcome] = len(names.split(','))
    checked = CHECKED.search(proc.stdout)
    failing = re.search(r'"msg": "\d+ switch\(es\) could not be checked: (.*?)\. Would change: ', proc.stdout)
    errors = failing.group(1).split(' | ') if failing else []
    switches = sum(1 for endpoint in fleet.endpoints.values() if endpoint['kind'] != 'linux')
    result = {'servers': servers, 'switches': switches, 'concurrency': concurrency, 'rc': proc.returncode,
              'fleet_up_s': up, 'render_s': render_s, 'wall': wall, 'cpu': cpu, 'peak_rss_children': peak,
              'cpu_per_switch': cpu / switches, 'doubles_cpu': doubles_cpu, 'load_before': load_before,
              'load_after': load_after, 'outcomes': outcomes,
              'check': {'switches': int(checked.group(1)), 'seconds': float(checked.group(2)),
                        'cpu': float(checked.group(3))} if checked else None,
              'errors': errors[:20],
              'target_wall_s': TARGET_WALL_S, 'pass': proc.returncode in (0, 2) and wall <= TARGET_WALL_S}
    if not checked:
        raise RuntimeError('switches.yml --check did not report its figures (rc %d): %s'
                           % (proc.returncode, (proc.stdout + proc.stderr)[-4000:]))
    if not quiet:
        print('  --check --diff of %d switches (%d GPU servers' "' fabric), fleet runner, %d at once: %.1f s wall, "
              '%.1f CPU-s controller (%.0f ms per switch), peak RSS %d MiB; the check itself %.1f s / %.1f CPU-s; '
              'doubles %.1f CPU-s; outcomes %s; load %.1f -> %.1f; fleet up in %.0f s, render %.0f s' % (
                  switches, servers, concurrency, wall, cpu, 1000 * cpu / switches, peak // 2 ** 20,
                  result['check']['seconds'], result['check']['cpu'], doubles_cpu,
                  ', '.join('%s %d' % item for item in sorted(outcomes.items())), load_before[0], load_after[0], up,
                  render_s))
    return result


# --------------------------------------------------------------------------- transport: threads vs asyncio
def _drivers(design, hosts, names):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract  # pylint: disable=import-outside-toplevel
    return [(name, contract.driver_for(design.nodes[name].platform, name, hosts[name])) for name in names]


class _Recorder:
    """Stands in for an ExecShell and records what a driver sends (to replay it elsewhere), the work directory the
    session made as {workdir}."""

    def __init__(self, shell, steps):
        self.shell, self.steps = shell, steps
        self.settings, self.broken = shell.settings, None
        self.workdir = None

    def _general(self, text):
        return text.replace(self.workdir, '{workdir}') if self.workdir else text

    def run(self, command, step, timeout=120, check=True):
        self.steps.append(('run', self._general(command)))
        found = self.shell.run(command, step, timeout=timeout, check=check)
        if self.workdir is None and command.startswith('mktemp'):
            self.workdir = found[1].strip().splitlines()[-1]
        return found

    def upload(self, text, path, step):
        self.steps.append(('upload', self._general(path), text))
        return self.shell.upload(text, path, step)


def recorded_steps(driver, files):
    """The commands and uploads of one switch's check (contract.push in check mode through ExecShell)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract  # pylint: disable=import-outside-toplevel
    steps = []
    opened = contract.exec_session

    class Recording:
        def __init__(self, settings, device_type='linux'):
            self.context = opened(settings, device_type)

        def __enter__(self):
            return _Recorder(self.context.__enter__(), steps)

        def __exit__(self, *exc):
            return self.context.__exit__(*exc)
    driver.exec_channels = True
    contract.exec_session = Recording
    try:
        contract.push(driver, files, check_mode=True)
    finally:
        contract.exec_session = opened
    return steps


def _replay_threads(settings_list, steps, concurrency):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport  # pylint: disable=import-outside-toplevel

    def one(settings):
        with transport.exec_session(settings) as shell:
            workdir = None
            for step in steps:
                if step[0] == 'run':
                    command = step[1] if workdir is None else step[1].replace('{workdir}', workdir)
                    output = shell.run(command, 'replay', check=False)[1]
                    if workdir is None and command.startswith('mktemp'):
                        workdir = output.strip().splitlines()[-1]
                else:
                    shell.upload(step[2], step[1].replace('{workdir}', workdir or '/tmp'), 'replay')
    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, settings_list))


async def _replay_asyncio(settings_list, steps, concurrency):
    import asyncssh  # pylint: disable=import-outside-toplevel
    gate = asyncio.Semaphore(concurrency)
    # read once, as the threads' ExecShell reads it (asyncssh would parse the file on every connection)
    known = asyncssh.read_known_hosts(settings_list[0].known_hosts) if settings_list else None

    async def one(settings):
        async with gate:
            async with asyncssh.connect(settings.host, port=settings.port, username=settings.username,
                                        client_keys=[settings.key_file], known_hosts=known) as conn:
                workdir = None
                async with conn.start_sftp_client() as sftp:
                    for step in steps:
                        if step[0] == 'run':
                            command = step[1] if workdir is None else step[1].replace('{workdir}', workdir)
                            found = await conn.run('export PAGER=cat SYSTEMD_PAGER=cat LANG=C; ' + command,
                                                   check=False)
                            if workdir is None and command.startswith('mktemp'):
                                workdir = str(found.stdout).strip().splitlines()[-1]
                        else:
                            async with sftp.open(step[1].replace('{workdir}', workdir or '/tmp'), 'w') as handle:
                                await handle.write(step[2])
    await asyncio.gather(*(one(settings) for settings in settings_list))


def run_transport(servers, count, concurrency, quiet, keep=None):
    """Replay the SONiC and NVUE checks' commands on `count` switches of each kind, threads+paramiko vs asyncssh."""
    import yaml  # pylint: disable=import-outside-toplevel
    work, inventory, fleet, _up = fleet_up(servers, keep, 'aifabric-bench-deploy-transport-')
    rows = []
    try:
        from tests.doubles import rendered  # pylint: disable=import-outside-toplevel
        from tests.doubles.fleet import load_design  # pylint: disable=import-outside-toplevel
        from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import transport  # pylint: disable=import-outside-toplevel
        design = load_design(os.path.join(inventory, 'intent.yml'))
        with open(os.path.join(fleet.state_dir, 'inventory.yml'), encoding='utf-8') as handle:
            hosts = yaml.safe_load(handle)['all']['hosts']
        for kind in ('sonic', 'nvue'):
            names = sorted(name for name, endpoint in fleet.endpoints.items() if endpoint['kind'] == kind)[:count]
            (name, driver), = _drivers(design, hosts, names[:1])
            steps = recorded_steps(driver, rendered.render(design, name))
            settings = [transport.ShellSettings.from_host_vars(item, hosts[item]) for item in names]
            row = {'kind': kind, 'switches': len(names), 'commands': sum(1 for step in steps if step[0] == 'run'),
                   'uploads': sum(1 for step in steps if step[0] == 'upload'), 'concurrency': concurrency}
            for label, replay in (('threads_paramiko', lambda: _replay_threads(settings, steps, concurrency)),
                                  ('asyncio_asyncssh', lambda: asyncio.run(_replay_asyncio(settings, steps,
                                                                                           concurrency)))):
                load = os.getloadavg()[0]
                started, cpu = time.perf_counter(), time.process_time()
                replay()
                wall, used = time.perf_counter() - started, time.process_time() - cpu
                row[label] = {'wall': wall, 'cpu': used, 'cpu_per_switch': used / len(names), 'load': load}
            rows.append(row)
            if not quiet:
                print('  %s: %d switches, %d commands + %d uploads each, %d at once: threads+paramiko %.1f s wall, '
                      '%.0f ms CPU per switch (load %.1f); asyncio+asyncssh %.1f s wall, %.0f ms CPU per switch '
                      '(load %.1f)' % (kind, len(names), row['commands'], row['uploads'], concurrency,
                                       row['threads_paramiko']['wall'], 1000 * row['threads_paramiko']['cpu_per_switch'],
                                       row['threads_paramiko']['load'], row['asyncio_asyncssh']['wall'],
                                       1000 * row['asyncio_asyncssh']['cpu_per_switch'],
                                       row['asyncio_asyncssh']['load']))
    finally:
        bench_validate.fleet_down(fleet, keep)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--parts', default='playbook', help='comma-separated: playbook,transport')
    parser.add_argument('--fleet-servers', type=int, default=2048, help='GPU servers of the fleet fabric (2,048: the '
                        '16k fabric, 1,280 switches)')
    parser.add_argument('--concurrency', type=int, default=32, help='switches checked at once')
    parser.add_argument('--timeout', type=int, default=300, help='seconds each switch may take')
    parser.add_argument('--transport-switches', type=int, default=64, help='switches of each kind of --parts transport')
    parser.add_argument('--keep-fleet', help='start the fleet in DIR-<servers> and leave it running')
    parser.add_argument('--quiet', action='store_true')
    args = parser.parse_args(argv)
    sys.path.insert(0, _common.ROOT)
    _common.import_path()
    keep = args.keep_fleet and '%s-%d' % (args.keep_fleet, args.fleet_servers)
    data = {'machine': _common.machine(), 'date': time.strftime('%Y-%m-%d', time.gmtime())}
    parts = args.parts.split(',')
    if 'transport' in parts:
        data['transport'] = run_transport(args.fleet_servers, args.transport_switches, args.concurrency, args.quiet,
                                          keep)
    if 'playbook' in parts:
        data['playbook'] = run_playbook(args.fleet_servers, args.concurrency, args.quiet, keep, args.timeout)
    print('Results: %s' % _common.save_result('deploy_check.json', data))
    return 0 if data.get('playbook', {}).get('pass', True) else 1


if __name__ == '__main__':
    sys.exit(main())
