# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared helpers of the benchmarks: fabric intents, statistics, machine load, child processes.

Benchmarks run every measured pass in a fresh child process (`python <script> --child ...`) that prints one
JSON line; the parent repeats, aggregates (median, min, max) and notes the machine load. A fresh process per
pass gives an honest peak RSS (ru_maxrss of that process only) and a cold start like a real run.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
RESULTS_DIR = os.path.join(BENCH_DIR, 'results')
COLLECTIONS = os.path.join(ROOT, '.ansible', 'collections')
COLLECTION_LINK = os.path.join(COLLECTIONS, 'ansible_collections', 'aifabric', 'fabric')
RESULT_PREFIX = 'BENCH-RESULT '
GIB = 1024 ** 3


def import_path():
    """Make the checkout importable as ansible_collections.aifabric.fabric (like tests/conftest.py)."""
    parts = ROOT.split(os.sep)
    if parts[-3:-2] == ['ansible_collections']:
        base = os.sep.join(parts[:-3])
    else:
        if not os.path.exists(COLLECTION_LINK):
            os.makedirs(os.path.dirname(COLLECTION_LINK), exist_ok=True)
            os.symlink(ROOT, COLLECTION_LINK)
        base = COLLECTIONS
    if base not in sys.path:
        sys.path.insert(0, base)
    return base


def switch_platforms() -> tuple:
    """The registry's platforms that run on shipped switch models (Platform.uses_models), in the registry's order:
    what the 16,384-GPU fabric can be built of. A new NOS's folder adds it here; nothing lists them by hand."""
    import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
    return tuple(name for name in platforms.platform_names() if platforms.get_platform(name).uses_models)


def release_pair(platform_name: str) -> tuple:
    """Two releases of a platform from the registry, its oldest and its newest: the releases whose words differ most."""
    import_path()
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import platforms
    releases = platforms.get_platform(platform_name).releases
    return (releases[0], releases[-1])


# ----------------------------------------------------------------------------------------------- intents
def gpu16k_intent(switch_platform: str, servers: int = 2048) -> dict:
    """The 16,384-GPU rail-optimized fabric of the issue: 2,048 servers x 8 rails of 400G, non-blocking, 64-port
    leaves (32 down + 32 up), so 3 tiers (16 pods); one EVPN network per rail routed in VRF gpu.

    `servers` shrinks it for smoke tests (same shape, fewer pods)."""
    return {
        'name': 'gpu16k',
        'description': '%d GPUs: %d servers x 8 rails at 400G, rail-optimized, non-blocking (benchmark fabric)' % (
            servers * 8, servers),
        'topology': {
            'rail_optimized': {'servers': servers, 'rails': 8, 'gpus_per_server': 8, 'nic_speed_gbps': 400,
                               'leaf_radix': 64, 'spine_radix': 64, 'oversubscription': 1.0},
            # Each NOS's default switch model (SN5600 for SONiC/NVUE, 7060X6-64PE for EOS), 64 ports per box.
            'platform': {'leaf': switch_platform, 'spine': switch_platform, 'super_spine': switch_platform},
        },
        # 1,280 switches + 2,048 servers from offset 10 fit a /20; the 65,536-GPU fabric (13,312 devices) a /18.
        'management': {'pool': '172.16.0.0/%d' % (20 if servers <= 2048 else 18)},
        'underlay': {'routing': 'ebgp_numbered', 'bfd': True,
                     **({} if servers <= 2048 else {'pools': {'loopback': '10.254.0.0/18', 'vtep': '10.254.64.0/18', 'p2p': '10.0.0.0/13'}})},
        'overlay': {
            'vrfs': [{'name': 'gpu', 'l3vni': 50000}],
            # /20 per rail: 2,048 hosts from offset 10, pods (Kubernetes) in the upper half.
            'networks': [{'name': 'rail%d' % rail, 'vlan': 100 + rail,
                          'subnet': '10.%d.0.0/%d' % (100 + rail, 20 if servers <= 2048 else 18),
                          'vrf': 'gpu', 'rails': [rail]} for rail in range(8)],
        },
        'hosts': {'attachment': 'evpn', 'gpudirect': 'dmabuf'},
        'lossless': {'cable_length_m': {'host_leaf': 10, 'leaf_spine': 50, 'spine_super_spine': 300}},
    }


