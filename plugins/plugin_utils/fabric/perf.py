# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The performance gate from the GPU side: nccl-tests `all_reduce_perf` and perftest `ib_write_bw` outputs, parsed,
and compared with what the rails' line rate allows times a stated efficiency.

Formats (docs/validation.md cites the sources: NVIDIA/nccl-tests src/common.cu and doc/PERFORMANCE.md,
linux-rdma/perftest):
- all_reduce_perf: '#' header lines ('# nccl-tests version ...', '#  Rank  N Group  G Pid P on HOST device D [BUS] NAME',
  older releases without 'Group'), NCCL INFO/WARN lines interleaved, then one row per message size: size count type
  redop [root] followed twice (out-of-place, in-place) by time algbw busbw and #wrong (an integer or N/A; releases
  before 2.13 print the max error as a float instead), then '# Out of bounds values : N OK|FAILED' and
  '# Avg bus bandwidth    : X'. busbw = algbw x 2(n-1)/n for all_reduce; the average depends on the size range, so
  the gate reads the busbw of the largest sizes.
- ib_write_bw: a banner (Device, Link type, Mtu, GID index ...) then '#bytes #iterations BW peak[Gb/sec] BW
  average[Gb/sec] MsgRate[Mpps]' (MB/sec, that is MiB/s, without --report_gbits) and one row per size (-a) or one row.
Parsers raise PerfError naming the tool and the problem on empty or broken output; they never return a guess.
"""

from __future__ import annotations

import re
from typing import Any

from .printable import visible

MIB_PER_S_TO_GBPS = 1048576 * 8 / 1e9
_RANK = re.compile(r'^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$')
_VERSION = re.compile(r'^# nccl-tests version (\S+)')
_OOB = re.compile(r'^#\s*Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?')
_AVG = re.compile(r'^#\s*Avg bus bandwidth\s*:\s*([\d.eE+-]+)')
_NCCL_LINE = re.compile(r'^\S+:\d+:\d+ \[\d+\] NCCL (INFO|WARN)')
_BW_HEADER = re.compile(r'#bytes\s+#iterations\s+BW peak\[(Gb|MB)/sec\]\s+BW average\[(Gb|MB)/sec\]')


class PerfError(ValueError):
    def __init__(self, tool, message):
        self.tool = tool
        self.message = message
        super().__init__('%s: %s' % (tool, message))


def _number(tool, text, what):
    if text in ('N/A', 'n/a'):
        return None
    try:
        return float(text)
    except ValueError:
        raise PerfError(tool, '%s is not a number: %r' % (what, text)) from None


def parse_all_reduce(text) -> dict:
    """{version, ranks: [{rank, host, device, name}], hosts: {host: ranks}, rows: [{size, count, type, redop,
    out_of_place: {time_us, algbw, busbw, wrong}, in_place: {...}}], out_of_bounds, avg_busbw, nccl_warnings}."""
    tool = 'all_reduce_perf'
    if not isinstance(text, str) or not text.strip():
        raise PerfError(tool, 'empty output')
    parsed: dict[str, Any] = {'version': None, 'ranks': [], 'rows': [], 'out_of_bounds': None, 'avg_busbw': None,
                              'nccl_warnings': []}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if _NCCL_LINE.match(stripped):
            if ' NCCL WARN ' in stripped:
                parsed['nccl_warnings'].append(stripped.split(' NCCL WARN ', 1)[1])
            continue
        if stripped.startswith('#'):
            for pattern, key in ((_VERSION, 'version'),):
                match = pattern.match(stripped)
                if match:
                    parsed[key] = match.group(1)
            rank = _RANK.match(stripped)
            if rank:
                parsed['ranks'].append({'rank': int(rank.group(1)), 'host': rank.group(2), 'device': int(rank.group(3)),
                                        'bus': rank.group(4), 'name': rank.group(5).strip()})
            oob = _OOB.match(stripped)
            if oob:
                parsed['out_of_bounds'] = {'count': int(oob.group(1)), 'ok': oob.group(2) != 'FAILED'}
            avg = _AVG.match(stripped)
            if avg:
                parsed['avg_busbw'] = float(avg.group(1))
            continue
        fields = stripped.split()
        if len(fields) not in (12, 13) or not _DIGITS.match(fields[0]):
            continue  # program messages between the rows (e.g. a launcher's banner)
        head = 5 if len(fields) == 13 else 4
        if not _DIGITS.match(fields[1]):  # a row that lost a column: said, not read shifted
            raise PerfError(tool, 'result row %s has no element count after its size' % _excerpt(stripped))
        halves = []
        for start in (head, head + 4):
            time_us, algbw, busbw, wrong = fields[start:start + 4]
            halves.append({'time_us': _number(tool, time_us, 'time'), 'algbw': _number(tool, algbw, 'algbw'),
                           'busbw': _number(tool, busbw, 'busbw'), 'wrong': _number(tool, wrong, '#wrong')})
        parsed['rows'].append({'size': int(fields[0]), 'count': int(fields[1]), 'type': fields[2], 'redop': fields[3],
                               'out_of_place': halves[0], 'in_place': halves[1],
                               'error_column': '.' in fields[head + 3] or 'e' in fields[head + 3].lower()})
    if not parsed['rows']:
        why = 'NCCL WARN %s' % parsed['nccl_warnings'][-1] if parsed['nccl_warnings'] else _tail(text)
        raise PerfError(tool, 'no result row (the test did not run: %s)' % why)
    hosts = {}
    for rank in parsed['ranks']:
        hosts[rank['host']] = hosts.get(rank['host'], 0) + 1
    parsed['hosts'] = hosts
    return parsed


_DIGITS = re.compile(r'[0-9]+$')  # ASCII digits: str.isdigit() also takes '²', which int() refuses


def _excerpt(line):
    return "'%s'" % visible(line, 120)


def _tail(text, lines=2):
    rest = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    excerpt = ' / '.join(rest)
    return excerpt if len(excerpt) <= 160 else excerpt[:157] + '...'


def largest_busbw(parsed, sizes=3) -> float:
    """busbw of the largest message sizes (the mean of the better of in/out-of-place over the `sizes` largest)."""
    rows = sorted(parsed['rows'], key=lambda row: row['size'])[-sizes:]
    values = [max(value for value in (row['out_of_place']['busbw'], row['in_place']['busbw']) if value is not None)
              for row in rows]
    return sum(values) / len(values)


def wrong_results(parsed) -> int:
    """Rows whose #wrong is not 0 (releases with an error column instead: errors above 1e-3)."""
    bad = 0
    for row in parsed['rows']:
        for half in (row['out_of_place'], row['in_place']):
            value = half['wrong']
            if value is not None and (value > 1e-3 if row['error_column'] else value > 0):
                bad += 1
    return bad


