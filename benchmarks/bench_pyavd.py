# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""aifabric vs Arista pyavd, side by side in one run, on the same eBGP/EVPN-VXLAN leaf-spine fabric (EOS CLI).

Fabric (benchmarks/_common.py LEAFSPINE): 8 spines + 64 leaves, one /31 eBGP session per leaf-spine link, EVPN
overlay, 4 routed VLANs (anycast gateway, VRF gpu with L3VNI 50000) + 4 L2 VLANs with L2VNI 10000 + VLAN, and
the lossless QoS profile on every uplink (PFC priority 3 no-drop + watchdog, ECN on tx-queue 3, strict
tx-queue 6). Both tools start from plain Python dicts and run their whole public pipeline for all 72 devices:

  pyavd    validate_inputs (per device) -> get_avd_facts -> get_device_structured_config -> get_device_config
  aifabric load_intent (defaults + schema + cross-field checks) -> FabricDesign -> design.device -> render_model

Each tool runs in its own fresh process (the processes alternate: ours, pyavd, pyavd, ours, ...), and each process
runs the pipeline --iterations times; the first iteration of a process is reported as "cold" (lazy imports,
template compilation, schema store), the median over all iterations as the headline figure. Nothing is written
to disk by either tool. Line counts (without blank and '!' lines) and a few feature counts show that the two
configurations are of the same kind.

"Cold" is what every AWX job and every ansible-playbook run pays: a new process. Ours then reads the templates and
the schema validator compiled by an earlier process from its per-user cache (compile_cache.py); the benchmark gives
it a cache of its own, filled by one untimed process first, and also times one process with an empty cache (the
very first run on a machine, reported apart).

Targets: aifabric needs >= 100x less time per device than pyavd (issue 11), also on the first pass of a fresh
process against pyavd's first pass of a fresh process (issue 25).

    python benchmarks/bench_pyavd.py                           # 2 rounds x 5 iterations per tool
    python benchmarks/bench_pyavd.py --rounds 6 --iterations 1  # a new process for every pass
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

TARGET_RATIO = 100.0  # issue 11: >= 100x less time per device than pyavd
BENCH_VENV_PYTHON = os.path.join(_common.BENCH_DIR, '.venv', 'bin', 'python')
# Same-kind evidence: how often each feature appears in all 72 configurations of a tool.
FEATURES = {
    'interfaces with the lossless profile': re.compile(r'^\s+service-profile \S+', re.M),
    'PFC no-drop priority 3 (in qos profile)': re.compile(r'^\s+priority-flow-control priority 3 no-drop', re.M),
    'PFC watchdog timers': re.compile(r'priority-flow-control pause watchdog port timer', re.M),
    'ECN on tx-queue 3': re.compile(r'^\s+tx-queue 3\n(?:\s{6}.*\n)*?\s+random-detect ecn', re.M),
    # the CNP queue: pyavd is given tx-queue 6; ours maps the CNP class to tx-queue 7, the highest (issue 40)
    'strict CNP tx-queue (6 or 7)': re.compile(r'^\s+tx-queue [67]\n(?:\s{6}.*\n)*?\s+priority strict', re.M),
    'BGP neighbors (remote-as lines)': re.compile(r'^\s+neighbor \d+\.\d+\.\d+\.\d+ remote-as', re.M),
    'VXLAN VLAN->VNI maps': re.compile(r'^\s+vxlan vlan \d+ vni \d+', re.M),
    'VXLAN VRF->L3VNI maps': re.compile(r'^\s+vxlan vrf \S+ vni \d+', re.M),
    'anycast gateway SVIs': re.compile(r'^\s+ip address virtual ', re.M),
}


# ----------------------------------------------------------------------------------------------- pipelines
def _ours_import():
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import FabricDesign
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.intent import load_intent
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model

    def pipeline(data, clock):
        marks = [clock()]
        intent = load_intent(data)
        marks.append(clock())
        design = FabricDesign(intent)
        marks.append(clock())
        models = {name: design.device(name) for name in design.nodes}
        marks.append(clock())
        configs = {name: render_model(model)['startup-config.cfg'] for name, model in models.items()}
        marks.append(clock())
        return configs, marks

    return pipeline, _common.leafspine_intent


def _pyavd_import():
    import pyavd

    def pipeline(inputs, clock):
        marks = [clock()]
        validated = {}
        for hostname, host_inputs in inputs.items():
            result = pyavd.validate_inputs(host_inputs)
            if result.validation_result.violations:
                raise SystemExit('pyavd input violations on %s: %s' % (hostname, [
                    (violation.path, violation.message) for violation in result.validation_result.violations][:5]))
            validated[hostname] = result.validated_data
        marks.append(clock())
        facts = pyavd.get_avd_facts(validated)
        marks.append(clock())
        structured = {hostname: pyavd.get_device_structured_config(hostname, validated[hostname], facts)
                      for hostname in validated}
        marks.append(clock())
        configs = {hostname: pyavd.get_device_config(config) for hostname, config in structured.items()}
        marks.append(clock())
        return configs, marks

    pipeline.version = pyavd.__version__
    return pipeline, _common.pyavd_inputs