# The eBGP/EVPN-VXLAN leaf-spine fabric built by both tools in bench_pyavd.py.
LEAFSPINE = {
    'spines': 8,
    'leaves': 64,
    'routed_vlans': [(100 + index, '10.%d.0.0/24' % (100 + index)) for index in range(4)],  # VRF gpu, anycast GW
    'l2_vlans': [200 + index for index in range(4)],  # pure L2VNIs
    'vrf': ('gpu', 50000),  # name, L3VNI
    'l2vni_base': 10000,  # L2VNI = base + VLAN
    'roce_dscp': 26, 'cnp_dscp': 48, 'lossless_priority': 3, 'cnp_priority': 6,
    'mtu': 9214,
}


def leafspine_intent(spines: int = LEAFSPINE['spines'], leaves: int = LEAFSPINE['leaves']) -> dict:
    """aifabric intent of the comparison fabric: explicit topology, EOS, numbered eBGP underlay, EVPN overlay on
    the same sessions, the lossless profile (PFC 3 no-drop + watchdog, ECN queue 3, CNP strict queue 6) on every
    fabric link. No GPU servers: the leaves carry the VLANs/VNIs like the pyavd fabric's leaves."""
    spec = LEAFSPINE
    nodes = [{'name': 'spine%d' % index, 'role': 'spine'} for index in range(1, spines + 1)]
    nodes += [{'name': 'leaf%d' % index, 'role': 'leaf'} for index in range(1, leaves + 1)]
    links = [{'a': 'leaf%d' % leaf, 'a_port': spine, 'b': 'spine%d' % spine, 'b_port': leaf, 'speed_gbps': 400}
             for leaf in range(1, leaves + 1) for spine in range(1, spines + 1)]
    vrf, l3vni = spec['vrf']
    networks = [{'name': 'routed%d' % vlan, 'vlan': vlan, 'subnet': subnet, 'vrf': vrf}
                for vlan, subnet in spec['routed_vlans']]
    networks += [{'name': 'l2vlan%d' % vlan, 'vlan': vlan, 'subnet': '10.%d.0.0/24' % vlan} for vlan in spec['l2_vlans']]
    description = '%d spines + %d leaves, eBGP underlay, EVPN-VXLAN, lossless uplinks (pyavd comparison)' % (
        spines, leaves)
    return {
        'name': 'leafspine',
        'description': description,
        'topology': {
            'explicit': {'nodes': nodes, 'links': links},
            'platform': {'leaf': 'eos', 'spine': 'eos', 'super_spine': 'eos'},
            'asic': {'leaf': 'tomahawk5', 'spine': 'tomahawk5', 'super_spine': 'tomahawk5'},
        },
        'management': {'pool': '192.168.0.0/24'},
        'underlay': {'routing': 'ebgp_numbered',
                     'pools': {'loopback': '10.255.0.0/24', 'vtep': '10.255.1.0/24', 'p2p': '10.254.0.0/20'}},
        'overlay': {'l2vni_base': spec['l2vni_base'], 'vrfs': [{'name': vrf, 'l3vni': l3vni}], 'networks': networks},
        'lossless': {
            'roce_dscp': spec['roce_dscp'], 'cnp_dscp': spec['cnp_dscp'], 'cnp_priority': spec['cnp_priority'],
            'pfc': {'priorities': [spec['lossless_priority']]}, 'mtu': {'switch': spec['mtu']},
        },
    }