def parse_ib_write_bw(text) -> dict:
    """{device, link_type, mtu, gid_index, units, rows: [{bytes, iterations, bw_peak, bw_avg, msg_rate}],
    bw_avg_gbps (the largest size)}; MB/sec outputs (MiB/s) are converted to Gb/s."""
    tool = 'ib_write_bw'
    if not isinstance(text, str) or not text.strip():
        raise PerfError(tool, 'empty output')
    banner = {}
    for key, name in (('device', 'Device'), ('link_type', 'Link type'), ('mtu', 'Mtu'), ('gid_index', 'GID index'),
                      ('qps', 'Number of qps'), ('transport', 'Transport type')):
        match = re.search(r'%s\s*:\s*(\S+)' % re.escape(name), text)
        banner[key] = match.group(1) if match else None
    header = _BW_HEADER.search(text)
    if not header:
        raise PerfError(tool, 'no result table (the test did not run: %s)' % _tail(text))
    units = header.group(2)
    rows = []
    for line in text[header.end():].splitlines():
        fields = line.split()
        if len(fields) >= 4 and _DIGITS.match(fields[0]) and _DIGITS.match(fields[1]):
            factor = 1.0 if units == 'Gb' else MIB_PER_S_TO_GBPS
            peak, average = _number(tool, fields[2], 'BW peak'), _number(tool, fields[3], 'BW average')
            if peak is None or average is None:
                raise PerfError(tool, 'result row %s has no bandwidth' % _excerpt(line.strip()))
            rows.append({'bytes': int(fields[0]), 'iterations': int(fields[1]),
                         'bw_peak': peak * factor, 'bw_avg': average * factor,
                         'msg_rate': _number(tool, fields[4], 'MsgRate') if len(fields) > 4 else None})
    if not rows:
        raise PerfError(tool, 'the result table has no row (%s)' % _tail(text))
    largest = max(rows, key=lambda row: row['bytes'])
    return dict(banner, units='%s/sec' % units, rows=rows, bw_avg_gbps=largest['bw_avg'],
                mtu_bytes=_mtu(banner['mtu']))


