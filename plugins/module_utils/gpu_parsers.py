# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and pure decisions for GPUs and GPUDirect RDMA (stdlib only: they run inside modules).

Formats (docs/hosts.md lists the sources): `nvidia-smi topo -m` (tab- or space-separated, ANSI header, with or
without NUMA Affinity / GPU NUMA ID, NIC legend or device-named columns), `nvidia-smi --query-gpu ... --format=
csv,noheader`, /proc/driver/nvidia/version, lsmod and /proc/modules, /proc/kallsyms, modules-load.d files,
`lspci -vvv` ACSCtl lines, /proc/cmdline and IOMMU group types, modprobe/dmesg failure text.
"""

from __future__ import annotations

import csv
import io
import re

from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import (
    ParseError, first_line, require_text, version_tuple,
)

# ------------------------------------------------------------------------------------------- nvidia-smi topo

TRAILING_COLUMNS = ('CPU Affinity', 'NUMA Affinity', 'GPU NUMA ID')
# Closest first. NV# (NVLink) only appears between GPUs.
PATH_RANK = {'X': 0, 'NV': 1, 'PIX': 2, 'PXB': 3, 'PHB': 4, 'NODE': 5, 'SYS': 6}
# nvidia-smi name -> NCCL path type (src/graph/topo.cc): NODE is NCCL's PHB.
NCCL_PATH = {'PIX': 'PIX', 'PXB': 'PXB', 'PHB': 'PHB', 'NODE': 'PHB', 'SYS': 'SYS'}


def _path_rank(cell):
    if cell.startswith('NV') and cell[2:].isdigit():
        return PATH_RANK['NV']
    return PATH_RANK.get(cell)


def parse_nvidia_smi_topo(text):
    """`nvidia-smi topo -m` -> {'columns': [...], 'gpus': {...}, 'nics': {...}, 'nic_names': {NIC0: mlx5_0}}.

    gpus: {'GPU0': {'links': {'GPU1': 'NV18', 'NIC0': 'PIX'}, 'cpu_affinity': '0-23,96-119',
           'numa_affinity': 0|None, 'gpu_numa_id': int|None}}
    nics: {'NIC0': {'name': 'mlx5_0', 'links': {...}}}. Old drivers name NIC columns after the device
    (mlx5_0) and print no legend; then name == column.
    """
    tool = 'nvidia-smi topo -m'
    text = require_text(tool, text)
    lines = text.splitlines()
    header_index = None
    for index, line in enumerate(lines):
        if line.strip():
            header_index = index
            break
    header = lines[header_index]
    tokens = header.split()
    if not tokens or not re.match(r'^GPU\d+$', tokens[0]):
        raise ParseError(tool, "header must start with 'GPU0' (is this nvidia-smi topo -m output?)", header)
    cut = header.find('CPU Affinity')
    matrix_part = header if cut < 0 else header[:cut]
    trailing_part = '' if cut < 0 else header[cut:]
    columns = matrix_part.split()
    trailing = [name for name in TRAILING_COLUMNS if name in trailing_part]
    width = len(columns)
    gpus, nics = {}, {}
    index = header_index + 1
    while index < len(lines):
        raw = lines[index]
        if not raw.strip():
            break
        if raw.strip().startswith('Legend'):
            break
        cells = raw.split()
        label = cells[0]
        if label not in columns:
            raise ParseError(tool, 'row %s is not one of the header columns' % label, raw)
        if len(cells) < 1 + width:
            raise ParseError(tool, 'row %s has %d matrix cells, the header has %d columns'
                             % (label, len(cells) - 1, width), raw)
        matrix = cells[1:1 + width]
        links = {}
        for column, cell in zip(columns, matrix):
            if column == label:
                if cell != 'X':
                    raise ParseError(tool, 'self cell of %s must be X' % label, raw)
                continue
            if _path_rank(cell) is None:
                raise ParseError(tool, 'unknown connection type %r between %s and %s' % (cell, label, column), raw)
            links[column] = cell
        rest = cells[1 + width:]
        if label.startswith('GPU'):
            entry = {'links': links, 'cpu_affinity': None, 'numa_affinity': None, 'gpu_numa_id': None}
            for name, value in zip(trailing, rest):
                key = name.lower().replace(' ', '_')
                if key == 'cpu_affinity':
                    entry[key] = None if value == 'N/A' else value
                else:
                    entry[key] = int(value) if value.isdigit() else None
            gpus[label] = entry
        else:
            nics[label] = {'name': label, 'links': links}
        index += 1
    if not gpus:
        raise ParseError(tool, 'no GPU rows under the header', header)
    legend = {}
    for raw in lines[index:]:
        match = re.match(r'^\s+(NIC\d+):\s*(\S+)\s*$', raw)
        if match:
            legend[match.group(1)] = match.group(2)
    for column, nic in nics.items():
        nic['name'] = legend.get(column, column)
    missing = [column for column in nics if column.startswith('NIC') and column not in legend]
    if missing:
        raise ParseError(tool, 'NIC legend lacks %s (truncated output?)' % ', '.join(missing))
    return {'columns': columns, 'gpus': gpus, 'nics': nics,
            'nic_names': {column: nic['name'] for column, nic in nics.items()}}


def gpu_nic_affinity(topo):
    """Per GPU the closest NIC(s): {'GPU0': {'nics': ['mlx5_0'], 'path': 'PIX', 'nccl_path': 'PIX',
    'numa': 0, 'gdr_capable': True}}. gdr_capable: closest path within NCCL's default GDR level (PXB)."""
    result = {}
    for gpu, entry in topo['gpus'].items():
        best_rank, best = None, []
        for column, cell in entry['links'].items():
            if column not in topo['nics']:
                continue
            rank = _path_rank(cell)
            if best_rank is None or rank < best_rank:
                best_rank, best = rank, [column]
            elif rank == best_rank:
                best.append(column)
        path = entry['links'][best[0]] if best else None
        result[gpu] = {'nics': [topo['nics'][column]['name'] for column in best], 'path': path,
                       'nccl_path': NCCL_PATH.get(path), 'numa': entry['numa_affinity'],
                       'gdr_capable': path in ('PIX', 'PXB') if path else False}
    return result


