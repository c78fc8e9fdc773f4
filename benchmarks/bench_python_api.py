# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""16,384-GPU fabric through the Python API: intent file -> every switch and GPU server file, timed, peak RSS.

One switch platform at a time (sonic, eos, nvue). Each measured pass is a fresh child process that:
  1. load    reads the intent YAML file, applies defaults, validates (schema + cross-field rules)
  2. design  builds the fabric-wide design (topology, addressing, ASNs, VNIs, lossless profile, headroom)
  3. switches  per switch: device model -> render -> write (1,280 switches)
  4. hosts     per GPU server: device model -> render -> write (2,048 servers); one render_into() call for
               both, as the render action makes it: the switches' phase ends when the last switch is adopted
  5. finish    (disk, tmpfs) the manifest and the switch of the output to the new generation
Models and rendered text are dropped after each device, as the render action does. Three output modes:
  none   render everything in memory, write nothing (the pipeline's own cost)
  disk   write every file into a fresh temporary directory on the disk ($TMPDIR, by default /tmp: the same ext4
         file system as the checkout) through the staged writer, like a real run: the render workers write their
         devices' files, then the manifest (sha256 of every file) and the switch to the complete generation
  tmpfs  the same into /dev/shm (RAM), which separates the file system's cost from ours
The disk output stays until the script ends (see _common.scratch: deleting it between passes would slow the next
pass's file creation on journal-less ext4); tmpfs output is removed after each pass; removals are not timed.
Peak memory is ru_maxrss of the child (whole process: interpreter, imports, design and the largest device in
flight).

Targets (issue 11, 2-core build machine, every CPU rendering): 16,384 GPUs <= 5 s wall; 65,536 GPUs (--servers
8192) <= 20 s wall; <= 1 GiB peak RSS (this process plus its largest render worker).

    python benchmarks/bench_python_api.py                       # 3 platforms x 3 output modes x 3 repeats
    python benchmarks/bench_python_api.py --platforms eos --repeat 5 --write disk
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

PLATFORMS = _common.switch_platforms()  # the registry's switch platforms (sonic, eos, nvue today)
TARGET_SECONDS = 5.0  # 16,384 GPUs
TARGET_SECONDS_65K = 20.0  # 65,536 GPUs and more
TARGET_RSS = _common.GIB
WRITE_MODES = ('none', 'disk', 'tmpfs')


def target_seconds(servers) -> float:
    return TARGET_SECONDS if servers <= 2048 else TARGET_SECONDS_65K


TMPFS = os.environ.get('AIFABRIC_BENCH_TMPFS', '/dev/shm')  # RAM; the variable is for the smoke test


# ----------------------------------------------------------------------------------------------- child
def child(args):
    import yaml

    clock, cpu = time.perf_counter, time.process_time
    started_wall, started_cpu = clock(), cpu()
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import FabricDesign
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_intent_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.output import StagedOutput
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import environment, render_into
    environment()  # the Jinja2 environment (templates compile lazily, on first use, inside the phases)
    phases = {'import': (clock() - started_wall, cpu() - started_cpu)}

    work = args.scratch  # the parent's scratch directory: removed when the whole script ends
    # tmpfs: a directory of its own, removed with everything in it after the pass. The output is a symlink to a
    # generation beside it (StagedOutput), so the output itself must not be what is removed.
    out = tempfile.mkdtemp(prefix='aifabric-bench-out-', dir=TMPFS) if args.output == 'tmpfs' else None
    try:
        intent_path = os.path.join(work, 'intent.yml')
        with open(intent_path, 'w', encoding='utf-8') as handle:
            yaml.safe_dump(_common.gpu16k_intent(args.platform, args.servers), handle, sort_keys=False)
        dest = {'none': None, 'disk': os.path.join(work, 'out'), 'tmpfs': os.path.join(out or work, 'out')}[args.output]

        def phase(name, function):
            wall, processor = clock(), cpu()
            value = function()
            phases[name] = (clock() - wall, cpu() - processor)
            return value

        intent = phase('load', lambda: load_intent_file(intent_path))
        design = phase('design', lambda: FabricDesign(intent))
        rss_design = _common.peak_rss_bytes()
        counts = {'switches': 0, 'hosts': 0, 'files': 0, 'bytes': 0}
        output = StagedOutput(dest).open() if dest else None

        switches = [node.name for node in design.switches()]
        hosts = [node.name for node in design.hosts()]
        # One call for every device, as the render action makes it (one worker pool); the items come back in the
        # order of the names, so the switches' phase ends with the last switch's item.
        started = (clock(), cpu())
        for index, item in enumerate(render_into(design, switches + hosts, output, workers=args.workers or None)):
            kind = 'switches' if index < len(switches) else 'hosts'
            counts[kind] += 1
            counts['files'] += item['files']
            counts['bytes'] += item['bytes']
            if index + 1 == len(switches):
                phases['switches'] = (clock() - started[0], cpu() - started[1])
                started = (clock(), cpu())
        phases['hosts'] = (clock() - started[0], cpu() - started[1])
        if output is not None:  # the manifest (sha256 of every file) and the switch to the complete generation
            phase('finish', lambda: output.finish(roots=['configs'], prune=['configs']))
        total = (clock() - started_wall, cpu() - started_cpu)
        import resource
        usage = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = {
            'platform': args.platform,
            'servers': args.servers,
            'output': args.output,
            'phases': {name: {'wall': wall, 'cpu': processor} for name, (wall, processor) in phases.items()},
            'pipeline_wall': total[0] - phases['import'][0],
            'pipeline_cpu': total[1] - phases['import'][1] + children.ru_utime + children.ru_stime,
            'total_wall': total[0],
            'total_cpu': total[1] + children.ru_utime + children.ru_stime,
            'cpu_user': usage.ru_utime + children.ru_utime,  # whole process and its render workers
            'cpu_sys': usage.ru_stime + children.ru_stime,  # kernel time: mostly file creation (disk, tmpfs modes)
            'workers': args.workers or 'all CPUs',
            'peak_rss': _common.peak_rss_bytes() + children.ru_maxrss * 1024,  # this process + the largest worker
            'peak_rss_after_design': rss_design,
            'summary': design.summary(),
            'counts': counts,
        }
    finally:
        if out:
            shutil.rmtree(out, ignore_errors=True)
    _common.emit(result)


# ----------------------------------------------------------------------------------------------- parent
def measure_pass(platform_name, write, servers, workers) -> dict:
    """One fresh child process, and after it (disk, tmpfs) the file system's own cost of as many files."""
    argv = [os.path.abspath(__file__), '--child', '--platform', platform_name, '--servers', str(servers),
            '--output', write, '--workers', str(workers), '--scratch', _common.scratch('aifabric-bench-')]
    load = os.getloadavg()[0]
    result = _common.run_child(argv)
    result['load1_before'] = load
    if write != 'none':
        counts = result['counts']
        reference = _common.scratch('aifabric-bench-fs-', TMPFS if write == 'tmpfs' else None)
        result['fs_reference'] = _common.file_system_reference(
            reference, counts['files'], counts['switches'] + counts['hosts'], counts['bytes'] // max(1, counts['files']))
        if write == 'tmpfs':
            _common.release(reference)
    return result


def run(platforms=PLATFORMS, repeat=3, write_modes=WRITE_MODES, servers=2048, quiet=False, workers=0):
    """Measure and return {'runs': [...], 'summary': {...}} (also used by run_all.py)."""
    runs = []
    before = _common.machine()
    try:
        for iteration in range(repeat):
            for platform_name in platforms:  # interleaved, so load changes hit every platform alike
                for write in write_modes:
                    result = measure_pass(platform_name, write, servers, workers)
                    runs.append(result)
                    if not quiet:
                        print('  run %d %-5s %-5s pipeline %6.2f s wall (%5.2f s CPU), process %6.2f s, '
                              'peak RSS %4d MiB, load %.2f' % (
                                  iteration + 1, platform_name, write, result['pipeline_wall'], result['pipeline_cpu'],
                                  result['total_wall'], result['peak_rss'] // 2 ** 20, result['load1_before']),
                              flush=True)
    finally:  # every pass's output at once, after the last pass
        _common.remove_scratch()
    after = _common.machine()
    summary = {}
    for platform_name in platforms:
        for write in write_modes:
            selected = [item for item in runs if item['platform'] == platform_name and item['output'] == write]
            key = '%s/%s' % (platform_name, write)
            phase_names = list(selected[0]['phases'])
            summary[key] = {
                'platform': platform_name,
                'output': write,
                'total_cpu': _common.summarize([item['total_cpu'] for item in selected]),
                'cpu_sys': _common.summarize([item['cpu_sys'] for item in selected]),
                'total_wall': _common.summarize([item['total_wall'] for item in selected]),
                'pipeline_wall': _common.summarize([item['pipeline_wall'] for item in selected]),
                'pipeline_cpu': _common.summarize([item['pipeline_cpu'] for item in selected]),
                'peak_rss': _common.summarize([item['peak_rss'] for item in selected]),
                'phases_wall': {name: _common.summarize([item['phases'][name]['wall'] for item in selected])
                                for name in phase_names},
                'phases_cpu': {name: _common.summarize([item['phases'][name]['cpu'] for item in selected])
                               for name in phase_names},
                'counts': selected[0]['counts'],
                'fs_reference': _common.summarize([item['fs_reference']['wall'] for item in selected])
                if write != 'none' else None,
                'devices': selected[0]['summary'],
            }
            entry = summary[key]
            entry['pass_time'] = entry['total_wall']['median'] <= target_seconds(servers)
            # CPU time of this process and its workers, against the wall target times the CPUs they share
            entry['pass_cpu'] = entry['total_cpu']['median'] <= target_seconds(servers) * _common.cpus()
            entry['pass_rss'] = entry['peak_rss']['max'] <= TARGET_RSS
    return {'benchmark': 'python_api', 'servers': servers, 'repeat': repeat, 'machine_before': before,
            'machine_after': after, 'targets': {'seconds': target_seconds(servers), 'peak_rss_bytes': TARGET_RSS},
            'summary': summary, 'runs': runs}


def verdict(entry) -> str:
    if entry['pass_time'] and entry['pass_rss']:
        return 'PASS'
    problems = []
    if not entry['pass_time']:
        problems.append('time' + (' (CPU %.1f s is within: machine load)' % entry['total_cpu']['median']
                                  if entry['pass_cpu'] else ''))
    if not entry['pass_rss']:
        problems.append('memory')
    return 'FAIL: ' + ', '.join(problems)


def report(data) -> str:
    lines = []
    first = next(iter(data['summary'].values()))
    dev = first['devices']
    lines.append('Python API, fabric %s: %d GPUs, %d servers, %d leaves, %d spines, %d super-spines, %d links, %d tiers'
                 % (dev['name'], dev['gpus'], dev['hosts'], dev['leaves'], dev['spines'], dev['super_spines'],
                    dev['links'], dev['tiers']))
    lines.append('Machine: %s before, %s after' % (_common.load_text(data['machine_before']),
                                                   _common.load_text(data['machine_after'])))
    lines.append('Seconds, median (min-max) of %d fresh processes. "total" = the whole child process after '
                 'interpreter start-up: imports, load, design, switches, hosts, finish (phases: wall medians); '
                 'target <= %.0f s wall and peak RSS <= 1 GiB. "fs ref": as many files of the same size created by '
                 'one process with plain os calls right after the pass (what the file system alone costs then)'
                 % (data['repeat'], data['targets']['seconds']))
    header = '%-12s %-27s %-27s %-7s %-6s %-7s %-9s %-7s %-7s %-7s %-14s %-9s %s' % (
        'platform/out', 'total wall', 'total CPU', 'of it sys', 'load', 'design', 'switches', 'hosts', 'finish',
        'fs ref', 'files / MB', 'peak RSS', 'target')
    lines.append(header)
    for key, entry in data['summary'].items():
        phases = entry['phases_wall']
        lines.append('%-12s %-27s %-27s %-7s %-6s %-7s %-9s %-7s %-7s %-7s %-14s %-9s %s' % (
            key, _common.fmt_stat(entry['total_wall'], unit=' s'), _common.fmt_stat(entry['total_cpu'], unit=' s'),
            '%.2f s' % entry['cpu_sys']['median'],
            '%.2f' % phases['load']['median'], '%.2f' % phases['design']['median'],
            '%.2f' % phases['switches']['median'], '%.2f' % phases['hosts']['median'],
            '%.2f' % phases['finish']['median'] if 'finish' in phases else '-',
            '%.2f' % entry['fs_reference']['median'] if entry['fs_reference'] else '-',
            '%d / %d' % (entry['counts']['files'], entry['counts']['bytes'] // 10 ** 6),
            '%d MiB' % (entry['peak_rss']['max'] // 2 ** 20),
            verdict(entry)))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--platforms', default=','.join(PLATFORMS), help='comma-separated: %s' % ','.join(PLATFORMS))
    parser.add_argument('--repeat', type=int, default=3, help='fresh processes per platform and mode')
    parser.add_argument('--write', default=','.join(WRITE_MODES),
                        help='comma-separated output modes: none (render only), disk (temporary directory in $TMPDIR), '
                             'tmpfs (/dev/shm); default: all three')
    parser.add_argument('--servers', type=int, default=2048, help='GPU servers (2048 = 16,384 GPUs)')
    parser.add_argument('--workers', type=int, default=0, help='render processes (0: every CPU; 1: serial)')
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--platform', help=argparse.SUPPRESS)
    parser.add_argument('--output', choices=WRITE_MODES, default='none', help=argparse.SUPPRESS)
    parser.add_argument('--scratch', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    modes = [mode.strip() for mode in args.write.split(',') if mode.strip()]
    unknown = sorted(set(modes) - set(WRITE_MODES))
    if unknown:
        parser.error('unknown --write mode(s): %s' % ', '.join(unknown))
    platforms = [name.strip() for name in args.platforms.split(',') if name.strip()]
    data = run(platforms, args.repeat, modes, args.servers, workers=args.workers)
    path = _common.save_result('python_api.json', data)
    print(report(data))
    print('Results: %s' % path)
    return 0 if all(entry['pass_time'] and entry['pass_rss'] for entry in data['summary'].values()) else 1


if __name__ == '__main__':
    sys.exit(main())