def pyavd_inputs(spines: int = LEAFSPINE['spines'], leaves: int = LEAFSPINE['leaves']) -> dict:
    """pyavd (AVD eos_designs) inputs of the same fabric, keyed by hostname: l3ls-evpn design, eBGP underlay
    and EVPN overlay (AVD defaults), one tenant with the same VLANs/VNIs and VRF/L3VNI, and the lossless qos
    profile bound to every uplink with p2p_uplinks_qos_profile (PFC priority 3 no-drop + watchdog, ECN on
    tx-queue 3, strict tx-queue 6), the lines this collection's EOS renderer writes (docs/platform-eos.md)."""
    spec = LEAFSPINE
    vrf, l3vni = spec['vrf']
    qos_profile = {
        'name': 'LOSSLESS',
        'trust': 'dscp',
        'tx_queues': [
            {'id': 3, 'bandwidth_percent': 50,
             'random_detect': {'ecn': {'threshold': {'units': 'kbytes', 'min': 150, 'max': 1500,
                                                     'max_probability': 100}}}},
            {'id': 6, 'priority': 'priority strict'},
            {'id': 0, 'bandwidth_percent': 50},
        ],
        'priority_flow_control': {
            'enabled': True,
            'priorities': [{'priority': spec['lossless_priority'], 'no_drop': True}],
            'watchdog': {'enabled': True, 'action': 'drop',
                         'timer': {'timeout': 0.2, 'polling_interval': 0.1, 'recovery_time': 0.2}},
        },
    }
    device_qos = {
        'qos_profiles': [qos_profile],
        'qos': {'map': {'dscp': ['%d to traffic-class %d' % (spec['roce_dscp'], spec['lossless_priority']),
                                 '%d to traffic-class %d' % (spec['cnp_dscp'], spec['cnp_priority'])]}},
    }
    common = {
        'fabric_name': 'LEAFSPINE',
        'underlay_routing_protocol': 'ebgp',
        'overlay_routing_protocol': 'ebgp',
        'p2p_uplinks_mtu': spec['mtu'],
        'p2p_uplinks_qos_profile': 'LOSSLESS',
        'bgp_peer_groups': {'evpn_overlay_peers': {'password': None}, 'ipv4_underlay_peers': {'password': None}},
        'spine': {
            'defaults': {'platform': '7060X6', 'bgp_as': '65100', 'loopback_ipv4_pool': '10.255.0.0/24',
                         'structured_config': device_qos},
            'nodes': [{'name': 'spine%d' % index, 'id': index, 'mgmt_ip': '192.168.0.%d/24' % (10 + index)}
                      for index in range(1, spines + 1)],
        },
        'l3leaf': {
            'defaults': {
                'platform': '7060X6', 'loopback_ipv4_pool': '10.255.0.0/24', 'loopback_ipv4_offset': spines,
                'vtep_loopback_ipv4_pool': '10.255.1.0/24', 'uplink_ipv4_pool': '10.254.0.0/20',
                'uplink_switches': ['spine%d' % index for index in range(1, spines + 1)],
                'uplink_interfaces': ['Ethernet%d/1' % index for index in range(1, spines + 1)],
                'max_uplink_switches': spines, 'virtual_router_mac_address': '02:00:00:00:01:01',
                'bgp_as': '4200000001-4200000999', 'spanning_tree_mode': 'none', 'mlag': False,
                'structured_config': device_qos,
            },
            'nodes': [{'name': 'leaf%d' % index, 'id': index, 'mgmt_ip': '192.168.0.%d/24' % (10 + spines + index),
                       'uplink_switch_interfaces': ['Ethernet%d/1' % index] * spines}
                      for index in range(1, leaves + 1)],
        },
        'tenants': [{
            'name': 'AI',
            'mac_vrf_vni_base': spec['l2vni_base'],
            'vrfs': [{'name': vrf, 'vrf_vni': l3vni,
                      'svis': [{'id': vlan, 'name': 'routed%d' % vlan, 'enabled': True,
                                'ip_address_virtual': '%s.1/24' % subnet.rsplit('.', 1)[0]}
                               for vlan, subnet in spec['routed_vlans']]}],
            'l2vlans': [{'id': vlan, 'name': 'l2vlan%d' % vlan} for vlan in spec['l2_vlans']],
        }],
    }
    inputs = {}
    for index in range(1, spines + 1):
        inputs['spine%d' % index] = dict(common, type='spine')
    for index in range(1, leaves + 1):
        inputs['leaf%d' % index] = dict(common, type='l3leaf')
    return inputs