def _mtu(text):
    """The banner's MTU in bytes ('4096[B]'); None when it names none."""
    digits = re.sub(r'[^0-9]', '', text or '')
    return int(digits) if digits else None


# --------------------------------------------------------------------------- the gate
def verdict_of(statuses) -> str:
    if any(status == 'fail' for status in statuses):
        return 'FAILED'
    if any(status == 'pass' for status in statuses):
        return 'PASSED'
    return 'NOT APPLICABLE'


def gate_ib_write_bw(host, rail, text, line_rate_gbps, efficiency) -> dict:
    """One rail's RDMA write bandwidth against line rate x efficiency."""
    required = line_rate_gbps * efficiency
    entry = {'host': host, 'test': 'ib_write_bw rail %s' % rail, 'required': '%.1f Gb/s (%d%% of %d Gb/s)' % (
        required, round(efficiency * 100), line_rate_gbps)}
    try:
        parsed = parse_ib_write_bw(text)
    except PerfError as exc:
        return dict(entry, status='fail', measured='-', verdict=exc.message)
    measured = parsed['bw_avg_gbps']
    ok = measured >= required
    verdict = ('%.1f Gb/s is %d%% of the %d Gb/s line rate' % (measured, round(100 * measured / line_rate_gbps),
                                                               line_rate_gbps))
    if not ok:
        verdict += ', below the %d%% required: look at this rail\'s NIC (PCIe width, MTU %s, GPUDirect) and its leaf ' \
                   'port' % (round(efficiency * 100), parsed['mtu'] or 'unknown')
    return dict(entry, status='pass' if ok else 'fail', measured='%.1f Gb/s' % measured, verdict=verdict,
                mtu=parsed['mtu'], link_type=parsed['link_type'])


def gate_all_reduce(text, rails_gbps, efficiency, host=None) -> dict:
    """all_reduce_perf busbw of the largest sizes against the network ceiling of one node: the sum of the line
    rates of the rails its ranks use (one NIC per GPU), in GB/s, times the efficiency."""
    entry = {'host': host or '-', 'test': 'all_reduce_perf'}
    try:
        parsed = parse_all_reduce(text)
    except PerfError as exc:
        return dict(entry, status='fail', measured='-', required='-', verdict=exc.message)
    if len(parsed['hosts']) == 1:
        return dict(entry, status='not_applicable', measured='-', required='-',
                    verdict='not applicable: all %d ranks ran on %s, so NVLink, not the network, was measured; run it '
                            'across servers' % (len(parsed['ranks']), next(iter(parsed['hosts']))))
    per_node = max(parsed['hosts'].values()) if parsed['hosts'] else len(rails_gbps)
    used = sorted(rails_gbps, reverse=True)[:max(1, min(per_node, len(rails_gbps)))]
    ceiling = sum(used) / 8.0
    required = ceiling * efficiency
    measured = largest_busbw(parsed)
    entry.update(required='%.1f GB/s (%d%% of %d x %d Gb/s)' % (required, round(efficiency * 100), len(used), used[0]),
                 measured='%.1f GB/s' % measured, ranks=len(parsed['ranks']), nodes=len(parsed['hosts']))
    problems = []
    wrong = wrong_results(parsed)
    if wrong:
        problems.append('%d result%s wrong (#wrong > 0): data corruption on the path' % (wrong, 's' if wrong > 1 else ''))
    if parsed['out_of_bounds'] and not parsed['out_of_bounds']['ok']:
        problems.append('%d values out of bounds' % parsed['out_of_bounds']['count'])
    if measured < required:
        problems.append('busbw %.1f GB/s of the largest sizes is %d%% of the %.1f GB/s the rails allow, below the %d%% '
                        'required' % (measured, round(100 * measured / ceiling), ceiling, round(efficiency * 100)))
    if problems:
        return dict(entry, status='fail', verdict='; '.join(problems))
    verdict = 'busbw %.1f GB/s is %d%% of the %.1f GB/s %d rails allow' % (
        measured, round(100 * measured / ceiling), ceiling, len(used))
    if measured > ceiling * 1.05:
        verdict += ' (more than the rails carry: traffic inside the servers dominates; run one rank per server or ' \
                   'NCCL_TESTS_SPLIT to measure the network alone)'
    return dict(entry, status='pass', verdict=verdict)


