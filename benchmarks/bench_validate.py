#!/usr/bin/env python
"""Validation at fabric scale: the 16,384-GPU fabric checked against its design, and gathered validation on a
fleet of device doubles, extrapolated to that fabric.

    python benchmarks/bench_validate.py                                  # design (3 fresh processes), playbook, doubles
    python benchmarks/bench_validate.py --parts design --repeat 5
    python benchmarks/bench_validate.py --parts doubles --doubles-servers 32 --forks 20

- `design`: what aifabric.fabric.validate does with validate_gather=false, through the Python API in a fresh process:
  read the intent file, design the fabric, run the lossless checks on the rendered configuration of every switch and
  on every GPU server model (design phase), find the causes, build report.json / report.md / report.html and the
  Prometheus textfile. Targets: <= 30 s wall, <= 1 GiB peak RSS, report.json <= 20 MB.
- `playbook`: `ansible-playbook playbooks/validate.yml -i <gpu16k> -e validate_gather=false`, the same through the
  role: wall and CPU, the lines it prints (a summary, not one per device) and its exit code.
- `doubles`: the mixed EOS/SONiC/NVUE fabric of tests/doubles with `--doubles-servers` GPU servers (switch count
  follows), every double running its rendered configuration; `playbooks/validate.yml --limit switches` gathers and
  judges them (settle 0, one counter reading). Reported: wall, CPU of ansible-playbook and its workers, per-device
  cost (wall x forks / switches, CPU / switches), where it goes (gathering on the slowest device against judging on
  the controller), and the same extrapolated linearly to the 1,280 switches and 2,048 GPU servers of the 16k fabric.
- `fleet`: live validation at fabric size, measured, not extrapolated: the 16k fabric's shape with `--fleet-servers`
  GPU servers (2,048: 3,328 devices; EOS and SONiC leaves, NVUE spines, SONiC super-spines) served by the fleet of
  doubles (tests/doubles/fleetd) on this machine, every device running its rendered configuration; `playbooks/
  validate.yml` with the role's defaults (settling, two counter readings 10 s apart) reads and judges every switch
  and GPU server (`--readers fleet,per_host`), the RDMA NIC facts aside (`validate_rnic=false`: rnic_facts is an
  Ansible module, the per-host path; the checks that read them are skipped), 4 ping peers per rail. Reported: wall,
  CPU and peak RSS of ansible-playbook and its workers, the fleet reading's own figures, the doubles' CPU, the load.
  Targets (3,328 devices): <= 300 s wall, <= 1 GiB. `--keep-fleet DIR` leaves the fleet running for the next run.
  The configuration drift is off unless `--drift`: then render.yml runs first (not measured), the intent lists the
  accounts every SONiC and NVUE switch comes with (as bench_deploy_check.py's), the switches' drift is the fleet check
  of the deploy (one task) and the GPU servers' the host roles in check mode per host; the fleet check's own figures
  and config_drift per status are reported.
- `slices`: AWX job slicing on this machine: N slices (`--slices 1,2,4`) of validate.yml (validate_stage gather) run
  by ansible-runner at once against the fleet, then the judging job; per N the slowest slice's wall, the CPU per
  slice (what one execution node per slice spends) and the judging job.
- `anta`: ANTA side by side on EOS doubles: all-EOS fabrics of `--anta-servers` sizes served by the fleet, `anta nrfu`
  (its defaults, the catalog validate.yml writes) against validate.yml on the switches (one reading), per added switch.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402  pylint: disable=wrong-import-position

TARGETS = {'wall_s': 30.0, 'peak_rss': _common.GIB, 'report_json': 20 * 10 ** 6}
FLEET_TARGETS = {'wall_s': 300.0, 'peak_rss': _common.GIB}  # live validation of the 16k fabric (issue 41)
GPU16K = {'switches': 1280, 'hosts': 2048}


# --------------------------------------------------------------------------- design only, Python API
def child(args):
    """One design-only validation of `args.intent` into `args.out`, phase by phase."""
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import causes, prometheus, report
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    marks, started = [], (time.perf_counter(), time.process_time())

    def mark(name):
        marks.append((name, time.perf_counter(), time.process_time()))

    design = design_from_file(args.intent)
    mark('load and design')
    ctx = checks.Context(design, {}, {'lossless_phases': ('design',), 'devices': design.device_names()})
    results = checks.run(ctx, categories=('lossless',))
    mark('checks')
    found = causes.analyse(ctx, results)
    mark('causes')
    built = report.build(design, results, {'mode': 'design only (benchmark)'}, causes=found)
    mark('build')
    paths = report.write(design, built, args.out)
    mark('report files')
    paths['prometheus'] = prometheus.write(os.path.join(args.out, 'aifabric-%s.prom' % design.name), prometheus.build(
        design.name, results, built['summary'], time.time()))
    mark('prometheus')
    phases, last = {}, started
    for name, wall, cpu in marks:
        phases[name] = {'wall': wall - last[0], 'cpu': cpu - last[1]}
        last = (wall, cpu)
    _common.emit({'wall': last[0] - started[0], 'cpu': last[1] - started[1], 'phases': phases,
                  'peak_rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  'results': len(results), 'summary': built['summary'], 'devices': len(design.nodes),
                  'sizes': {kind: os.path.getsize(path) for kind, path in paths.items()}})


def run_design(inventory, repeat, quiet):
    runs = []
    for index in range(repeat):
        out = _common.scratch('aifabric-bench-validate-')
        load = os.getloadavg()[0]
        result = _common.run_child([os.path.abspath(__file__), '--child', '--intent', os.path.join(inventory, 'intent.yml'),
                                    '--out', out])
        result['load1'] = load
        runs.append(result)
        if not quiet:
            print('  design-only %d: %.1f s wall (%.1f s CPU), peak RSS %d MiB, report.json %.1f MB, %d results, '
                  'verdict %s, load %.1f' % (index + 1, result['wall'], result['cpu'], result['peak_rss'] // 2 ** 20,
                                             result['sizes']['json'] / 1e6, result['results'],
                                             result['summary']['verdict'], load))
    walls = _common.summarize([item['wall'] for item in runs])
    worst = {'peak_rss': max(item['peak_rss'] for item in runs), 'report_json': max(item['sizes']['json'] for item in runs)}
    cpu = _common.summarize([item['cpu'] for item in runs])
    within = worst['peak_rss'] <= TARGETS['peak_rss'] and worst['report_json'] <= TARGETS['report_json']
    # one process on one core: on an idle machine its wall time is its CPU time; a wall-time failure with the CPU
    # time within the target is a busy machine, not a slow program (as run_all.py says)
    return {'runs': runs, 'wall': walls, 'cpu': cpu, 'pass': walls['median'] <= TARGETS['wall_s'] and within,
            'cpu_within_target': cpu['median'] <= TARGETS['wall_s'] and within, **worst}


# --------------------------------------------------------------------------- design only, through the role
def _env():
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(_common.ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='ansible.builtin.default', ANSIBLE_PYTHON_INTERPRETER=sys.executable,
               ANSIBLE_HOST_KEY_CHECKING='False')
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    return env


def _playbook(inventories, extra, cwd, forks=None, limit=None, playbook='validate.yml'):
    env = _env()
    argv = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'),
            os.path.join(_common.ROOT, 'playbooks', playbook), '-e', json.dumps(extra)]
    for inventory in inventories:
        argv += ['-i', inventory]
    if forks:
        argv += ['--forks', str(forks)]
    if limit:
        argv += ['--limit', limit]
    # A wrapper process of its own runs it, so that CPU and peak RSS are those of ansible-playbook and its workers
    # only (this process also reaps the fleet's servers).
    return _common.measured(argv, env, cwd)


def run_playbook(inventory, quiet):
    out = _common.scratch('aifabric-bench-validate-play-')
    _common.settle()
    proc, wall, cpu, peak = _playbook([inventory], {'validate_gather': False, 'validate_report_dir': out}, out)
    lines = proc.stdout.splitlines()
    per_device = [line for line in lines if re.match(r'^(ok|skipping|changed|fatal): \[', line)]
    result = {'rc': proc.returncode, 'wall': wall, 'cpu': cpu, 'peak_rss_children': peak, 'lines': len(lines),
              'host_lines': len(per_device), 'summary_line': next((line.strip() for line in lines
                                                                  if 'Validation ' in line), '')}
    if not quiet:
        print('  design-only through ansible-playbook: rc %d, %.1f s wall (%.1f s CPU incl. workers), %d lines printed '
              '(%d host lines)' % (proc.returncode, wall, cpu, len(lines), len(per_device)))
    return result


# --------------------------------------------------------------------------- gathered, on device doubles
def run_doubles(servers, forks, quiet):
    sys.path.insert(0, _common.ROOT)
    _common.import_path()
    from tests.doubles import faults, rendered  # pylint: disable=import-outside-toplevel
    from tests.doubles.fleet import Fleet, load_design  # pylint: disable=import-outside-toplevel
    work = _common.scratch('aifabric-bench-validate-doubles-')
    with open(os.path.join(_common.ROOT, 'tests', 'doubles', 'fixtures', 'mixed.yml'), encoding='utf-8') as handle:
        intent = yaml.safe_load(handle)
    intent['topology']['rail_optimized']['servers'] = servers
    inventory = os.path.join(work, 'inventory')
    os.makedirs(inventory)
    with open(os.path.join(inventory, 'intent.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(intent, handle, sort_keys=False)
    with open(os.path.join(inventory, 'fabric.yml'), 'w', encoding='utf-8') as handle:
        handle.write('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    design = load_design(os.path.join(inventory, 'intent.yml'))
    fleet = Fleet(design, os.path.join(work, 'fleet'))
    started = time.perf_counter()
    rendered.stage(fleet, design)
    fleet.start()
    try:
        rendered.apply(fleet, design)
        for entry in fleet.entries:
            faults.write(fleet.state_dir_of(entry['name']), convergence_s=0)
        up = time.perf_counter() - started
        switches = len(fleet.entries)
        report_dir = os.path.join(work, 'report')
        _common.settle()
        proc, wall, cpu, _peak = _playbook(
            [inventory, os.path.join(fleet.state_dir, 'inventory.yml')],
            {'validate_report_dir': report_dir, 'validate_settle_timeout': 0, 'validate_health_interval': 0,
             'validate_fail': False}, work, forks, limit='switches')  # the GPU servers have no double
    finally:
        fleet.stop()
    if proc.returncode != 0:
        raise RuntimeError('validate.yml on the doubles failed: %s' % proc.stdout[-3000:])
    with open(os.path.join(report_dir, 'report.json'), encoding='utf-8') as handle:
        built = json.load(handle)
    meta = built['meta']
    slowest = re.search(r'reading and settling ([\d.]+) s on the slowest device', meta.get('timing', ''))
    per_device_wall = wall * forks / switches
    per_device_cpu = cpu / switches
    devices = GPU16K['switches'] + GPU16K['hosts']
    result = {'servers': servers, 'switches': switches, 'forks': forks, 'fleet_up_s': up, 'wall': wall, 'cpu': cpu,
              'judging_s': meta.get('judging_seconds'), 'slowest_device_s': float(slowest.group(1)) if slowest else None,
              'per_device_wall_x_forks': per_device_wall, 'per_device_cpu': per_device_cpu,
              'summary': built['summary'],
              'gpu16k_estimate': {'devices': devices, 'wall_s': devices * per_device_wall / forks,
                                  'cpu_s': devices * per_device_cpu}}
    if not quiet:
        print('  gathered on %d doubles (forks %d): %.1f s wall, %.1f s CPU (ansible-playbook and workers), judging %.2f s, '
              'slowest device %.1f s; per device %.2f s wall x forks, %.2f s CPU -> 16k (%d devices): ~%.0f s wall, '
              '~%.0f s CPU at %d forks' % (switches, forks, wall, cpu, result['judging_s'] or 0,
                                           result['slowest_device_s'] or 0, per_device_wall, per_device_cpu, devices,
                                           result['gpu16k_estimate']['wall_s'], result['gpu16k_estimate']['cpu_s'], forks))
    return result


# --------------------------------------------------------------------------- gathered, on the fleet of doubles
def fleet_intent(servers):
    """The 16k benchmark fabric's shape with every NOS the fleet serves: EOS and SONiC leaves (every other leaf
    SONiC), NVUE spines, SONiC super-spines; `servers` GPU servers (2,048: 3,328 devices)."""
    sys.path.insert(0, _common.ROOT)
    _common.import_path()
    from tests.doubles.fleet import load_design  # pylint: disable=import-outside-toplevel
    intent = _common.gpu16k_intent('sonic', servers)
    intent['topology']['platform'] = {'leaf': 'eos', 'spine': 'nvue', 'super_spine': 'sonic'}
    work = _common.scratch('aifabric-bench-fleet-intent-')
    path = os.path.join(work, 'intent.yml')
    with open(path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(intent, handle, sort_keys=False)
    leaves = sorted(name for name, node in load_design(path).nodes.items() if node.role == 'leaf')
    intent['topology']['devices'] = {name: {'platform': 'sonic'} for name in leaves[1::2]}
    return intent


def rnic_checks():
    """The checks that read the RDMA NIC facts (rnic_facts is an Ansible module: the per-host path)."""
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks  # pylint: disable=import-outside-toplevel
    return sorted(name for name, check in checks.REGISTRY.items() if 'rnic' in (check.state or ()))


def _process_cpu(pids):
    total = 0.0
    for pid in pids:
        try:
            with open('/proc/%d/stat' % pid, encoding='utf-8') as handle:
                fields = handle.read().rsplit(')', 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
        except OSError:
            continue
    return total


def fleet_up(servers, keep, prefix):
    """(work directory, inventory directory, the running FleetD, seconds it took to come up) of the fleet of
    fleet_intent(servers): started in a scratch directory, or in `keep` and left running there for the next
    measurement (reused when a fleet of this script runs there), every device converged at once."""
    sys.path.insert(0, _common.ROOT)
    _common.import_path()
    from tests.doubles import faults  # pylint: disable=import-outside-toplevel
    from tests.doubles.fleetd.launch import FleetD, down  # pylint: disable=import-outside-toplevel
    work = os.path.abspath(keep) if keep else _common.scratch(prefix)
    inventory = os.path.join(work, 'inventory')
    os.makedirs(inventory, exist_ok=True)
    with open(os.path.join(inventory, 'intent.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(fleet_intent(servers), handle, sort_keys=False)
    with open(os.path.join(inventory, 'fabric.yml'), 'w', encoding='utf-8') as handle:
        handle.write('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
    started = time.perf_counter()
    fleet = FleetD(os.path.join(inventory, 'intent.yml'), os.path.join(work, 'fleet'), ttl=7200)
    if keep and fleet.serving():  # a fleet this script left running in --keep-fleet DIR (its devices booted already)
        with open(os.path.join(work, 'fleet', 'fleetd.json'), encoding='utf-8') as handle:
            fleet.endpoints = json.load(handle)['devices']
    else:
        if keep:
            down(fleet.state_dir, quiet=True)  # what is left of a kept fleet whose servers stopped in part
        fleet.start(timeout=3600)
    try:
        for name in fleet.endpoints:
            faults.write(fleet.device_dir(name), convergence_s=0)  # a converged fabric: every device settles at once
    except BaseException:
        fleet_down(fleet, keep)
        raise
    return work, inventory, fleet, time.perf_counter() - started


def fleet_down(fleet, keep):
    if keep:
        fleet.processes = {}  # left running for the next measurement (it stops by itself after its ttl)
    else:
        fleet.stop()


def run_fleet(servers, reader, concurrency, quiet, ping_peers=4, keep=None, drift=False):
    """validate.yml against the fleet of doubles of fleet_intent(servers): every switch and GPU server. With `drift`,
    the configuration drift too (render.yml first, not measured: the reviewed generation the deploy compares with)."""
    if drift:  # the accounts every SONiC and NVUE switch comes with listed: else the deploy refuses the switch
        import bench_deploy_check  # pylint: disable=import-outside-toplevel
        work, inventory, fleet, up = bench_deploy_check.fleet_up(servers, keep, 'aifabric-bench-fleet-drift-')
    else:
        work, inventory, fleet, up = fleet_up(servers, keep, 'aifabric-bench-fleet-')
    inventories = [inventory, os.path.join(fleet.state_dir, 'inventory.yml')]
    try:
        with open(os.path.join(work, 'fleet', 'fleetd.json'), encoding='utf-8') as handle:
            pids = list(json.load(handle)['pids'].values())
        report_dir = os.path.join(work, 'report-%s%s' % (reader, '-drift' if drift else ''))
        if drift:
            rendered = _playbook(inventories, {}, work, playbook='render.yml')[0]
            if rendered.returncode != 0:
                raise RuntimeError('render.yml failed: %s' % (rendered.stdout + rendered.stderr)[-3000:])
        _common.settle()
        load_before = os.getloadavg()
        doubles_before = _process_cpu(pids)
        proc, wall, cpu, peak = _playbook(
            inventories,
            {'validate_report_dir': report_dir, 'validate_reader': reader, 'validate_fleet_concurrency': concurrency,
             'validate_rnic': False, 'validate_skip_checks': rnic_checks(), 'validate_marking_probe': False,
             'validate_ping_peers': ping_peers, 'validate_fail': False,
             # --drift: the switches' drift from the fleet check of the deploy (with the fleet reader), the GPU
             # servers' through the host roles per host
             'validate_drift': drift}, work, forks=20)
        doubles_cpu = _process_cpu(pids) - doubles_before
        load_after = os.getloadavg()
    finally:
        fleet_down(fleet, keep)
    if proc.returncode != 0:
        raise RuntimeError('validate.yml on the fleet failed: %s' % proc.stdout[-3000:])
    with open(os.path.join(report_dir, 'report.json'), encoding='utf-8') as handle:
        built = json.load(handle)
    read = re.search(r'Read (\d+) of (\d+) devices from this controller in ([\d.]+) s \(([\d.]+) CPU-s'
                     r'(?:,\s+(\d+)\s+process)?', proc.stdout)
    drift_check = re.search(r'Checked the drift of (\d+) switches from this controller in ([\d.]+) s '
                            r'\(([\d.]+) CPU-s\): (\d+) would change, (\d+)\s+not checked', proc.stdout)
    # config_drift per status: every result, or at scale the failures and errors in full and the passes aggregated
    drift_statuses = {}
    for item in built['results']:
        if item['check'] == 'config_drift':
            drift_statuses[item['status']] = drift_statuses.get(item['status'], 0) + 1
    for entry in built.get('passed') or ():
        if entry['check'] == 'config_drift':
            drift_statuses['pass'] = drift_statuses.get('pass', 0) + entry['results']
    devices = len(fleet.endpoints)
    result = {'servers': servers, 'devices': devices, 'reader': reader, 'concurrency': concurrency, 'drift': drift,
              'drift_check': {'switches': int(drift_check.group(1)), 'seconds': float(drift_check.group(2)),
                              'cpu': float(drift_check.group(3)), 'would_change': int(drift_check.group(4)),
                              'not_checked': int(drift_check.group(5))} if drift_check else None,
              'drift_statuses': drift_statuses,
              'fleet_up_s': up, 'wall': wall, 'cpu': cpu, 'peak_rss_children': peak, 'doubles_cpu': doubles_cpu,
              'load_before': load_before, 'load_after': load_after, 'judging_s': built['meta'].get('judging_seconds'),
              'fleet_read': {'read': int(read.group(1)), 'devices': int(read.group(2)), 'seconds': float(read.group(3)),
                             'cpu': float(read.group(4)), 'processes': int(read.group(5) or 1)} if read else None,
              'summary': {key: built['summary'].get(key)
                          for key in ('verdict', 'checks_run', 'passed', 'failed', 'errors', 'not_applicable', 'causes',
                                      'results')},
              'cpu_per_device': cpu / devices, 'wall_per_device': wall / devices,
              'lines': len(proc.stdout.splitlines())}
    if not quiet:
        print('  fleet %d devices (%d servers), reader %s: %.1f s wall, %.1f CPU-s controller (%.1f ms per device), '
              '%.1f CPU-s doubles, peak RSS %d MiB; fleet reading %s; judging %.1f s; verdict %s, %d checks; load '
              '%.1f -> %.1f; fleet up in %.0f s' % (
                  devices, servers, reader, wall, cpu, 1000 * cpu / devices, doubles_cpu, peak // 2 ** 20,
                  '%(seconds).1f s / %(cpu).1f CPU-s in %(processes)d processes' % result['fleet_read'] if read else '-',
                  result['judging_s'] or 0,
                  result['summary']['verdict'], result['summary']['checks_run'] or 0, load_before[0], load_after[0], up))
        if drift:
            print('  drift: %s; config_drift %s' % (
                'fleet check of %(switches)d switches %(seconds).1f s / %(cpu).1f CPU-s, %(would_change)d would '
                'change, %(not_checked)d not checked' % result['drift_check'] if drift_check else 'no fleet check',
                result['drift_statuses']))
    return result


def run_slices(servers, counts, quiet, keep=None, ping_peers=4):
    """AWX job slicing on one machine: for each N of `counts`, N slices of validate.yml (validate_stage gather) run by
    ansible-runner at the same time against the fleet, then the judging job (validate_stage judge). Per N: the wall
    time of the slowest slice, the CPU of all slices together and per slice (what one execution node per slice
    would spend), the judging job's wall and CPU."""
    from tests.doubles.fleetd import slicing  # pylint: disable=import-outside-toplevel
    work, inventory, fleet, _up = fleet_up(servers, keep, 'aifabric-bench-slices-')
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(_common.ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    envvars = {name: env[name] for name in ('ANSIBLE_CONFIG', 'PATH', 'ANSIBLE_PYTHON_INTERPRETER', 'ANSIBLE_NOCOLOR')}
    envvars['ANSIBLE_INVENTORY_ENABLED'] = 'ansible.builtin.script'
    playbook = os.path.join(_common.ROOT, 'playbooks', 'validate.yml')
    results = []
    try:
        imported = slicing.imported_inventory([os.path.join(os.path.dirname(sys.executable), 'ansible-inventory')],
                                              [inventory, os.path.join(fleet.state_dir, 'inventory.yml')], env, work)
        for count in counts:
            run_dir = os.path.join(work, 'slices-%d-%d' % (count, int(time.time())))
            common = {'validate_rnic': False, 'validate_skip_checks': rnic_checks(), 'validate_marking_probe': False,
                      'validate_ping_peers': ping_peers, 'validate_fail': False,
                      'validate_gathered_dir': os.path.join(run_dir, 'gathered'),
                      'validate_report_dir': os.path.join(run_dir, 'report')}
            _common.settle()
            load = os.getloadavg()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            slices = slicing.run_jobs(playbook, [slicing.slice_inventory(imported, number, count)
                                                 for number in range(1, count + 1)],
                                      dict(common, validate_stage='gather'), os.path.join(run_dir, 'slices'), envvars)
            middle = resource.getrusage(resource.RUSAGE_CHILDREN)
            (judge, judge_wall), = slicing.run_jobs(playbook, [imported], dict(common, validate_stage='judge'),
                                                    os.path.join(run_dir, 'judge'), envvars)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            failed = [runner.rc for runner, _wall in slices if runner.rc != 0] + ([judge.rc] if judge.rc != 0 else [])
            if failed:
                raise RuntimeError('a sliced job failed: %s' % slicing.stdout_of(judge)[-2000:])
            gather_cpu = (middle.ru_utime - before.ru_utime) + (middle.ru_stime - before.ru_stime)
            item = {'slices': count, 'devices': len(fleet.endpoints), 'load': load,
                    'slowest_slice_wall': max(wall for _runner, wall in slices), 'slices_cpu': gather_cpu,
                    'cpu_per_slice': gather_cpu / count, 'judge_wall': judge_wall,
                    'judge_cpu': (after.ru_utime - middle.ru_utime) + (after.ru_stime - middle.ru_stime)}
            results.append(item)
            if not quiet:
                print('  %d slice(s) of %d devices at once: slowest slice %.1f s wall, %.1f CPU-s in all (%.1f per slice); '
                      'judging job %.1f s wall, %.1f CPU-s; load %.1f' % (
                          count, item['devices'], item['slowest_slice_wall'], gather_cpu, item['cpu_per_slice'],
                          judge_wall, item['judge_cpu'], load[0]))
    finally:
        fleet_down(fleet, keep)
    return results


def run_anta(sizes, quiet):
    """ANTA side by side on EOS doubles: an all-EOS fabric of each size in `sizes` (GPU servers; the switches follow)
    served by the fleet; `anta nrfu` with its defaults on the catalog validate.yml writes (anta-catalog.yml), and
    validate.yml on the switches (fleet reader, one reading: settle 0, one counter reading), each timed with its
    CPU. Per added switch: the difference between the two sizes over the difference in switches."""
    sys.path.insert(0, _common.ROOT)
    _common.import_path()
    from tests.doubles import faults  # pylint: disable=import-outside-toplevel
    from tests.doubles.fleetd.launch import FleetD  # pylint: disable=import-outside-toplevel
    rows = []
    for servers in sizes:
        work = _common.scratch('aifabric-bench-anta-')
        inventory = os.path.join(work, 'inventory')
        os.makedirs(inventory)
        with open(os.path.join(inventory, 'intent.yml'), 'w', encoding='utf-8') as handle:
            yaml.safe_dump(_common.gpu16k_intent('eos', servers), handle, sort_keys=False)
        with open(os.path.join(inventory, 'fabric.yml'), 'w', encoding='utf-8') as handle:
            handle.write('plugin: aifabric.fabric.fabric\nintent: intent.yml\n')
        fleet = FleetD(os.path.join(inventory, 'intent.yml'), os.path.join(work, 'fleet'), ttl=7200)
        fleet.start(timeout=3600)
        try:
            switches = sorted(name for name, endpoint in fleet.endpoints.items() if endpoint['kind'] == 'eos')
            for name in fleet.endpoints:
                faults.write(fleet.device_dir(name), convergence_s=0)
            report_dir = os.path.join(work, 'report')
            _common.settle()
            load = os.getloadavg()
            ours, ours_wall, ours_cpu, _rss = _playbook(
                [inventory, os.path.join(fleet.state_dir, 'inventory.yml')],
                {'validate_report_dir': report_dir, 'validate_settle_timeout': 0, 'validate_health_interval': 0,
                 'validate_marking_probe': False, 'validate_fail': False}, work, limit='switches')
            if ours.returncode != 0:
                raise RuntimeError('validate.yml failed: %s' % ours.stdout[-2000:])
            with open(os.path.join(fleet.state_dir, 'inventory.yml'), encoding='utf-8') as handle:
                hosts = yaml.safe_load(handle)['all']['hosts']
            anta_inventory = os.path.join(work, 'anta-inventory.yml')
            with open(anta_inventory, 'w', encoding='utf-8') as handle:
                yaml.safe_dump({'anta_inventory': {'hosts': [
                    {'host': hosts[name]['ansible_host'], 'port': hosts[name]['ansible_port'], 'name': name,
                     'tags': [name]} for name in switches]}}, handle)
            env = dict(os.environ, ANTA_PASSWORD=hosts[switches[0]]['ansible_password'])
            argv = [os.path.join(os.path.dirname(sys.executable), 'anta'), 'nrfu', '--username', 'admin', '--enable',
                    '--inventory', anta_inventory, '--catalog', os.path.join(report_dir, 'anta-catalog.yml'), 'table']
            _common.settle()
            anta, anta_wall, anta_cpu, _rss = _common.measured(argv, env, work)
            rows.append({'servers': servers, 'switches': len(switches), 'load': load, 'ours_wall': ours_wall,
                         'ours_cpu': ours_cpu, 'anta_wall': anta_wall, 'anta_cpu': anta_cpu, 'anta_rc': anta.returncode})
            if not quiet:
                print('  %d EOS switches: validate.yml %.1f s wall, %.1f CPU-s; anta nrfu %.1f s wall, %.1f CPU-s (rc %d); '
                      'load %.1f' % (len(switches), ours_wall, ours_cpu, anta_wall, anta_cpu, anta.returncode, load[0]))
        finally:
            fleet.stop()
    result = {'sizes': rows}
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        added = last['switches'] - first['switches']
        result['per_added_switch'] = {key: (last[key] - first[key]) / added
                                      for key in ('ours_wall', 'ours_cpu', 'anta_wall', 'anta_cpu')}
        if not quiet:
            print('  per added switch: validate.yml %(ours_wall).3f s wall, %(ours_cpu).3f CPU-s; anta nrfu %(anta_wall).3f s '
                  'wall, %(anta_cpu).3f CPU-s' % result['per_added_switch'])
    return result


def report(data) -> str:
    lines = []
    design = data.get('design')
    if design:
        lines.append('design-only 16k (%d devices, %d results): %s wall, %s CPU, peak %d MiB, report.json %.1f MB; '
                     'targets <= %.0f s, <= 1 GiB, <= 20 MB: %s' % (
                         design['runs'][0]['devices'], design['runs'][0]['results'], _common.fmt_stat(design['wall'], unit=' s'),
                         _common.fmt_stat(design['cpu'], unit=' s'), design['peak_rss'] // 2 ** 20,
                         design['report_json'] / 1e6, TARGETS['wall_s'], 'PASS' if design['pass'] else
                         'FAIL (busy machine: CPU time within the target, load %.0f)' % design['runs'][0]['load1']
                         if design['cpu_within_target'] else 'FAIL'))
    play = data.get('playbook')
    if play:
        lines.append('design-only 16k through ansible-playbook: rc %d, %.1f s wall, %.1f s CPU, %d lines (%d per-host '
                     'lines)' % (play['rc'], play['wall'], play['cpu'], play['lines'], play['host_lines']))
    doubles = data.get('doubles')
    if doubles:
        lines.append('gathered on %d doubles: %.1f s wall, %.1f s CPU; per device %.2f s wall x forks, %.2f s CPU; 16k '
                     'estimate ~%.0f s wall at %d forks, ~%.0f s CPU' % (
                         doubles['switches'], doubles['wall'], doubles['cpu'], doubles['per_device_wall_x_forks'],
                         doubles['per_device_cpu'], doubles['gpu16k_estimate']['wall_s'], doubles['forks'],
                         doubles['gpu16k_estimate']['cpu_s']))
    anta = (data.get('anta') or {}).get('per_added_switch')
    if anta:
        lines.append('per added EOS switch: validate.yml %.3f s wall, %.3f CPU-s; anta nrfu %.3f s wall, %.3f CPU-s' % (
            anta['ours_wall'], anta['ours_cpu'], anta['anta_wall'], anta['anta_cpu']))
    for item in data.get('slices') or []:
        lines.append('%d slice(s), %d devices: slowest slice %.1f s wall, %.1f CPU-s per slice; judging %.1f s wall, %.1f '
                     'CPU-s' % (item['slices'], item['devices'], item['slowest_slice_wall'], item['cpu_per_slice'],
                                item['judge_wall'], item['judge_cpu']))
    for item in data.get('fleet') or []:
        lines.append('fleet %d devices, reader %s%s: %.1f s wall, %.1f CPU-s controller (%.1f ms/device), %.1f CPU-s doubles, '
                     'peak RSS %d MiB, verdict %s; targets <= %d s and <= 1 GiB (3,328 devices): %s' % (
                         item['devices'], item['reader'], ', drift' if item.get('drift') else '', item['wall'], item['cpu'],
                         1000 * item['cpu_per_device'],
                         item['doubles_cpu'], item['peak_rss_children'] // 2 ** 20, item['summary']['verdict'],
                         FLEET_TARGETS['wall_s'], _fleet_target_verdict(item)))
    return '\n'.join(lines)


def _fleet_target_verdict(item) -> str:
    """The targets are for the 16k fabric's 3,328 devices and a run that passes: a smaller fleet is not judged against
    them, a run whose verdict is not PASSED does not meet them however fast it was."""
    if item['devices'] < 3328:
        return 'not judged (%d devices)' % item['devices']
    met = (item['summary']['verdict'] == 'PASSED' and item['wall'] <= FLEET_TARGETS['wall_s']
           and item['peak_rss_children'] <= FLEET_TARGETS['peak_rss'])
    return 'PASS' if met else 'FAIL'


def run(parts=('design', 'playbook', 'doubles'), repeat=3, servers=2048, doubles_servers=16, forks=20, quiet=False,
        fleet_servers=(2048,), readers=('fleet',), concurrency=256, keep_fleet=None, slice_counts=(1, 2, 4),
        anta_sizes=(64, 256), drift=False):
    sys.path.insert(0, _common.BENCH_DIR)
    import bench_playbook  # pylint: disable=import-outside-toplevel
    data = {'machine': _common.machine(), 'targets': TARGETS}
    try:
        inventory = bench_playbook.gpu16k_inventory('sonic', servers)
        if 'design' in parts:
            data['design'] = run_design(inventory, repeat, quiet)
        if 'playbook' in parts:
            data['playbook'] = run_playbook(inventory, quiet)
        if 'doubles' in parts:
            data['doubles'] = run_doubles(doubles_servers, forks, quiet)
        if 'anta' in parts:
            data['anta'] = run_anta(anta_sizes, quiet)
        if 'slices' in parts:
            data['slices'] = run_slices(fleet_servers[0], slice_counts, quiet,
                                        keep=keep_fleet and '%s-%d' % (keep_fleet, fleet_servers[0]))
        if 'fleet' in parts:
            data['fleet'] = [run_fleet(size, reader, concurrency, quiet, keep=keep_fleet and '%s-%d' % (keep_fleet, size),
                                       drift=drift)
                             for size in fleet_servers for reader in readers]
    finally:
        _common.remove_scratch()
    data['machine_after'] = _common.machine()
    return data


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--parts', default='design,playbook,doubles', help='comma-separated: design,playbook,doubles')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--servers', type=int, default=2048, help='GPU servers of the design-only fabric (8 GPUs each)')
    parser.add_argument('--doubles-servers', type=int, default=16, help='GPU servers of the doubles fabric')
    parser.add_argument('--forks', type=int, default=20)
    parser.add_argument('--fleet-servers', default='2048', help='GPU servers of each fleet fabric (comma-separated)')
    parser.add_argument('--readers', default='fleet', help='fleet,per_host (per_host needs the single doubles)')
    parser.add_argument('--concurrency', type=int, default=256, help='devices a fleet reading keeps in flight')
    parser.add_argument('--anta-servers', default='64,256', help='GPU servers of the all-EOS fabrics of --parts anta')
    parser.add_argument('--slices', default='1,2,4', help='slice counts of --parts slices (comma-separated)')
    parser.add_argument('--keep-fleet', help='start the fleet in DIR-<servers> and leave it running (reused by the next run '
                        'with the same DIR: its devices boot once)')
    parser.add_argument('--drift', action='store_true', help='--parts fleet: read the configuration drift too (render.yml '
                        'first; the switches through the fleet check of the deploy, the GPU servers per host)')
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--intent', help=argparse.SUPPRESS)
    parser.add_argument('--out', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    data = run(tuple(args.parts.split(',')), args.repeat, args.servers, args.doubles_servers, args.forks,
               fleet_servers=tuple(int(item) for item in args.fleet_servers.split(',')),
               readers=tuple(args.readers.split(',')), concurrency=args.concurrency, keep_fleet=args.keep_fleet,
               slice_counts=tuple(int(item) for item in args.slices.split(',')),
               anta_sizes=tuple(int(item) for item in args.anta_servers.split(',')), drift=args.drift)
    print(report(data))
    print('Results: %s' % _common.save_result('validate.json', data))
    return 0 if data.get('design', {}).get('pass', True) else 1


if __name__ == '__main__':
    sys.exit(main())