def config_lines(text: str, comment: str = '!') -> int:
    """Configuration lines without blanks and comment-only lines."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith(comment))


# ----------------------------------------------------------------------------------------------- statistics
def summarize(values):
    values = [value for value in values if value is not None]
    if not values:
        return None
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values), 'n': len(values)}


def fmt_stat(stat, scale=1.0, digits=2, unit=''):
    if not stat:
        return 'n/a'
    if stat['n'] == 1:
        return '%.*f%s' % (digits, stat['median'] * scale, unit)
    return '%.*f%s (%.*f-%.*f, n=%d)' % (
        digits, stat['median'] * scale, unit, digits, stat['min'] * scale, digits, stat['max'] * scale, stat['n'])


def cpus() -> int:
    """CPUs this process may run on (what the render workers use)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@functools.lru_cache(maxsize=1)
def cpu_reference_seconds() -> float:
    """CPU seconds one core of this machine takes for a fixed pure-Python loop (10 million additions in a
    function): the scale for comparing figures taken on different machines or days."""
    started = time.process_time()
    total = 0
    for value in range(10_000_000):
        total += value
    return round(time.process_time() - started, 2)


def machine() -> dict:
    load = os.getloadavg()
    return {
        'loadavg': [round(value, 2) for value in load],
        'cpus': os.cpu_count(),
        'cpu_reference_s': cpu_reference_seconds(),
        'python': platform.python_version(),
        'platform': platform.platform(),
        'time': time.strftime('%Y-%m-%dT%H:%M:%S%z'),
    }


def load_text(info=None) -> str:
    info = info or machine()
    return 'load average %s on %d CPUs, Python reference loop %.2f s CPU' % (
        ' '.join('%.2f' % value for value in info['loadavg']), info['cpus'], info.get('cpu_reference_s', float('nan')))


# ----------------------------------------------------------------------------------------------- children
# Linux ext4 without a journal (this build machine's root file system: /sys/fs/ext4/<disk>/journal_task reads
# "<none>") does not hand out an inode freed less than 60 s ago (RECENTCY_MIN), or less than 360 s ago while the
# block of the inode table that holds it is dirty (RECENTCY_DIRTY) -- and creating files dirties exactly those
# blocks. find_inode_bit() calls recently_deleted() on every such free inode before it picks one, so creating
# files within 6 minutes of deleting thousands costs several times the system time (Linux fs/ext4/ialloc.c;
# journaled ext4 skips the check). A benchmark that deleted the previous pass's output would charge that scan to
# the next pass: scratch directories stay until the script (or run_all.py) ends, and a script first waits until
# the inodes its predecessor freed are out of the window.
RECENTLY_DELETED_SECONDS = 60 + 300 + 1
_SCRATCH = []
_KEEP_SCRATCH = []  # non-empty while run_all.py holds every script's scratch until it ends
_REMOVED_STAMP = os.path.join(RESULTS_DIR, '.scratch-removed')


def scratch(prefix, parent=None) -> str:
    """A fresh temporary directory that stays until remove_scratch() (the end of the benchmark script)."""
    path = tempfile.mkdtemp(prefix=prefix, dir=parent)
    _SCRATCH.append(path)
    return path


def remove_scratch():
    """Remove every scratch directory of this script and note when, for the next script's settle()."""
    if _KEEP_SCRATCH:
        return
    removed = False
    while _SCRATCH:
        path = _SCRATCH.pop()
        removed = removed or os.path.exists(path)
        shutil.rmtree(path, ignore_errors=True)
    if removed:
        os.makedirs(RESULTS_DIR, exist_ok=True)
        with open(_REMOVED_STAMP, 'w', encoding='utf-8') as handle:
            handle.write('%f\n' % time.time())


@contextlib.contextmanager
def scratch_kept():
    """Keep every scratch directory until the block ends (run_all.py: no deletion, so no wait, between scripts)."""
    _KEEP_SCRATCH.append(True)
    try:
        yield
    finally:
        _KEEP_SCRATCH.pop()
        remove_scratch()


def release(path):
    """Remove one scratch directory now: for tmpfs (RAM), which has no recently-deleted window to wait out."""
    if path in _SCRATCH:
        _SCRATCH.remove(path)
    shutil.rmtree(path, ignore_errors=True)


