#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: gpudirect
short_description: Enable and verify GPUDirect RDMA with DMA-BUF or nvidia-peermem
version_added: 1.0.0
description:
  - O(method=auto) (the default) uses DMA-BUF where the driver, kernel and rdma-core support it (NVIDIA recommends
    DMA-BUF over the nvidia-peermem module, GPU Operator "GPUDirect RDMA and GPUDirect Storage") and falls back to
    nvidia-peermem elsewhere, saying why in RV(reason); RV(method) is the method it chose.
  - O(method=peermem) detects the NVIDIA driver, refuses to continue while the legacy C(nv_peer_mem) is loaded
    or set to load at boot, loads C(nvidia-peermem) when it is not loaded, and verifies it as docs/hosts.md says (sysfs
    version equal to the driver's, C(/sys/kernel/mm/memory_peers/nv_mem), C(ib_core) used
    by C(nvidia_peermem), C(ib_register_peer_memory_client) in C(/proc/kallsyms)). C(nvidia-peermem) prints
    nothing on success, so no log line is used as evidence.
  - A failed load is classified (built before OFED, symbol version mismatch, inbox ib_core without the
    PeerDirect API, module missing, wrong kernel, Secure Boot) and the failure message says how to fix it.
  - O(method=dmabuf) checks that the driver, kernel and rdma-core support DMA-BUF (open kernel modules,
    driver R515 or later, kernel 5.12 or later, rdma-core 34 or later); no module is needed.
  - Reports PCIe ACS redirection and IOMMU translation that break or slow peer-to-peer traffic. Firmware and
    kernel command lines are never changed.
  - On a host without an NVIDIA driver the result is C(not_applicable) with the reason, not a failure.
  - Persistence (modules-load.d) is done by the P(aifabric.fabric.host_gpudirect#role) role from the rendered
    file; RV(persist) says whether it applies. A nvidia-peermem that is loaded while DMA-BUF is chosen is left
    loaded (unloading it under running jobs is not this module's call); the role removes its boot entry.
author:
  - aifabric contributors (@aifabric)
options:
  method:
    description:
      - GPUDirect RDMA method from the fabric design. C(auto) is DMA-BUF where the host supports it, else
        nvidia-peermem.
    type: str
    choices: [auto, peermem, dmabuf, none]
    default: auto
  check_p2p:
    description: Report PCIe ACS and IOMMU settings.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
extends_documentation_fragment:
  - aifabric.fabric.host_access
  - ansible.builtin.action_common_attributes
seealso:
  - module: aifabric.fabric.gpu_facts
"""

EXAMPLES = r"""
- name: DMA-BUF where the host supports it, else load and verify nvidia-peermem
  aifabric.fabric.gpudirect:
    method: auto
  register: gdr

- name: Say which method it chose
  ansible.builtin.debug:
    msg: "{{ gdr.method }}: {{ gdr.reason }}"

- name: Load and verify nvidia-peermem
  aifabric.fabric.gpudirect:
    method: peermem
  register: gdr

- name: Show the verification
  ansible.builtin.debug:
    var: gdr.checks
"""

RETURN = r"""
status:
  description: >-
    C(loaded) (loaded now), C(verified) (was loaded and passes the checks), C(would_load) (check mode),
    C(dmabuf) (DMA-BUF usable), C(not_applicable), C(disabled) (method none).
  returned: always
  type: str
reason:
  description: Why, in one sentence (for not_applicable, the cause; for O(method=auto), why this method).
  returned: always
  type: str
method:
  description: >-
    The method in use after this run, C(dmabuf), C(peermem) or C(none); null when not applicable (no NVIDIA
    driver). With O(method=auto), the one it chose.
  returned: always
  type: str
checks:
  description: Verification results, each with check, ok and detail.
  returned: always
  type: list
  elements: dict
persist:
  description: Whether nvidia-peermem should be persisted in modules-load.d on this host.
  returned: always
  type: bool
state:
  description: The driver and module state that was read.
  returned: always
  type: dict
dmabuf:
  description: DMA-BUF capability (capable, missing, unknown, rdma_core).
  returned: when the NVIDIA driver is loaded
  type: dict
p2p:
  description: ACS and IOMMU report with acs_problems, iommu and notes.
  returned: when check_p2p is true and the host has NVIDIA GPUs
  type: dict
summary:
  description: Lines for the play summary (outcome, checks, IOMMU and ACS report).
  returned: on success
  type: list
  elements: str
failure:
  description: On a failed load, the classified cause, message and fix.
  returned: on failure
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, host_access
from ansible_collections.aifabric.fabric.plugins.module_utils.gpu_parsers import (
    classify_peermem_load_failure, peermem_checks, peermem_decision,
)
from ansible_collections.aifabric.fabric.plugins.module_utils.gpu_state import (
    p2p_warnings, read_dmabuf, read_p2p, read_peermem_state,
)


def _dmesg(host):
    if not host.which('dmesg'):
        return ''
    rc, out, dummy = host.run(['dmesg'])
    if rc != 0:
        return ''
    return '\n'.join(out.splitlines()[-200:])


def summary_lines(result):
    """Lines for the play summary: the GPUDirect outcome and the peer-to-peer report."""
    lines = ['gpudirect %s: %s' % (result['status'], result['reason'])]
    lines.extend('check %s: %s (%s)' % (item['check'], 'ok' if item['ok'] else 'FAILED', item['detail'])
                 for item in result.get('checks') or [])
    p2p = result.get('p2p')
    if p2p:
        iommu = p2p.get('iommu') or {}
        params = ' '.join('%s=%s' % pair for pair in sorted((iommu.get('cmdline') or {}).items()))
        lines.append('IOMMU: %s%s' % (iommu.get('mode'), ' (%s)' % params if params else ''))
        if p2p.get('acs') is None:
            lines.extend('ACS: %s' % note for note in p2p.get('notes') or [])
        else:
            problems = p2p.get('acs_problems') or []
            lines.append('ACS: %s' % ('redirect enabled on %s' % ', '.join(item['bdf'] for item in problems)
                                      if problems else 'no redirecting bridge'))
        lines.extend(p2p_warnings(p2p))
    return lines


def dmabuf_hint(result):
    """When peermem cannot work but this host can do DMA-BUF, say so: no module is needed then."""
    if (result.get('dmabuf') or {}).get('capable'):
        return (' This host supports DMA-BUF GPUDirect (open kernel modules, driver, kernel and rdma-core are recent '
                'enough): hosts.gpudirect: dmabuf in the intent needs no nvidia-peermem.')
    return ''


def _diff(state, method):
    """What --diff shows: the method and whether nvidia-peermem is loaded."""
    return 'method: %s\nnvidia_peermem: %s\n' % (method, 'loaded' if state.get('peermem_loaded') else 'not loaded')


def finish(module, result, before=None):
    result['summary'] = summary_lines(result)
    if module._diff and before is not None:
        after = dict(before, peermem_loaded=before.get('peermem_loaded') or result['status'] in ('loaded', 'would_load'))
        result['diff'] = {'before': _diff(before, module.params['method']), 'after': _diff(after, result['method']),
                          'before_header': 'GPUDirect RDMA (read)', 'after_header': 'GPUDirect RDMA (design)'}
    module.exit_json(**result)


def auto_choice(capability):
    """(method, reason) of O(method=auto): DMA-BUF where the host supports it (NVIDIA's recommendation), else the
    nvidia-peermem fallback, naming what DMA-BUF lacks or could not be confirmed."""
    if capability['capable']:
        return 'dmabuf', 'auto: the driver, kernel and rdma-core support DMA-BUF, which NVIDIA recommends over nvidia-peermem'
    if capability['capable'] is False:
        why = 'DMA-BUF is not possible here (%s)' % '; '.join(capability['missing'])
    else:
        why = 'DMA-BUF could not be confirmed (unknown: %s)' % ', '.join(capability['unknown'])
    return 'peermem', 'auto: %s, so nvidia-peermem is the fallback' % why


def dmabuf_result(module, result, state, reason):
    capability = result['dmabuf']
    if capability['capable'] is False:
        module.fail_json(msg='DMA-BUF GPUDirect is not possible here: %s. Fix those, or use gpudirect: peermem '
                             '(needs MLNX_OFED/DOCA-OFED)' % '; '.join(capability['missing']), **result)
    if capability['capable'] is None:
        module.warn('DMA-BUF support could not be confirmed (unknown: %s); NCCL logs "DMA-BUF is available on '
                    'GPU device N" at NCCL_DEBUG=INFO when it works' % ', '.join(capability['unknown']))
    if state['peermem_loaded']:
        reason += '; nvidia-peermem is loaded too and left as it is'
    result.update(status='dmabuf', method='dmabuf', reason=reason,
                  checks=[{'check': 'dmabuf requirements', 'ok': capability['capable'] is not False,
                           'detail': 'kernel %s, %s kernel modules, driver %s, rdma-core %s'
                                     % (state['kernel'], state['flavor'], state['nvidia_version'],
                                        capability['rdma_core'])}])


def main():
    module = AnsibleModule(
        argument_spec=dict(
            method=dict(type='str', choices=['auto', 'peermem', 'dmabuf', 'none'], default='auto'),
            check_p2p=dict(type='bool', default=True),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    host = host_access(module)
    method = module.params['method']
    result = dict(changed=False, status=None, reason=None, checks=[], persist=False, method=None)
    if method == 'none':
        result.update(status='disabled', method='none', state={},
                      reason='GPUDirect RDMA is disabled in the fabric design (gpudirect: none)')
        finish(module, result)
    state = read_peermem_state(host)
    before = dict(state)
    result['state'] = state
    if module.params['check_p2p'] and (state['nvidia_loaded'] or state['gpus_present']):
        result['p2p'] = read_p2p(host)
        for text in p2p_warnings(result['p2p']):
            module.warn(text)
    if state['nvidia_loaded']:
        result['dmabuf'] = read_dmabuf(host, state)
    elif method in ('auto', 'dmabuf'):
        decision = peermem_decision(state)  # a GPU without its driver fails; no GPU is not applicable
        if decision['action'] == 'fail':
            module.fail_json(msg=decision['reason'], **result)
        result.update(status='not_applicable', reason='not applicable: no NVIDIA GPU driver on this host '
                                                      '(/sys/module/nvidia is absent)')
        finish(module, result, before)
    chosen = None
    if method == 'auto':
        method, chosen = auto_choice(result['dmabuf'])
    if method == 'dmabuf':
        dmabuf_result(module, result, state, chosen or 'DMA-BUF GPUDirect RDMA: no kernel module needed')
        finish(module, result, before)

    prefix = chosen + '; ' if chosen else ''
    decision = peermem_decision(state)
    if decision['action'] == 'not_applicable':
        result.update(status='not_applicable', reason=decision['reason'])
        finish(module, result, before)
    if decision['action'] in ('refuse', 'fail'):
        module.fail_json(msg=prefix + decision['reason'] + (dmabuf_hint(result) if decision['action'] == 'fail' else ''),
                         **result)
    result['method'] = 'peermem'
    if decision['action'] == 'load':
        if module.check_mode:
            result.update(changed=True, status='would_load', persist=True,
                          reason=prefix + 'nvidia-peermem is not loaded; it would be loaded with modprobe nvidia-peermem')
            finish(module, result, before)
        rc, out, err = host.run(['modprobe', 'nvidia-peermem'])
        if rc != 0:
            failure = classify_peermem_load_failure(err or out, _dmesg(host), state['peer_api'], state['kernel'])
            result['failure'] = failure
            message = 'modprobe nvidia-peermem failed: %s. Fix: %s.' % (failure['message'], failure['fix'])
            module.fail_json(msg=prefix + message + dmabuf_hint(result), **result)
        result['changed'] = True
        state = read_peermem_state(host)
        result['state'] = state
    checks = peermem_checks(state)
    result['checks'] = checks
    bad = [item for item in checks if not item['ok']]
    if bad:
        module.fail_json(msg='nvidia-peermem is loaded but not working: %s. Fix: reload it (modprobe -r '
                             'nvidia_peermem; modprobe nvidia-peermem) after the NVIDIA driver and OFED match; a '
                             'version mismatch means a stale module from a previous driver'
                             % '; '.join('%s (%s)' % (item['check'], item['detail']) for item in bad), **result)
    result.update(status='loaded' if result['changed'] else 'verified', persist=True,
                  reason=prefix + 'nvidia-peermem %s loaded, registered with ib_core as a peer-memory client'
                         % state['peermem_version'])
    finish(module, result, before)


if __name__ == '__main__':
    main()