def rail_affinity_problems(affinity, rail_devices):
    """Rail-optimized expectation: each GPU has exactly one closest NIC at PIX/PXB, and that NIC is a rail NIC.

    Returns human-readable problems (empty when the topology matches). rail_devices: RDMA devices in rail order.
    """
    problems = []
    for gpu, item in sorted(affinity.items(), key=lambda pair: int(pair[0][3:])):
        if not item['nics']:
            problems.append('%s has no NIC in the topology matrix' % gpu)
            continue
        if not item['gdr_capable']:
            problems.append('%s reaches its closest NIC (%s) only via %s: GPUDirect RDMA is off at NCCL\'s default '
                            'NCCL_NET_GDR_LEVEL (PXB)' % (gpu, ', '.join(item['nics']), item['path']))
        rails = [nic for nic in item['nics'] if nic in rail_devices]
        if rail_devices and not rails:
            problems.append('%s is closest to %s, which is not a rail NIC (rails: %s)'
                            % (gpu, ', '.join(item['nics']), ', '.join(rail_devices)))
    return problems


# ------------------------------------------------------------------------------------------- nvidia-smi query

GPU_QUERY_FIELDS = ('index', 'pci.bus_id', 'name', 'uuid', 'driver_version', 'memory.total')


def parse_nvidia_smi_query(text, fields=GPU_QUERY_FIELDS):
    """`nvidia-smi --query-gpu=<fields> --format=csv,noheader` -> list of dicts keyed by field."""
    tool = 'nvidia-smi --query-gpu'
    text = require_text(tool, text)
    classify = classify_nvidia_smi_failure(text)
    if classify:
        raise ParseError(tool, classify, first_line(text))
    rows = []
    for record in csv.reader(io.StringIO(text), skipinitialspace=True):
        if not record or not ''.join(record).strip():
            continue
        if len(record) != len(fields):
            raise ParseError(tool, 'expected %d comma-separated fields (%s)' % (len(fields), ','.join(fields)),
                             ', '.join(record))
        row = {field.replace('.', '_'): value.strip() for field, value in zip(fields, record)}
        if 'index' in row:
            if not row['index'].isdigit():
                raise ParseError(tool, 'GPU index is not a number', ', '.join(record))
            row['index'] = int(row['index'])
        rows.append(row)
    if not rows:
        raise ParseError(tool, 'no GPU rows')
    return rows