# --------------------------------------------------------------------------- planning the runs
PERF_DEFAULTS = {
    'ib_write_bw': '/usr/bin/ib_write_bw',
    'all_reduce_perf': '/usr/local/bin/all_reduce_perf',
    'duration_s': 10,
    'qps': 4,
    'base_port': 18515,
    'use_cuda': False,
    'efficiency_ib_write_bw': 0.9,
    'efficiency_all_reduce': 0.8,
    # {hosts}: host:gpus,... of the servers that can run; {np}: their GPU count; {gpus}: GPUs per server;
    # {all_reduce_perf}: the program. Replace it with the site's launcher (srun, mpirun with a hostfile ...).
    'nccl_command': ['mpirun', '--allow-run-as-root', '-np', '{np}', '-H', '{hosts}', '-x', 'NCCL_DEBUG=WARN',
                     '{all_reduce_perf}', '-b', '1G', '-e', '16G', '-f', '2', '-g', '1'],
}


def options_with_defaults(given) -> dict:
    values = dict(PERF_DEFAULTS)
    values.update({key: value for key, value in (given or {}).items() if value is not None})
    return values


def host_readiness(model, gpu_facts, rnic_facts, tools) -> dict:
    """What one GPU server can run: {'ib_write_bw': reason or None, 'all_reduce_perf': reason or None, 'gids': {rail:
    (device, gid index)}}. `tools`: {program: True when found}."""
    reasons, gids = [], {}
    rnic = rnic_facts or {}
    if rnic.get('not_applicable') or not rnic:
        reasons.append(rnic.get('not_applicable') or 'not applicable: RDMA NIC facts were not read')
    else:
        for rail in model['rails']:
            device = (rnic.get('devices') or {}).get(rail['rdma_device'])
            if not device:
                reasons.append('no RDMA device %s for rail %d (%s)' % (rail['rdma_device'], rail['rail'], rail['interface']))
                continue
            gid = next((entry['index'] for port in device.get('ports') or []
                        for entry in port.get('roce_v2_ipv4_gids') or [] if entry.get('ipv4') == rail['ip']), None)
            if gid is None:
                reasons.append('%s has no RoCE v2 GID for %s (rail %d address not on %s?)' % (
                    rail['rdma_device'], rail['ip'], rail['rail'], rail['interface']))
            else:
                gids[rail['rail']] = (rail['rdma_device'], gid)
    bw_reason = '; '.join(reasons) or (None if tools.get('ib_write_bw') else 'ib_write_bw (perftest) is not installed')
    gpu = gpu_facts or {}
    nccl_reasons = list(reasons)
    if gpu.get('not_applicable') or not gpu:
        nccl_reasons.append(gpu.get('not_applicable') or 'not applicable: GPU facts were not read')
    if not tools.get('all_reduce_perf'):
        nccl_reasons.append('all_reduce_perf (nccl-tests) is not installed')
    return {'ib_write_bw': bw_reason, 'all_reduce_perf': '; '.join(nccl_reasons) or None, 'gids': gids,
            'gpus': len(gpu.get('gpus') or []) if not gpu.get('not_applicable') else 0}


def _bw_argv(options, device, gid, port, peer_ip=None, gpu=None):
    argv = [options['ib_write_bw'], '-d', device, '-x', str(gid), '-p', str(port), '-F', '--report_gbits',
            '-D', str(options['duration_s']), '-q', str(options['qps'])]
    if options['use_cuda'] and gpu is not None:
        argv.append('--use_cuda=%d' % gpu)
    return argv + ([peer_ip] if peer_ip else [])


