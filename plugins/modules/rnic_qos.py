#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: rnic_qos
short_description: Apply lossless RoCE QoS to NVIDIA ConnectX (mlx5) NICs, changing only what differs
version_added: 1.0.0
description:
  - Reads the current state of each rail NIC, compares it with the wanted values and runs only the commands
    that close the difference. Nothing is written when nothing differs.
  - Trust DSCP, PFC on exactly the lossless priorities, DSCP to priority entries, with C(mlnx_qos) (MLNX_OFED,
    DOCA-OFED) or iproute2 C(dcb) (inbox driver). The PFC enable mask is written in one call with all eight
    priorities, because mlx5 toggles the link whenever the mask changes.
  - DCQCN reaction point and notification point enable per lossless priority, CNP DSCP and 802.1p priority
    through the MLNX_OFED C(/sys/class/net/IF/ecn) files; on the inbox driver CNP marking goes through the
    mlx5 debugfs C(cc_params) and per-priority enable is reported as not applicable (firmware decides).
  - The NIC's receive headroom for its cable to the leaf (O(interfaces[].cable_length_m)), set with C(mlnx_qos --cable_len)
    or the C(dcb pfc) C(delay), which mlx5 reads as metres (1-999) and sizes its lossless buffer from; it assumes 7 m.
    Written with the PFC mask, in the same call. A NIC that reports no cable length (its firmware owns the port
    buffer) is reported as not applicable.
  - RDMA-CM default ToS and RoCE version (configfs), the optional MLNX_OFED verbs traffic class, IEEE 802.3x
    global pause off, and the netdev MTU (checked, or set when O(manage_mtu=true)).
  - Interfaces without an RDMA device or not driven by mlx5_core are reported as not applicable with the
    reason, never as a silent success and never as a failure.
  - These settings do not survive a reboot or driver reload; the P(aifabric.fabric.host_rnic#role) role
    installs a boot-time re-apply unit rendered from the same values.
author:
  - aifabric contributors (@aifabric)
options:
  interfaces:
    description: Rail NICs to configure.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Netdev name, for example C(eth1) or C(ens1f0np0).
        type: str
        required: true
      rdma_device:
        description:
          - RDMA device the design expects on this netdev (C(mlx5_0)). A different device is an error because
            C(NCCL_IB_HCA) would name the wrong NIC.
        type: str
      cable_length_m:
        description:
          - Length in metres of the cable from this NIC to its leaf (1-999, what mlx5 takes). The NIC sizes its
            receive headroom for traffic from the switch from it. Not changed when omitted.
        type: int
  trust:
    description: Priority trust state.
    type: str
    choices: [dscp, pcp]
    default: dscp
  pfc_priorities:
    description: Priorities with PFC enabled; every other priority gets PFC off.
    type: list
    elements: int
    default: [3]
  dscp_to_priority:
    description:
      - DSCP to priority map the NIC trusts. Keys are DSCP values; a DSCP left out keeps the NIC default
        (priority = DSCP >> 3).
      - The P(aifabric.fabric.host_rnic#role) role passes all 64 code points, the switches' DSCP to traffic class
        map, so the NIC and the switches put every DSCP on the same priority.
    type: dict
    default: {}
  ecn_priorities:
    description: Priorities on which DCQCN reaction point and notification point are switched on.
    type: list
    elements: int
    default: []
  cnp_dscp:
    description: DSCP of congestion notification packets. Not changed when omitted.
    type: int
  cnp_priority:
    description: 802.1p priority of congestion notification packets. Not changed when omitted.
    type: int
  roce_tos:
    description: RDMA-CM default ToS for RoCE (DSCP << 2 plus ECN bits, for example 106). Not changed when omitted.
    type: int
  roce_mode:
    description: RDMA-CM default RoCE version. Not changed when omitted.
    type: int
    choices: [1, 2]
  verbs_traffic_class:
    description:
      - MLNX_OFED global verbs traffic class (C(/sys/class/infiniband/DEV/tc/1/traffic_class)). It overrides the
        class every application asks for, including C(NCCL_IB_TC). C(-1) clears it. Not changed when omitted.
    type: int
  global_pause:
    description: Wanted IEEE 802.3x global pause state; C(off) when PFC is used. Not changed when omitted.
    type: str
    choices: ['off']
  mtu:
    description: Expected netdev MTU. Compared always; set only with O(manage_mtu=true).
    type: int
  manage_mtu:
    description:
      - Set the netdev MTU when it differs. Off by default because the host networking role owns the MTU;
        a difference is then reported as a mismatch warning.
    type: bool
    default: false
  tool:
    description: QoS tool; C(auto) prefers C(mlnx_qos) and falls back to C(dcb).
    type: str
    choices: [auto, mlnx_qos, dcb]
    default: auto
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
notes:
  - Needs root. Hardware behaviour (link toggle on PFC change, firmware acceptance) is documented in
    docs/hosts.md together with what the fixtures prove and what needs a real ConnectX NIC.
extends_documentation_fragment:
  - aifabric.fabric.host_access
  - ansible.builtin.action_common_attributes
seealso:
  - module: aifabric.fabric.rnic_facts
"""

EXAMPLES = r"""
- name: Lossless RoCE on two rails, values from the fabric design
  aifabric.fabric.rnic_qos:
    interfaces:
      - {name: ens1f0np0, rdma_device: mlx5_0, cable_length_m: 5}
      - {name: ens2f0np0, rdma_device: mlx5_1, cable_length_m: 5}
    trust: dscp
    pfc_priorities: [3]
    ecn_priorities: [3]
    cnp_dscp: 48
    cnp_priority: 6
    roce_tos: 106
    roce_mode: 2
    global_pause: 'off'
    mtu: 9000
"""

RETURN = r"""
commands:
  description: Tool commands run (or that would run in check mode), in order.
  returned: always
  type: list
  elements: str
  sample: ["mlnx_qos -i eth1 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 5"]
writes:
  description: File writes done (or that would be done), as C(path=value).
  returned: always
  type: list
  elements: str
  sample: ["/sys/class/net/eth1/ecn/roce_np/enable/3=1"]
interfaces:
  description: Per interface the status (changed, ok, not_applicable), reason, tool, and per setting the state before and after.
  returned: always
  type: dict
not_applicable:
  description: Interface name to the reason nothing hardware-related could be done there.
  returned: always
  type: dict
summary:
  description: One line per interface saying what changed, what was already right and what is not applicable, and why.
  returned: always
  type: list
  elements: str
warnings_list:
  description: Mismatches that were reported but not changed (MTU owned by the networking role, tool messages).
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aifabric.fabric.plugins.module_utils.host_access import HOST_ACCESS_OPTIONS, command_text, host_access
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_parsers import (
    dcb_trust, parse_dcb_app, parse_dcb_pfc, parse_ethtool_pause, parse_mlnx_qos,
)
from ansible_collections.aifabric.fabric.plugins.module_utils.rnic_qos_plan import (
    CABLE_LENGTHS, cable_reported, desired_dscp_map, mask_text, pfc_mask, plan_global_pause, plan_qos, qos_matches,
)
from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_sysfs


ROCE_MODE_TEXT = {1: 'IB/RoCE v1', 2: 'RoCE v2'}


class QosError(Exception):
    pass


def read_qos(host, tool, ifname):
    """Current trust / PFC / DSCP map through the chosen tool."""
    if tool == 'mlnx_qos':
        rc, out, err = host.run(['mlnx_qos', '-i', ifname])
        if rc != 0:
            raise QosError('mlnx_qos -i %s failed (rc %d): %s' % (ifname, rc, (err or out).strip()))
        state = parse_mlnx_qos(out)
        return {'trust': state['trust'], 'pfc': state['pfc'], 'dscp2prio': state['dscp2prio'],
                'dcbx': state['dcbx'], 'lldpad_warning': state['lldpad_warning'], 'cable_len': state['cable_len']}
    rc, out, err = host.run(['dcb', '-j', 'pfc', 'show', 'dev', ifname])
    if rc != 0:
        raise QosError('dcb pfc show dev %s failed (rc %d): %s' % (ifname, rc, (err or out).strip()))
    pfc = parse_dcb_pfc(out)
    rc, out, err = host.run(['dcb', '-j', 'app', 'show', 'dev', ifname])
    if rc != 0:
        raise QosError('dcb app show dev %s failed (rc %d): %s' % (ifname, rc, (err or out).strip()))
    app = parse_dcb_app(out)
    return {'trust': dcb_trust(app), 'pfc': pfc['pfc'], 'dscp2prio': app['dscp_prio'], 'dcbx': None,
            'lldpad_warning': False, 'cable_len': pfc['delay']}


def choose_tool(host, wanted):
    if wanted in ('auto', 'mlnx_qos') and host.which('mlnx_qos'):
        return 'mlnx_qos'
    if wanted in ('auto', 'dcb') and host.which('dcb'):
        return 'dcb'
    return None


class InterfaceRun:
    """Plan (and apply) one interface; records settings, commands and writes."""

    def __init__(self, module, host, spec, params):
        self.module = module
        self.host = host
        self.name = spec['name']
        self.expected_rdma = spec.get('rdma_device')
        self.cable_length = spec.get('cable_length_m')
        self.p = params
        self.settings = {}
        self.commands = []
        self.writes = []  # (path, before, after, mkdir_first)
        self.warnings = []
        self.result = {'interface': self.name, 'rdma_device': self.expected_rdma, 'status': 'ok', 'reason': None,
                       'tool': None, 'settings': self.settings}

    def setting(self, name, status, before=None, after=None, reason=None):
        self.settings[name] = {'status': status, 'before': before, 'after': after, 'reason': reason}

    # ---------------------------------------------------------------- applicability
    def applicable(self):
        info = rnic_sysfs.netdev_info(self.host, self.name)
        if not info['exists']:
            raise QosError('interface %s does not exist on this host (the fabric intent names it as a rail NIC; '
                           'check hosts.rail_interfaces)' % self.name)
        self.info = info
        self.result.update(driver=info['driver'], pci=info['pci'], mtu=info['mtu'])
        if not info['rdma_devices']:
            driver = info['driver'] or 'virtual/none'
            return 'not applicable: %s has no RDMA device (driver %s); RoCE QoS needs an NVIDIA ConnectX (mlx5) ' \
                   'RDMA NIC' % (self.name, driver)
        if info['driver'] not in rnic_sysfs.MLX5_DRIVERS:
            return 'not applicable: %s is driven by %s, not mlx5_core; this applier configures NVIDIA ConnectX ' \
                   'NICs only' % (self.name, info['driver'] or 'an unknown driver')
        if self.expected_rdma and self.expected_rdma not in info['rdma_devices']:
            raise QosError('%s carries RDMA device %s but the design expects %s: NCCL_IB_HCA would name the wrong '
                           'NIC; set hosts.rdma_devices in the intent to the real names in rail order'
                           % (self.name, ', '.join(info['rdma_devices']), self.expected_rdma))
        self.rdma_device = self.expected_rdma or info['rdma_devices'][0]
        self.result['rdma_device'] = self.rdma_device
        return None

    # ---------------------------------------------------------------- planning
    def plan(self):
        reason = self.applicable()
        if reason:
            self.result.update(status='not_applicable', reason=reason)
            return
        tool = choose_tool(self.host, self.p['tool'])
        if tool is None:
            wanted = 'mlnx_qos or dcb' if self.p['tool'] == 'auto' else self.p['tool']
            raise QosError('%s is an mlx5 RDMA NIC but %s is not installed: install iproute2 (dcb) or mlnx-tools'
                           % (self.name, wanted))
        self.tool = tool
        self.result['tool'] = tool
        self.plan_qos()
        self.plan_ecn()
        self.plan_rdma_cm()
        self.plan_traffic_class()
        self.plan_pause()
        self.plan_mtu()

    def plan_qos(self):
        current = read_qos(self.host, self.tool, self.name)
        if current.get('lldpad_warning'):
            self.warnings.append('%s: lldpad is running and may overwrite the DCB settings; disable it' % self.name)
        self.desired_qos = {'trust': self.p['trust'], 'pfc': pfc_mask(self.p['pfc_priorities']),
                            'dscp2prio': desired_dscp_map(self.p['dscp_to_priority']), 'cable_len': self.cable_length}
        plan = plan_qos(self.tool, self.name, current, self.desired_qos)
        self.commands.extend(plan['commands'])
        self.current_qos = current
        for name in ('trust', 'pfc', 'dscp2prio'):
            if name in plan['changes']:
                change = plan['changes'][name]
                self.setting(name, 'changed', change['before'], change['after'])
            else:
                value = {'trust': current['trust'], 'pfc': mask_text(current['pfc'])}.get(name)
                if name == 'dscp2prio':
                    value = {int(k): v for k, v in self.p['dscp_to_priority'].items()} or 'default (DSCP >> 3)'
                    if self.p['trust'] != 'dscp':
                        value = None
                self.setting(name, 'ok', value, value)
        self.plan_cable(current, plan['changes'])

    def plan_cable(self, current, changes):
        if self.cable_length is None:
            return
        if 'cable_len' in changes:
            self.setting('cable_len', 'changed', changes['cable_len']['before'], changes['cable_len']['after'])
        elif cable_reported(current) is None:
            self.setting('cable_len', 'not_applicable', reason='not applicable: %s reports no cable length (%s), so its '
                         'firmware sizes the receive buffer: mlx5 takes the cable length only where the driver '
                         'manages the port buffer' % (self.name, 'mlnx_qos "Cable len: 0"' if self.tool == 'mlnx_qos'
                                                      else 'dcb pfc delay 0'))
        else:
            self.setting('cable_len', 'ok', current['cable_len'], self.cable_length)

    def _file_setting(self, name, path, before, after, mkdir=None, text=None):
        if before == after:
            self.setting(name, 'ok', before, after)
            return
        self.setting(name, 'changed', before, after)
        self.writes.append((path, before, after if text is None else text, mkdir))

    def plan_ecn(self):
        ecn = rnic_sysfs.read_ecn(self.host, self.name)
        prios = sorted({int(prio) for prio in self.p['ecn_priorities']})
        if ecn['available']:
            for side, label in (('roce_rp', 'ecn_rp'), ('roce_np', 'ecn_np')):
                if not prios:
                    continue
                before = {prio: ecn[side].get(prio) for prio in prios}
                if all(value == 1 for value in before.values()):
                    self.setting(label, 'ok', before, before)
                    continue
                self.setting(label, 'changed', before, {prio: 1 for prio in prios})
                for prio in prios:
                    if before[prio] != 1:
                        self.writes.append((rnic_sysfs.ecn_paths(self.name, side, prio), before[prio], 1, None))
            paths = rnic_sysfs.cnp_paths(self.name)
            for name, key in (('cnp_dscp', 'cnp_dscp'), ('cnp_priority', 'cnp_802p_prio')):
                if self.p[name] is not None:
                    self._file_setting(name, paths[name], ecn.get(key), self.p[name])
            return
        why = ('not applicable: the inbox mlx5 driver has no per-priority DCQCN switch (%s/%s/ecn is MLNX_OFED '
               'only); firmware ROCE_CC_PRIO_MASK_P1 decides (default 255 = every priority), check it with '
               'mlxconfig or mstconfig' % (rnic_sysfs.NET, self.name))
        if prios:
            self.setting('ecn_rp', 'not_applicable', reason=why)
            self.setting('ecn_np', 'not_applicable', reason=why)
        cc = rnic_sysfs.read_cc_debugfs(self.host, self.info.get('pci'))
        for name, key in (('cnp_dscp', 'np_cnp_dscp'), ('cnp_priority', 'np_cnp_prio')):
            if self.p[name] is None:
                continue
            if cc is None or key not in cc:
                self.setting(name, 'not_applicable', reason='not applicable: neither MLNX_OFED ecn sysfs nor the '
                             'mlx5 debugfs %s exists (mount debugfs at /sys/kernel/debug, or set CNP_DSCP_P1 / '
                             'CNP_802P_PRIO_P1 with mlxconfig)' % rnic_sysfs.cc_debugfs_dir(self.info.get('pci')))
                continue
            self._file_setting(name, '%s/%s' % (rnic_sysfs.cc_debugfs_dir(self.info['pci']), key), cc[key],
                               self.p[name])

    def plan_rdma_cm(self):
        if self.p['roce_tos'] is None and self.p['roce_mode'] is None:
            return
        state = rnic_sysfs.read_rdma_cm(self.host, self.rdma_device)
        base = rnic_sysfs.rdma_cm_port_dir(self.rdma_device)
        if not state['available']:
            for name in ('roce_tos', 'roce_mode'):
                if self.p[name] is not None:
                    self.setting(name, 'not_applicable', reason='not applicable: %s' % state['reason'])
            return
        mkdir = None if state['present'] else '%s/%s' % (rnic_sysfs.RDMA_CM, self.rdma_device)
        if self.p['roce_tos'] is not None:
            self._file_setting('roce_tos', base + '/default_roce_tos', state['tos'], self.p['roce_tos'], mkdir)
        if self.p['roce_mode'] is not None:
            self._file_setting('roce_mode', base + '/default_roce_mode', state['mode'], self.p['roce_mode'], mkdir,
                               text=ROCE_MODE_TEXT[self.p['roce_mode']])

    def plan_traffic_class(self):
        wanted = self.p['verbs_traffic_class']
        if wanted is None:
            return
        current = rnic_sysfs.read_traffic_class(self.host, self.rdma_device)
        if current is None:
            self.setting('traffic_class', 'not_applicable', reason='not applicable: %s has no verbs traffic_class '
                         'file (MLNX_OFED only)' % self.rdma_device)
            return
        before = current['global']
        after = None if wanted < 0 else wanted
        if before == after:
            self.setting('traffic_class', 'ok', before, after)
            return
        self.setting('traffic_class', 'changed', before, after)
        self.writes.append((rnic_sysfs.traffic_class_path(self.rdma_device), before,
                            'tclass=-1' if after is None else after, None))

    def plan_pause(self):
        if self.p['global_pause'] is None:
            return
        if not self.host.which('ethtool'):
            self.setting('global_pause', 'not_applicable', reason='not applicable: ethtool is not installed')
            return
        rc, out, err = self.host.run(['ethtool', '-a', self.name])
        if rc != 0:
            self.setting('global_pause', 'not_applicable',
                         reason='not applicable: ethtool -a %s failed: %s' % (self.name, (err or out).strip()))
            return
        pause = parse_ethtool_pause(out)
        args = plan_global_pause(pause)
        before = 'rx %s tx %s' % ('on' if pause['rx'] else 'off', 'on' if pause['tx'] else 'off')
        if not args:
            self.setting('global_pause', 'ok', before, before)
            return
        self.setting('global_pause', 'changed', before, 'rx off tx off')
        self.commands.append(['ethtool', '-A', self.name] + args)

    def plan_mtu(self):
        wanted = self.p['mtu']
        if wanted is None:
            return
        current = self.info.get('mtu')
        if current == wanted:
            self.setting('mtu', 'ok', current, wanted)
            return
        if not self.p['manage_mtu']:
            self.setting('mtu', 'mismatch', current, wanted, reason='MTU is owned by the host networking role')
            self.warnings.append('%s: MTU is %s, the design wants %d (set by the host networking role; RoCE '
                                 'active_mtu follows it)' % (self.name, current, wanted))
            return
        self.setting('mtu', 'changed', current, wanted)
        self.commands.append(['ip', 'link', 'set', 'dev', self.name, 'mtu', str(wanted)])

    # ---------------------------------------------------------------- apply
    def apply(self):
        for argv in self.commands:
            rc, out, err = self.host.run(argv)
            if rc != 0:
                raise QosError('%s failed (rc %d): %s' % (command_text(argv), rc, (err or out).strip()))
            if err and err.strip():
                self.warnings.append('%s: %s' % (command_text(argv), err.strip()))
        for path, dummy, value, mkdir in self.writes:
            if mkdir:
                problem = self.host.mkdir(mkdir)
                if problem:
                    raise QosError('cannot create %s: %s' % (mkdir, problem))
            problem = self.host.write(path, value)
            if problem:
                raise QosError('cannot write %s to %s' % (value, problem))
        if any(name in self.settings and self.settings[name]['status'] == 'changed'
               for name in ('trust', 'pfc', 'dscp2prio', 'cable_len')):
            actual = read_qos(self.host, self.tool, self.name)
            wrong = qos_matches(actual, self.desired_qos)
            if wrong:
                raise QosError('%s: after applying, %s still differ (read back: trust %s, PFC %s, cable length %s m); '
                               'the NIC or driver refused the change' % (self.name, ', '.join(wrong), actual['trust'],
                                                                         mask_text(actual['pfc'] or []),
                                                                         actual.get('cable_len')))

    def finish(self):
        if self.result['status'] != 'not_applicable':
            changed = any(item['status'] == 'changed' for item in self.settings.values())
            self.result['status'] = 'changed' if changed else 'ok'
        self.result['commands'] = [command_text(argv) for argv in self.commands]
        self.result['writes'] = ['%s=%s' % (path, value) for path, dummy, value, dummy2 in self.writes]
        return self.result


def _show(value):
    if isinstance(value, dict) and len(value) > 8:
        # A DSCP map: the priority most DSCPs share, then the exceptions (at most 8 listed).
        unset = sum(1 for val in value.values() if val is None)
        known = [val for val in value.values() if val is not None]
        text = '%d entries' % len(value) if not unset else '%d entries unset' % unset
        if known:
            common = max(sorted(set(known)), key=known.count)
            special = sorted((int(key), val) for key, val in value.items() if val is not None and val != common)
            listed = ', '.join('%d:%s' % pair for pair in special[:8]) + (', ...' if len(special) > 8 else '')
            text += ' (priority %s%s)' % (common, ' except %s' % listed if special else '')
        return text
    if isinstance(value, dict):
        return '{%s}' % ', '.join('%s:%s' % (key, '-' if val is None else val) for key, val in sorted(value.items()))
    return '-' if value is None else str(value)


def summary_lines(results, check_mode):
    """One line per interface for the play summary: what changed, what was already right, what is not applicable."""
    lines = []
    for name, item in results.items():
        if item['status'] == 'not_applicable':
            lines.append('%s: %s' % (name, item['reason']))
            continue
        parts = []
        changed = ['%s %s -> %s' % (key, _show(value['before']), _show(value['after']))
                   for key, value in item['settings'].items() if value['status'] == 'changed']
        same = [key for key, value in item['settings'].items() if value['status'] == 'ok']
        mismatch = ['%s %s (wanted %s; %s)' % (key, _show(value['before']), _show(value['after']), value['reason'])
                    for key, value in item['settings'].items() if value['status'] == 'mismatch']
        absent = {}
        for key, value in item['settings'].items():
            if value['status'] == 'not_applicable':
                absent.setdefault(value['reason'], []).append(key)
        if changed:
            parts.append('%s: %s' % ('would change' if check_mode else 'changed', ', '.join(changed)))
        if same:
            parts.append('already right: %s' % ', '.join(same))
        if mismatch:
            parts.append('MISMATCH: %s' % ', '.join(mismatch))
        for reason, keys in absent.items():
            parts.append('%s %s' % (', '.join(keys), reason))
        lines.append('%s (%s via %s): %s' % (name, item['rdma_device'], item['tool'], '; '.join(parts)))
    return lines


def _diff_text(runs, key):
    lines = []
    for run in runs:
        lines.append('%s:' % run.name)
        if run.result['status'] == 'not_applicable':
            lines.append('  %s' % run.result['reason'])
            continue
        for name, item in sorted(run.settings.items()):
            if item['status'] in ('changed', 'ok', 'mismatch'):
                lines.append('  %s: %s' % (name, item[key]))
    return '\n'.join(lines) + '\n'


def main():
    module = AnsibleModule(
        argument_spec=dict(
            interfaces=dict(type='list', elements='dict', required=True, options=dict(
                name=dict(type='str', required=True),
                rdma_device=dict(type='str'),
                cable_length_m=dict(type='int'),
            )),
            trust=dict(type='str', choices=['dscp', 'pcp'], default='dscp'),
            pfc_priorities=dict(type='list', elements='int', default=[3]),
            dscp_to_priority=dict(type='dict', default={}),
            ecn_priorities=dict(type='list', elements='int', default=[]),
            cnp_dscp=dict(type='int'),
            cnp_priority=dict(type='int'),
            roce_tos=dict(type='int'),
            roce_mode=dict(type='int', choices=[1, 2]),
            verbs_traffic_class=dict(type='int'),
            global_pause=dict(type='str', choices=['off']),
            mtu=dict(type='int'),
            manage_mtu=dict(type='bool', default=False),
            tool=dict(type='str', choices=['auto', 'mlnx_qos', 'dcb'], default='auto'),
            **HOST_ACCESS_OPTIONS,
        ),
        supports_check_mode=True,
    )
    params = module.params
    for name, low, high in (('cnp_dscp', 0, 63), ('cnp_priority', 0, 7), ('roce_tos', 0, 255),
                            ('verbs_traffic_class', -1, 255), ('mtu', 68, 65535)):
        if params[name] is not None and not low <= params[name] <= high:
            module.fail_json(msg='%s=%d is out of range %d..%d' % (name, params[name], low, high))
    low, high = CABLE_LENGTHS
    for spec in params['interfaces']:
        if spec.get('cable_length_m') is not None and not low <= spec['cable_length_m'] <= high:
            module.fail_json(msg='interfaces[%s].cable_length_m=%d is out of range %d..%d (mlx5 ignores other cable '
                                 'lengths)' % (spec['name'], spec['cable_length_m'], low, high))
    try:
        pfc_mask(params['pfc_priorities'])
        pfc_mask(params['ecn_priorities'])
        desired_dscp_map(params['dscp_to_priority'])
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    host = host_access(module)
    runs = []
    try:
        for spec in params['interfaces']:
            run = InterfaceRun(module, host, spec, params)
            run.plan()
            runs.append(run)
        if not module.check_mode:
            for run in runs:
                if run.result['status'] != 'not_applicable':
                    run.apply()
    except (QosError, ParseError) as exc:
        module.fail_json(msg=str(exc), interfaces={run.name: run.finish() for run in runs})
    results = {run.name: run.finish() for run in runs}
    changed = any(item['status'] == 'changed' for item in results.values())
    warnings = [text for run in runs for text in run.warnings]
    for text in warnings:
        module.warn(text)
    output = dict(
        changed=changed,
        interfaces=results,
        commands=[text for item in results.values() for text in item['commands']],
        writes=[text for item in results.values() for text in item['writes']],
        not_applicable={name: item['reason'] for name, item in results.items() if item['status'] == 'not_applicable'},
        warnings_list=warnings,
        summary=summary_lines(results, module.check_mode),
    )
    if module._diff:
        output['diff'] = {'before': _diff_text(runs, 'before'), 'after': _diff_text(runs, 'after'),
                          'before_header': 'RNIC QoS (read)', 'after_header': 'RNIC QoS (design)'}
    module.exit_json(**output)


if __name__ == '__main__':
    main()