def classify_nvidia_smi_failure(text):
    """A clear sentence for nvidia-smi's known failure messages, None for normal output."""
    head = first_line(text or '')
    if "couldn't communicate with the NVIDIA driver" in (text or ''):
        return 'the NVIDIA driver is not loaded or does not match nvidia-smi (reinstall/reload the driver)'
    if head.startswith('No devices were found'):
        return 'the NVIDIA driver sees no GPU'
    if 'Driver/library version mismatch' in (text or ''):
        return 'driver/library version mismatch: the loaded kernel module and the user-space driver differ ' \
               '(reboot or reload the nvidia modules after a driver update)'
    return None


# ------------------------------------------------------------------------------------------- driver

def parse_driver_version_file(text):
    """/proc/driver/nvidia/version -> {'version': '550.54.15', 'flavor': 'open'|'proprietary'}."""
    tool = '/proc/driver/nvidia/version'
    text = require_text(tool, text)
    line = first_line(text)
    match = re.match(r'^NVRM version:\s+NVIDIA UNIX (.*?)\s+(\d+\.\d+(?:\.\d+)?)\s', line + ' ')
    if not match:
        raise ParseError(tool, "expected 'NVRM version: NVIDIA UNIX ... <version>'", line)
    flavor = 'open' if 'Open Kernel Module' in match.group(1) else 'proprietary'
    return {'version': match.group(2), 'flavor': flavor}


def module_flavor_from_license(license_text):
    """`modinfo -F license nvidia`: 'Dual MIT/GPL' = open kernel modules, 'NVIDIA' = proprietary."""
    value = (license_text or '').strip()
    if value == 'Dual MIT/GPL':
        return 'open'
    if value == 'NVIDIA':
        return 'proprietary'
    return None


# ------------------------------------------------------------------------------------------- modules

def parse_lsmod(text):
    """lsmod -> {module: {'size': int, 'used': int, 'used_by': [module]}}."""
    tool = 'lsmod'
    text = require_text(tool, text)
    lines = text.splitlines()
    if not lines[0].startswith('Module'):
        raise ParseError(tool, "expected the 'Module  Size  Used by' header", lines[0])
    modules = {}
    for raw in lines[1:]:
        fields = raw.split()
        if not fields:
            continue
        if len(fields) < 3 or not fields[1].isdigit() or not fields[2].lstrip('-').isdigit():
            raise ParseError(tool, 'expected NAME SIZE COUNT [USERS]', raw)
        modules[fields[0]] = {'size': int(fields[1]), 'used': int(fields[2]),
                              'used_by': [name for name in (fields[3].split(',') if len(fields) > 3 else []) if name]}
    return modules


def parse_proc_modules(text):
    """/proc/modules ('nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)') -> same shape as parse_lsmod."""
    tool = '/proc/modules'
    if text is None or not str(text).strip():
        return {}
    text = require_text(tool, text)
    modules = {}
    for raw in text.splitlines():
        fields = raw.split()
        if not fields:
            continue
        if len(fields) < 4 or not fields[1].isdigit():
            raise ParseError(tool, 'expected NAME SIZE COUNT USERS STATE ADDRESS', raw)
        users = [] if fields[3] == '-' else [name for name in fields[3].split(',') if name]
        modules[fields[0]] = {'size': int(fields[1]), 'used': int(fields[2]) if fields[2].isdigit() else 0,
                              'used_by': users, 'state': fields[4] if len(fields) > 4 else None}
    return modules


PEER_SYMBOLS = ('ib_register_peer_memory_client', 'ib_unregister_peer_memory_client')


def parse_kallsyms(text, symbols=PEER_SYMBOLS):
    """/proc/kallsyms -> {symbol: module or 'vmlinux'} for the wanted symbols that are present."""
    found = {}
    if not text:
        return found
    wanted = set(symbols)
    for raw in text.splitlines():
        fields = raw.split()
        if len(fields) < 3 or fields[2] not in wanted:
            continue
        owner = fields[3].strip('[]') if len(fields) > 3 else 'vmlinux'
        found[fields[2]] = owner
    return found


def parse_modules_load(text):
    """A modules-load.d file -> module names (one per line, '#' and ';' comments)."""
    names = []
    for raw in (text or '').splitlines():
        line = raw.strip()
        if not line or line[0] in '#;':
            continue
        names.append(line)
    return names