PHASES = ('validate', 'facts/design', 'structured/model', 'cli')


def child(args):
    clock = time.perf_counter
    started = clock()
    pipeline, make_inputs = _ours_import() if args.tool == 'ours' else _pyavd_import()
    imported = clock() - started
    data = make_inputs(args.spines, args.leaves)
    iterations = []
    configs = None
    for dummy in range(args.iterations):
        fresh = copy.deepcopy(data)  # neither tool may benefit from the previous pass mutating its inputs
        cpu = time.process_time()
        configs, marks = pipeline(fresh, clock)
        iterations.append({'total': marks[-1] - marks[0], 'cpu': time.process_time() - cpu,
                           'phases': {name: marks[index + 1] - marks[index] for index, name in enumerate(PHASES)}})
    by_role = {}
    for name, text in configs.items():
        role = 'spine' if name.startswith('spine') else 'leaf'
        entry = by_role.setdefault(role, {'devices': 0, 'lines': 0, 'bytes': 0})
        entry['devices'] += 1
        entry['lines'] += _common.config_lines(text)
        entry['bytes'] += len(text)
    everything = '\n'.join(configs.values())
    if args.save_configs:
        directory = os.path.join(_common.RESULTS_DIR, 'pyavd_compare', args.tool)
        os.makedirs(directory, exist_ok=True)
        for name, text in configs.items():
            with open(os.path.join(directory, '%s.cfg' % name), 'w', encoding='utf-8') as handle:
                handle.write(text)
    _common.emit({
        'tool': args.tool,
        'version': getattr(pipeline, 'version', None),
        'devices': len(configs),
        'import_s': imported,
        'iterations': iterations,
        'by_role': by_role,
        'features': {label: len(pattern.findall(everything)) for label, pattern in FEATURES.items()},
        'peak_rss': _common.peak_rss_bytes(),
    })


# ----------------------------------------------------------------------------------------------- parent
def pyavd_python():
    """An interpreter that can import pyavd: this one, else benchmarks/.venv (see README)."""
    import importlib.util
    if importlib.util.find_spec('pyavd') is not None:
        return sys.executable
    if os.path.exists(BENCH_VENV_PYTHON):
        return BENCH_VENV_PYTHON
    raise SystemExit('pyavd is not installed: pip install -r benchmarks/requirements.txt (it pins pyavd through '
                     'constraints.txt), or create benchmarks/.venv from that file.')


def run(rounds=2, iterations=5, spines=8, leaves=64, save_configs=True, quiet=False):
    script = os.path.abspath(__file__)
    interpreters = {'ours': sys.executable, 'pyavd': pyavd_python()}
    results = {'ours': [], 'pyavd': []}
    before = _common.machine()
    # Our processes share a compile cache of their own: filled by one untimed process, as by any earlier run.
    cache, empty = _common.scratch('aifabric-bench-cache-'), _common.scratch('aifabric-bench-cache-empty-')
    environments = {'ours': dict(os.environ, AIFABRIC_CACHE_DIR=cache), 'pyavd': None}
    child_argv = [script, '--child', '--tool', 'ours', '--iterations', '1', '--spines', str(spines), '--leaves',
                  str(leaves)]
    empty_cache = _common.run_child(child_argv, env=dict(os.environ, AIFABRIC_CACHE_DIR=empty))
    _common.run_child(child_argv, env=environments['ours'])  # fills the cache, untimed
    for number in range(rounds):
        order = ('ours', 'pyavd') if number % 2 == 0 else ('pyavd', 'ours')
        for tool in order:
            argv = [script, '--child', '--tool', tool, '--iterations', str(iterations), '--spines', str(spines),
                    '--leaves', str(leaves)]
            if save_configs and number == 0:
                argv.append('--save-configs')
            load = os.getloadavg()[0]
            result = _common.run_child(argv, python=interpreters[tool], env=environments[tool])
            result['load1_before'] = load
            results[tool].append(result)
            if not quiet:
                totals = [item['total'] for item in result['iterations']]
                print('  round %d %-5s %d devices: %s s per pass (cold first), load %.2f' % (
                    number + 1, tool, result['devices'], ' '.join('%.3f' % value for value in totals), load), flush=True)
    after = _common.machine()
    summary = {}
    for tool, processes in results.items():
        devices = processes[0]['devices']
        every = [item for process in processes for item in process['iterations']]
        cold = [process['iterations'][0] for process in processes]
        summary[tool] = {
            'version': processes[0]['version'],
            'devices': devices,
            'ms_per_device': _common.summarize([item['total'] * 1000 / devices for item in every]),
            'cold_ms_per_device': _common.summarize([item['total'] * 1000 / devices for item in cold]),
            'cpu_ms_per_device': _common.summarize([item['cpu'] * 1000 / devices for item in every]),
            'pass_seconds': _common.summarize([item['total'] for item in every]),
            'phases_ms_per_device': {name: _common.summarize([item['phases'][name] * 1000 / devices for item in every])
                                     for name in PHASES},
            'import_s': _common.summarize([process['import_s'] for process in processes]),
            'peak_rss': _common.summarize([process['peak_rss'] for process in processes]),
            'by_role': processes[0]['by_role'],
            'features': processes[0]['features'],
        }
    ours, theirs = summary['ours'], summary['pyavd']
    ratio = theirs['ms_per_device']['median'] / ours['ms_per_device']['median']
    cold_ratio = theirs['cold_ms_per_device']['median'] / ours['cold_ms_per_device']['median']
    cpu_ratio = theirs['cpu_ms_per_device']['median'] / ours['cpu_ms_per_device']['median']
    empty_ms = empty_cache['iterations'][0]['total'] * 1000 / empty_cache['devices']
    for path in (cache, empty):
        _common.release(path)
    return {'benchmark': 'pyavd_compare', 'rounds': rounds, 'iterations': iterations, 'spines': spines,
            'leaves': leaves, 'machine_before': before, 'machine_after': after, 'target_ratio': TARGET_RATIO,
            'ratio': ratio, 'cold_ratio': cold_ratio, 'cpu_ratio': cpu_ratio,
            'empty_cache_ms_per_device': empty_ms, 'empty_cache_ratio': theirs['cold_ms_per_device']['median'] / empty_ms,
            'pass': ratio >= TARGET_RATIO and cold_ratio >= TARGET_RATIO, 'summary': summary, 'runs': results}