def settle() -> float:
    """Flush what earlier passes wrote and deleted (sync(2)), so that the file system's writeback and, on a disk
    mounted with `discard`, the trimming of deleted files are not charged to the next measured pass; then wait
    until the inodes a previous script freed are past the recently-deleted window. Returns the seconds waited."""
    os.sync()
    try:
        with open(_REMOVED_STAMP, encoding='utf-8') as handle:
            removed_at = float(handle.read().strip() or 0)
    except (OSError, ValueError):
        return 0.0
    wait = removed_at + RECENTLY_DELETED_SECONDS - time.time()
    if wait > 0:
        sys.stderr.write('waiting %.0f s: the files of the previous benchmark were deleted %.0f s ago, and ext4 '
                         'without a journal scans inodes freed in the last %d s on every file creation\n'
                         % (wait, time.time() - removed_at, RECENTLY_DELETED_SECONDS))
        time.sleep(wait)
    return max(0.0, wait)


def file_system_reference(work, files, directories, size) -> dict:
    """What the file system alone costs for a render's output: `files` files of `size` bytes in `directories`
    directories, created in the empty directory `work` by one process with plain os.open/write/close (no
    rendering, no hashing). Wall and system seconds, measured beside a benchmark pass so that its disk figures can
    be read against the disk of the moment."""
    settle()
    data = b'x' * size
    per_directory = -(-files // max(1, directories))
    started, system = time.perf_counter(), os.times().system
    made = 0
    for index in range(directories):
        directory = os.path.join(work, 'd%d' % index)
        os.mkdir(directory)
        for number in range(min(per_directory, files - made)):
            handle = os.open(os.path.join(directory, 'f%d' % number), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(handle, data)
            os.close(handle)
            made += 1
    return {'wall': time.perf_counter() - started, 'sys': os.times().system - system, 'files': made,
            'directories': directories, 'size': size}


def run_child(argv, env=None, timeout=3600, python=None):
    """Run `python argv...` (after settle()) and return the JSON object it printed after RESULT_PREFIX (raise on
    failure)."""
    settle()
    command = [python or sys.executable] + list(argv)
    started = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          timeout=timeout, check=False)
    wall = time.perf_counter() - started
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            result = json.loads(line[len(RESULT_PREFIX):])
    if proc.returncode != 0 or result is None:
        raise RuntimeError('benchmark child failed (exit %d): %s\n--- stdout\n%s\n--- stderr\n%s'
                           % (proc.returncode, ' '.join(command), proc.stdout[-4000:], proc.stderr[-4000:]))
    result['process_wall_s'] = wall
    return result


def measured(argv, env, cwd):
    """(process, wall, CPU, peak RSS of it and its children) of a command, run through a wrapper process of its own."""
    wrapper = ('import json, resource, subprocess, sys, time\n'
               'started = time.perf_counter()\n'
               'code = subprocess.call(sys.argv[1:])\n'
               'usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n'
               'sys.stderr.write("\\nBENCH-USAGE " + json.dumps({"wall": time.perf_counter() - started, "cpu": usage.ru_utime '
               '+ usage.ru_stime, "rss": usage.ru_maxrss * 1024}) + "\\n")\n'
               'sys.exit(code)\n')
    proc = subprocess.run([sys.executable, '-c', wrapper] + argv, cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=7200)
    usage = json.loads(proc.stderr.rsplit('BENCH-USAGE ', 1)[1])
    return proc, usage['wall'], usage['cpu'], usage['rss']


def emit(result: dict):
    """Child side: print the one result line the parent reads."""
    sys.stdout.write(RESULT_PREFIX + json.dumps(result, sort_keys=True) + '\n')
    sys.stdout.flush()


def peak_rss_bytes() -> int:
    """Peak resident set size of this process (Linux ru_maxrss is in KiB)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def save_result(name: str, data: dict) -> str:
    os.makedirs(RESULTS_DIR, exist_ok=True)
    path = os.path.join(RESULTS_DIR, name)
    with open(path, 'w', encoding='utf-8') as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write('\n')
    return path