def normalize_module(name):
    return name.replace('-', '_')


# ------------------------------------------------------------------------------------------- modprobe

def classify_peermem_load_failure(stderr, dmesg='', peer_api=None, kernel=None):
    """Cause and fix for a failed `modprobe nvidia-peermem`.

    Returns {'cause': key, 'message': sentence, 'fix': sentence}. peer_api: whether the running ib_core exports
    ib_register_peer_memory_client (from /proc/kallsyms), None when unknown.
    """
    err = stderr or ''
    log = '\n'.join(line for line in (dmesg or '').splitlines()
                    if 'peermem' in line or 'peer_mem' in line or 'nv_mem' in line)
    mismatch = 'disagrees about version of symbol' in log
    if re.search(r'FATAL: Module nvidia[-_]peermem not found', err):
        return _failure('not_installed', 'nvidia-peermem.ko is not installed for kernel %s' % (kernel or 'in use'),
                        'install an NVIDIA driver >= R470 built for this kernel (it ships nvidia-peermem), or use '
                        'gpudirect: dmabuf')
    if 'Key was rejected by service' in err or 'Operation not permitted' in err:
        return _failure('not_permitted', 'the kernel refused the module (Secure Boot / lockdown needs signed modules, '
                        'or not run as root)', 'sign the NVIDIA DKMS modules with an enrolled MOK key, or run as root')
    if 'Exec format error' in err or ('version magic' in log and 'Invalid argument' in err):
        return _failure('wrong_kernel', 'nvidia-peermem was built for another kernel (version magic mismatch)',
                        'rebuild the NVIDIA modules for kernel %s (dkms autoinstall) or boot the kernel they were '
                        'built for' % (kernel or 'in use'))
    if 'Unknown symbol in module' in err or 'Invalid argument' in err:
        if mismatch:
            return _failure('symbol_mismatch', 'nvidia-peermem was built against a different ib_core than the one '
                            'loaded (dmesg: disagrees about version of symbol ib_register_peer_memory_client): '
                            'MLNX_OFED/DOCA-OFED was installed, upgraded or rebuilt after the NVIDIA driver',
                            'rebuild the NVIDIA kernel modules against the current OFED (dkms autoinstall, or '
                            'reinstall the nvidia-dkms package), then load again; keep the order OFED first, NVIDIA '
                            'driver second')
        if peer_api is False:
            return _failure('no_peer_api', 'the loaded ib_core does not export the PeerDirect API '
                            '(ib_register_peer_memory_client): this is the inbox RDMA stack, not MLNX_OFED/DOCA-OFED',
                            'install MLNX_OFED or DOCA-OFED, then rebuild the NVIDIA driver; or use gpudirect: dmabuf '
                            '(open kernel modules, kernel >= 5.12, no nvidia-peermem needed)')
        if 'Unknown symbol in module' in err:
            return _failure('symbol_mismatch', 'nvidia-peermem needs a symbol the loaded kernel modules do not '
                            'export (%s)' % (first_line(log) or 'see dmesg'),
                            'rebuild the NVIDIA kernel modules against the loaded OFED (dkms autoinstall)')
        return _failure('built_without_ofed', 'nvidia-peermem returned -EINVAL from module_init: it was compiled '
                        'without the MLNX_OFED peer-memory symbols (the NVIDIA driver was built before OFED was '
                        'installed); the module prints nothing in dmesg in this case',
                        'with MLNX_OFED/DOCA-OFED installed, rebuild/reinstall the NVIDIA driver (dkms autoinstall, '
                        'or reinstall the driver package) so its conftest finds /usr/src/ofa_kernel; then modprobe '
                        'nvidia-peermem again')
    return _failure('unknown', 'modprobe nvidia-peermem failed: %s' % (first_line(err) or 'no error text'),
                    'see dmesg for nvidia-peermem lines (%s)' % (first_line(log) or 'none found'))


def _failure(cause, message, fix):
    return {'cause': cause, 'message': message, 'fix': fix}


# ------------------------------------------------------------------------------------------- PCIe ACS / IOMMU

_LSPCI_DEVICE = re.compile(r'^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+(.*)$')
ACS_REDIRECT_FLAGS = ('SrcValid', 'ReqRedir', 'CmpltRedir')