def report(data) -> str:
    summary = data['summary']
    ours, theirs = summary['ours'], summary['pyavd']
    lines = ['aifabric vs pyavd %s: %d spines + %d leaves (%d devices), EOS CLI, full pipeline from inputs; '
             '%d rounds x %d passes per tool' % (theirs['version'], data['spines'], data['leaves'], ours['devices'],
                                                 data['rounds'], data['iterations']),
             'Machine: %s before, %s after' % (_common.load_text(data['machine_before']),
                                               _common.load_text(data['machine_after'])),
             '%-10s %-28s %-14s %-14s %-10s %-10s %-10s %-10s %-8s %s' % (
                 'tool', 'ms/device median (min-max)', 'cold ms/dev', 'CPU ms/dev', 'validate', 'facts', 'struct',
                 'cli', 'RSS MiB', 'config lines leaf/spine (per device)')]
    for label, entry in (('aifabric', ours), ('pyavd', theirs)):
        phases = entry['phases_ms_per_device']
        roles = entry['by_role']
        lines.append('%-10s %-28s %-14s %-14s %-10s %-10s %-10s %-10s %-8d %s' % (
            label, _common.fmt_stat(entry['ms_per_device']), '%.2f' % entry['cold_ms_per_device']['median'],
            '%.2f' % entry['cpu_ms_per_device']['median'],
            *('%.2f' % phases[name]['median'] for name in PHASES), entry['peak_rss']['max'] // 2 ** 20,
            ' / '.join('%d' % (roles[role]['lines'] // roles[role]['devices']) for role in ('leaf', 'spine'))))
    lines.append('Ratio pyavd / aifabric time per device: %.1fx (CPU %.1fx); first pass of a fresh process: %.1fx '
                 '(ours with an empty compile cache, the first run on a machine: %.2f ms/device, %.1fx); target >= %.0fx '
                 'for both: %s' % (data['ratio'], data['cpu_ratio'], data['cold_ratio'], data['empty_cache_ms_per_device'],
                                   data['empty_cache_ratio'], data['target_ratio'], 'PASS' if data['pass'] else 'FAIL'))
    lines.append('Same-kind check (counts over all %d configurations):' % ours['devices'])
    lines.append('  %-42s %10s %10s' % ('feature', 'aifabric', 'pyavd'))
    for label in FEATURES:
        lines.append('  %-42s %10d %10d' % (label, ours['features'][label], theirs['features'][label]))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--rounds', type=int, default=2, help='fresh processes per tool (alternating)')
    parser.add_argument('--iterations', type=int, default=5, help='full pipeline passes per process')
    parser.add_argument('--spines', type=int, default=_common.LEAFSPINE['spines'])
    parser.add_argument('--leaves', type=int, default=_common.LEAFSPINE['leaves'])
    parser.add_argument('--no-save-configs', dest='save_configs', action='store_false',
                        help='do not keep the configurations of round 1 in results/pyavd_compare/')
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--tool', choices=('ours', 'pyavd'), help=argparse.SUPPRESS)
    parser.add_argument('--save-configs', dest='save_configs', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    data = run(args.rounds, args.iterations, args.spines, args.leaves, args.save_configs)
    path = _common.save_result('pyavd_compare.json', data)
    print(report(data))
    print('Results: %s (configurations of round 1: %s)' % (path, os.path.join(_common.RESULTS_DIR, 'pyavd_compare')))
    return 0 if data['pass'] else 1


if __name__ == '__main__':
    sys.exit(main())
