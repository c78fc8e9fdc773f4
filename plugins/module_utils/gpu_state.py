# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read GPU driver, nvidia-peermem, DMA-BUF and PCIe peer-to-peer state through HostAccess (fake-root aware).

Checks (docs/hosts.md): /sys/module/nvidia_peermem/version against /sys/module/nvidia/version,
/sys/kernel/mm/memory_peers/nv_mem, ib_core's users in /proc/modules, ib_register_peer_memory_client in
/proc/kallsyms. There is no "loaded successfully" log line to look for: nvidia-peermem prints nothing on success.
"""

from __future__ import annotations

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import kernel_release
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.gpu_parsers import (
    acs_problems, dmabuf_capability, iommu_report, module_flavor_from_license, normalize_module,
    parse_driver_version_file, parse_kallsyms, parse_lspci_acs, parse_modules_load, parse_proc_modules,
    rdma_core_version_from_libs,
)

LIB_DIRS = ('/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib')
MODULES_LOAD_DIRS = ('/etc/modules-load.d', '/run/modules-load.d', '/usr/lib/modules-load.d', '/lib/modules-load.d')
LEGACY_UNITS = ('/etc/systemd/system/multi-user.target.wants/nv_peer_mem.service',
                '/etc/rc2.d/S01nv_peer_mem', '/etc/rc3.d/S01nv_peer_mem', '/etc/rc5.d/S01nv_peer_mem')


def _first(text):
    return (text or '').strip() or None


def read_driver(host):
    """NVIDIA kernel driver: loaded?, version, flavor (open|proprietary)."""
    loaded = host.isdir('/sys/module/nvidia')
    version = _first(host.read('/sys/module/nvidia/version'))
    flavor = None
    proc = host.read('/proc/driver/nvidia/version')
    if proc:
        try:
            parsed = parse_driver_version_file(proc)
            flavor = parsed['flavor']
            version = version or parsed['version']
        except ParseError:
            pass
    if flavor is None and host.which('modinfo'):
        rc, out, dummy = host.run(['modinfo', '-F', 'license', 'nvidia'])
        if rc == 0:
            flavor = module_flavor_from_license(out)
    return {'loaded': loaded, 'version': version, 'flavor': flavor}


def gpus_present(host):
    """NVIDIA display/3D controllers on the PCI bus (vendor 0x10de, class 0x03xxxx), from sysfs."""
    found = []
    for device in host.listdir('/sys/bus/pci/devices'):
        base = '/sys/bus/pci/devices/%s' % device
        vendor = _first(host.read(base + '/vendor'))
        klass = _first(host.read(base + '/class'))
        if vendor == '0x10de' and klass and klass.startswith('0x03'):
            found.append(device)
    return found


def read_modules(host):
    try:
        return parse_proc_modules(host.read('/proc/modules', ''))
    except ParseError:
        return {}


def legacy_persisted(host):
    """Where the legacy nv_peer_mem is set to load at boot, or None."""
    for directory in MODULES_LOAD_DIRS:
        for name in host.listdir(directory):
            if name.endswith('.conf'):
                modules = [normalize_module(item) for item in parse_modules_load(host.read('%s/%s' % (directory, name)))]
                if 'nv_peer_mem' in modules:
                    return '%s/%s' % (directory, name)
    for path in LEGACY_UNITS:
        if host.exists(path):
            return path
    return None


def peermem_persisted(host):
    for directory in MODULES_LOAD_DIRS:
        for name in host.listdir(directory):
            if name.endswith('.conf'):
                modules = [normalize_module(item) for item in parse_modules_load(host.read('%s/%s' % (directory, name)))]
                if 'nvidia_peermem' in modules:
                    return '%s/%s' % (directory, name)
    return None


def read_peermem_state(host, gpus=None):
    driver = read_driver(host)
    modules = read_modules(host)
    kallsyms = parse_kallsyms(host.read('/proc/kallsyms', ''))
    ib_core_loaded = 'ib_core' in modules or host.isdir('/sys/module/ib_core')
    peer_api = None
    if ib_core_loaded:
        peer_api = 'ib_register_peer_memory_client' in kallsyms
    state = {
        'kernel': kernel_release(host),
        'nvidia_loaded': driver['loaded'],
        'nvidia_version': driver['version'],
        'flavor': driver['flavor'],
        'gpus_present': bool(gpus if gpus is not None else gpus_present(host)),
        'peermem_loaded': host.isdir('/sys/module/nvidia_peermem') or 'nvidia_peermem' in modules,
        'peermem_version': _first(host.read('/sys/module/nvidia_peermem/version')),
        'legacy_loaded': host.isdir('/sys/module/nv_peer_mem') or 'nv_peer_mem' in modules,
        'legacy_persisted': legacy_persisted(host),
        'ib_core_loaded': ib_core_loaded,
        'ib_core_users': modules['ib_core']['used_by'] if 'ib_core' in modules else None,
        'peer_api': peer_api,
        'memory_peers': [name for name in host.listdir('/sys/kernel/mm/memory_peers')
                         if host.exists('/sys/kernel/mm/memory_peers/%s/version' % name)],
        'persisted': peermem_persisted(host),
    }
    return state


def rdma_core_version(host):
    names = []
    for directory in LIB_DIRS:
        names.extend(name for name in host.listdir(directory) if name.startswith('libibverbs.so.1.'))
    return rdma_core_version_from_libs(names)


def read_dmabuf(host, state=None):
    state = state or read_peermem_state(host)
    capability = dmabuf_capability(state['kernel'], state['flavor'], state['nvidia_version'], rdma_core_version(host))
    capability['rdma_core'] = rdma_core_version(host)
    return capability


def read_p2p(host):
    """ACS and IOMMU settings that break or slow GPU<->NIC peer-to-peer. Never changes anything."""
    report = {'acs': None, 'acs_problems': [], 'iommu': None, 'notes': []}
    groups = []
    for name in host.listdir('/sys/kernel/iommu_groups'):
        value = _first(host.read('/sys/kernel/iommu_groups/%s/type' % name))
        if value:
            groups.append(value)
    report['iommu'] = iommu_report(host.read('/proc/cmdline', ''), groups)
    if not host.which('lspci'):
        report['notes'].append('ACS not checked: lspci is not installed (pciutils)')
        return report
    rc, out, err = host.run(['lspci', '-vvv'])
    if rc != 0 or not out.strip():
        report['notes'].append('ACS not checked: lspci -vvv failed: %s' % (_first(err) or 'no output'))
        return report
    try:
        devices = parse_lspci_acs(out)
    except ParseError as exc:
        report['notes'].append('ACS not checked: %s' % exc)
        return report
    report['acs'] = devices
    report['acs_problems'] = acs_problems(devices)
    if not devices:
        report['notes'].append('no ACSCtl lines in lspci -vvv (no ACS-capable bridges, or not run as root)')
    return report


def p2p_warnings(report):
    warnings = []
    for item in report.get('acs_problems') or []:
        warnings.append('PCIe ACS redirect enabled on %s (%s: %s): peer-to-peer GPU<->NIC traffic is forced up to '
                        'the root complex; disable it (setpci -s %s ECAP_ACS+0x6.w=0000 at every boot, or '
                        'pci=disable_acs_redir=%s)' % (item['bdf'], item['description'][:40],
                                                       '+ '.join(item['enabled']) + '+', item['bdf'], item['bdf']))
    warnings.extend((report.get('iommu') or {}).get('problems') or [])
    return warnings