def parse_lspci_acs(text):
    """`lspci -vvv` -> [{'bdf', 'description', 'acsctl': {flag: bool}}] for devices with an ACSCtl line."""
    tool = 'lspci -vvv'
    text = require_text(tool, text)
    devices = []
    current = None
    saw_device = False
    for raw in text.splitlines():
        match = _LSPCI_DEVICE.match(raw)
        if match and not raw.startswith((' ', '\t')):
            saw_device = True
            current = {'bdf': match.group(1), 'description': match.group(2).strip(), 'acsctl': None}
            continue
        stripped = raw.strip()
        if current is not None and stripped.startswith('ACSCtl:'):
            flags = {}
            for token in stripped.split(':', 1)[1].split():
                if token[-1:] in '+-' and len(token) > 1:
                    flags[token[:-1]] = token[-1] == '+'
            if not flags:
                raise ParseError(tool, 'ACSCtl line without flags', raw)
            current['acsctl'] = flags
            devices.append(current)
    if not saw_device:
        raise ParseError(tool, 'no PCI device header lines (BB:DD.F description)', first_line(text))
    return devices


def acs_problems(devices):
    """Bridges whose ACS redirects peer-to-peer traffic to the root complex (breaks/slows GPUDirect)."""
    problems = []
    for device in devices:
        flags = device['acsctl'] or {}
        active = [flag for flag in ACS_REDIRECT_FLAGS if flags.get(flag)]
        if active:
            problems.append({'bdf': device['bdf'], 'description': device['description'], 'enabled': active})
    return problems


def iommu_report(cmdline, group_types):
    """IOMMU facts from /proc/cmdline and /sys/kernel/iommu_groups/*/type values.

    Returns {'cmdline': {...}, 'mode': 'off'|'passthrough'|'translated'|'unknown', 'problems': [str]}.
    """
    params = {}
    for token in (cmdline or '').split():
        key, dummy, value = token.partition('=')
        if key in ('iommu', 'intel_iommu', 'amd_iommu', 'pci'):
            params[key] = value
    types = sorted(set(group_types or []))
    problems = []
    if not types:
        mode = 'off'
    elif all(value == 'identity' for value in types):
        mode = 'passthrough'
    elif any(value.startswith('DMA') for value in types):
        mode = 'translated'
        problems.append('IOMMU groups use DMA translation (%s): GPUDirect peer-to-peer goes through the IOMMU; '
                        'use passthrough (kernel command line iommu=pt%s)'
                        % (', '.join(types), ' intel_iommu=on' if params.get('intel_iommu') else ''))
    else:
        mode = 'unknown'
    if params.get('amd_iommu') == 'on':
        problems.append('amd_iommu=on is not a valid value on many kernels (AMD-Vi: Unknown option); AMD IOMMU is '
                        'on by default, use iommu=pt')
    return {'cmdline': params, 'group_types': types, 'mode': mode, 'problems': problems}


# ------------------------------------------------------------------------------------------- decisions

def rdma_core_version_from_libs(names):
    """libibverbs.so.1.<abi>.<rdma-core>.0 file names -> rdma-core major version (int) or None."""
    best = None
    for name in names:
        match = re.match(r'^libibverbs\.so\.1\.\d+\.(\d+)\.\d+$', name)
        if match:
            value = int(match.group(1))
            best = value if best is None else max(best, value)
    return best


def dmabuf_capability(kernel, flavor, driver_version, rdma_core):
    """Can GPUDirect RDMA use DMA-BUF (no nvidia-peermem)? NVIDIA GPU Operator requirements.

    kernel >= 5.12, open kernel modules, driver >= R515 (CUDA 11.7), rdma-core >= 34 (ibv_reg_dmabuf_mr).
    Returns {'capable': True|False|None, 'missing': [str], 'unknown': [str]}; None = cannot tell.
    """
    missing, unknown = [], []
    kv = version_tuple(kernel) if kernel else None
    if kv is None:
        unknown.append('kernel version')
    elif kv[:2] < (5, 12):
        missing.append('kernel %s < 5.12' % kernel)
    if flavor is None:
        unknown.append('NVIDIA kernel module flavor')
    elif flavor != 'open':
        missing.append('proprietary NVIDIA kernel modules (DMA-BUF needs the open kernel modules)')
    dv = version_tuple(driver_version) if driver_version else None
    if dv is None:
        unknown.append('NVIDIA driver version')
    elif dv[0] < 515:
        missing.append('NVIDIA driver %s < R515 (CUDA 11.7)' % driver_version)
    if rdma_core is None:
        unknown.append('rdma-core version')
    elif rdma_core < 34:
        missing.append('rdma-core %s < 34 (no ibv_reg_dmabuf_mr)' % rdma_core)
    capable = False if missing else (None if unknown else True)
    return {'capable': capable, 'missing': missing, 'unknown': unknown}