def plan(design, readiness, options) -> dict:
    """Who runs what: {host: {'servers': [...], 'clients': [...], 'nccl': argv | None, 'not_applicable': [reasons]}}.

    ib_write_bw: on every rail, the servers that can run it pair up in name order (client -> server, same rail
    addresses, so the RDMA traffic crosses the rail's leaves); an odd one out runs against the first server.
    all_reduce_perf: launched once, from the first server that can run it, over every server that can.
    """
    options = options_with_defaults(options)
    hosts = sorted(readiness)
    result: dict[str, dict[str, Any]] = {host: {'servers': [], 'clients': [], 'nccl': None, 'not_applicable': []}
                                         for host in hosts}
    for host in hosts:
        for test in ('ib_write_bw', 'all_reduce_perf'):
            if readiness[host][test]:
                result[host]['not_applicable'].append('%s: %s' % (test, readiness[host][test]))
    rails = sorted({rail['rail'] for host in hosts for rail in design.device(host)['rails']})
    for rail in rails:
        ready = [host for host in hosts if not readiness[host]['ib_write_bw'] and rail in readiness[host]['gids']]
        pairs = [(ready[index], ready[index + 1]) for index in range(0, len(ready) - 1, 2)]
        if len(ready) % 2 and len(ready) > 1:
            pairs.append((ready[-1], ready[0]))
        for number, (client, server) in enumerate(pairs):
            port = options['base_port'] + rail * 64 + number
            server_rail = next(item for item in design.device(server)['rails'] if item['rail'] == rail)
            client_rail = next(item for item in design.device(client)['rails'] if item['rail'] == rail)
            device, gid = readiness[server]['gids'][rail]
            result[server]['servers'].append({'rail': rail, 'port': port, 'peer': client,
                                              'argv': _bw_argv(options, device, gid, port, gpu=rail)})
            device, gid = readiness[client]['gids'][rail]
            result[client]['clients'].append({'rail': rail, 'port': port, 'peer': server, 'peer_ip': server_rail['ip'],
                                              'speed_gbps': client_rail['speed_gbps'],
                                              'argv': _bw_argv(options, device, gid, port, server_rail['ip'], gpu=rail)})
    nccl_hosts = [host for host in hosts if not readiness[host]['all_reduce_perf'] and readiness[host]['gpus']]
    if len(nccl_hosts) >= 2:
        gpus = min(readiness[host]['gpus'] for host in nccl_hosts)
        values = {'hosts': ','.join('%s:%d' % (options.get('addresses', {}).get(host, host), gpus) for host in nccl_hosts),
                  'np': str(gpus * len(nccl_hosts)), 'gpus': str(gpus), 'all_reduce_perf': options['all_reduce_perf']}
        result[nccl_hosts[0]]['nccl'] = [str(word).format(**values) for word in options['nccl_command']]
    elif nccl_hosts:
        result[nccl_hosts[0]]['not_applicable'].append('all_reduce_perf: only one server can run it; the network '
                                                       'needs at least two')
    return result


def gate(design, planned, outputs, options) -> dict:
    """{'verdict', 'results': [...], 'not_applicable': [...]} from the plan and what the runs printed.

    outputs: {host: {'clients': [{'rail', 'stdout', 'stderr', 'rc'}], 'nccl': {'stdout', ...} | None}}.
    """
    options = options_with_defaults(options)
    results = []
    for host in sorted(planned):
        for run_ in (outputs.get(host) or {}).get('clients') or []:
            client = next((item for item in planned[host]['clients'] if item['rail'] == run_['rail']), None)
            speed = client['speed_gbps'] if client else design.device(host)['rails'][run_['rail']]['speed_gbps']
            text = (run_.get('stdout') or '') + '\n' + (run_.get('stderr') or '')
            results.append(gate_ib_write_bw(host, run_['rail'], text, speed, options['efficiency_ib_write_bw']))
        nccl = (outputs.get(host) or {}).get('nccl')
        if nccl is not None:
            speeds = [rail['speed_gbps'] for rail in design.device(host)['rails']]
            results.append(gate_all_reduce((nccl.get('stdout') or '') + '\n' + (nccl.get('stderr') or ''), speeds,
                                           options['efficiency_all_reduce'], host))
    skipped = ['%s: %s' % (host, reason) for host in sorted(planned) for reason in planned[host]['not_applicable']]
    return {'verdict': verdict_of([item['status'] for item in results]), 'results': results, 'not_applicable': skipped}


__all__ = ['parse_all_reduce', 'parse_ib_write_bw', 'largest_busbw', 'wrong_results', 'gate_ib_write_bw',
           'gate_all_reduce', 'verdict_of', 'PerfError', 'host_readiness', 'plan', 'gate', 'PERF_DEFAULTS',
           'options_with_defaults']
