# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NetBox import bundle of the 16,384-GPU fabric through the Python API: CPU time, rows and bytes of each file,
made in memory in a fresh process (the design is built first and not counted), beside the CPU time of rendering every
device in that process (`render.render_into`, serial, nothing written): what the bundle adds to a render's work.
The render runs the bundle's files as documents on its workers beside the devices; the whole playbook with and
without it is `bench_playbook.py --no-netbox`, or paired with farm-bench (docs/testing.md).

    python benchmarks/bench_netbox.py [--platform sonic] [--repeat 3] [--servers 2048]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402  pylint: disable=wrong-import-position


def child(platform_name, servers):
    _common.import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import netbox
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_into
    design = design_from_intent(_common.gpu16k_intent(platform_name, servers))
    files = []
    for item in netbox.FILES:
        started = time.process_time()
        text = netbox.csv_text(item, netbox.Plan(design))
        files.append({'file': item.name, 'cpu': time.process_time() - started, 'rows': text.count('\n') - 1,
                      'bytes': len(text)})
    started = time.process_time()
    for _item in render_into(design, list(design.nodes), None, workers=1):
        pass
    _common.emit({'files': files, 'bundle_cpu': sum(entry['cpu'] for entry in files),
                  'devices_cpu': time.process_time() - started, 'devices': len(design.nodes)})


def run(platform_name='sonic', repeat=3, servers=2048) -> dict:
    before = _common.machine()
    runs = [_common.run_child([os.path.abspath(__file__), '--child', '--platform', platform_name,
                               '--servers', str(servers)]) for _round in range(repeat)]
    return {'benchmark': 'netbox', 'platform': platform_name, 'servers': servers, 'repeat': repeat,
            'machine_before': before, 'machine_after': _common.machine(), 'runs': runs}


def report(data) -> str:
    runs = data['runs']
    lines = ['NetBox bundle of gpu16k (%s switches, %d servers), CPU seconds median (min-max) of %d fresh processes'
             % (data['platform'], data['servers'], data['repeat']),
             'Machine: %s before, %s after' % (_common.load_text(data['machine_before']),
                                               _common.load_text(data['machine_after']))]
    for position, entry in enumerate(runs[0]['files']):
        cpu = _common.fmt_stat(_common.summarize([run['files'][position]['cpu'] for run in runs]), unit=' s', digits=3)
        lines.append('  %-22s %8d rows %11d bytes %s' % (entry['file'], entry['rows'], entry['bytes'], cpu))
    bundle = _common.summarize([run['bundle_cpu'] for run in runs])
    devices = _common.summarize([run['devices_cpu'] for run in runs])
    ratio = _common.summarize([run['bundle_cpu'] / run['devices_cpu'] for run in runs])
    lines.append('  bundle %s; rendering the %d devices (serial, nothing written) %s; bundle / devices %s' % (
        _common.fmt_stat(bundle, unit=' s'), runs[0]['devices'], _common.fmt_stat(devices, unit=' s'),
        _common.fmt_stat(ratio, scale=100, digits=1, unit=' %')))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--platform', default='sonic', choices=_common.switch_platforms())
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--servers', type=int, default=2048)
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.platform, args.servers)
    data = run(args.platform, args.repeat, args.servers)
    print(report(data))
    print('Results: %s' % _common.save_result('netbox.json', data))
    return 0


if __name__ == '__main__':
    sys.exit(main())