def peermem_checks(state):
    """The verification of a loaded nvidia-peermem (docs/hosts.md; never dmesg success lines).

    state keys: nvidia_version, peermem_version, memory_peers (list of client dirs), peer_api (bool|None),
    ib_core_users (list). Returns [{'check', 'ok', 'detail'}].
    """
    checks = []
    version_ok = bool(state.get('peermem_version')) and state.get('peermem_version') == state.get('nvidia_version')
    checks.append({'check': 'sysfs version match', 'ok': version_ok,
                   'detail': '/sys/module/nvidia_peermem/version %s, /sys/module/nvidia/version %s'
                             % (state.get('peermem_version'), state.get('nvidia_version'))})
    peers = [name for name in state.get('memory_peers') or [] if name in ('nv_mem', 'nv_mem_nc')]
    checks.append({'check': 'registered with ib_core', 'ok': bool(peers),
                   'detail': '/sys/kernel/mm/memory_peers/%s/version' % (peers[0] if peers else 'nv_mem')
                             + (' present' if peers else ' missing')})
    users = state.get('ib_core_users')
    if users is not None:
        checks.append({'check': 'ib_core used by nvidia_peermem', 'ok': 'nvidia_peermem' in users,
                       'detail': 'ib_core used by: %s' % (','.join(users) or '-')})
    if state.get('peer_api') is not None:
        checks.append({'check': 'PeerDirect API in ib_core', 'ok': bool(state['peer_api']),
                       'detail': 'ib_register_peer_memory_client %s in /proc/kallsyms'
                                 % ('found' if state['peer_api'] else 'not found')})
    return checks


def peermem_decision(state):
    """What to do for method peermem, before touching anything.

    Returns {'action': 'not_applicable'|'refuse'|'verify'|'load'|'fail', 'reason': str}.
    """
    if not state.get('nvidia_loaded'):
        if state.get('gpus_present'):
            return {'action': 'fail', 'reason': 'NVIDIA GPUs are present but the nvidia kernel module is not loaded'}
        return {'action': 'not_applicable',
                'reason': 'not applicable: no NVIDIA GPU driver on this host (/sys/module/nvidia is absent)'}
    if state.get('legacy_loaded'):
        return {'action': 'refuse',
                'reason': 'the legacy nv_peer_mem module is loaded; it conflicts with nvidia-peermem (both register '
                          'as peer-memory clients). Fix: systemctl stop nv_peer_mem; systemctl disable nv_peer_mem; '
                          'remove the nvidia-peer-memory(-dkms) package; then re-run'}
    if state.get('legacy_persisted'):
        return {'action': 'refuse',
                'reason': 'the legacy nv_peer_mem is set to load at boot (%s); it conflicts with nvidia-peermem. '
                          'Fix: systemctl disable nv_peer_mem, remove the nvidia-peer-memory(-dkms) package and '
                          'the modules-load entry; then re-run' % state['legacy_persisted']}
    if not state.get('ib_core_loaded'):
        return {'action': 'not_applicable',
                'reason': 'not applicable: no RDMA stack is loaded (ib_core absent), so there is no NIC for '
                          'GPUDirect RDMA'}
    if state.get('peermem_loaded'):
        return {'action': 'verify', 'reason': 'nvidia_peermem is loaded'}
    if state.get('peer_api') is False:
        return {'action': 'fail',
                'reason': 'the loaded ib_core does not export the PeerDirect API (ib_register_peer_memory_client '
                          'is not in /proc/kallsyms): this is the inbox RDMA stack. Install MLNX_OFED or DOCA-OFED '
                          'and rebuild the NVIDIA driver, or use gpudirect: dmabuf'}
    return {'action': 'load', 'reason': 'nvidia_peermem is not loaded'}
