# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Configuration drift: what a device runs against what the deploy would push, as the deploy itself computes it.

Switches: the platform's deploy driver in check mode (aifabric.fabric.switch_deploy, `would_push`: FRR's own
`frr-reload.py --test` lines, the interface plan, sysctls, daemons and saved files on FRR; napalm's compare on EOS;
the GCU patch on SONiC; `nv config diff` on NVUE). GPU servers: the host_network role in check mode (the netplan or
systemd-networkd files of the rails where such a service owns them, else the rail links, addresses, routes and
policy rules of aifabric.fabric.linux_netdev and its boot file; the rail sysctls) and the NCCL settings NCCL reads
(/etc/nccl.conf, gathered) against the design's. Every difference is a finding naming the device and the lines; it
runs when the validate role read it (`validate_drift`, on by default).
"""

from __future__ import annotations

from . import Check, NotApplicable, StateError, Subject, register, verdict
from ..terms import ROLES

KEY = 'config_drift'


def _diff_parts(text) -> dict:
    """{part: ['-line', '+line']} of a deploy driver's diff ('--- FRR (running)' / '+++ FRR (rendered)' headers, or
    a unified diff of a saved file)."""
    parts, part = {}, 'configuration'
    for line in str(text or '').splitlines():
        if line.startswith('--- '):
            part = line[4:].rsplit(' (', 1)[0].strip() or 'configuration'
            continue
        if line.startswith(('+++ ', '@@')):
            continue
        if line.startswith(('+', '-')) and line[1:].strip():
            parts.setdefault(part, []).append(line.rstrip())
    return parts


def _registered(source, result):
    """A registered task result of the validate role: None when the task did not run here."""
    if not isinstance(result, dict) or result.get('skipped'):
        return None
    if result.get('unreachable'):
        raise StateError(source, 'unreachable: %s' % result.get('msg', ''))
    if result.get('not_reviewed'):
        raise NotApplicable('no reviewed generation to compare with: %s' % result.get('msg', ''), source)
    # the role registers with failed_when: false, which sets failed to false: switch_deploy names the step of every
    # error it returns (failed_step), so that still says the switch could not be checked
    if result.get('failed') or result.get('failed_step'):
        raise StateError(source, result.get('msg') or 'failed')
    return result


def parse_drift(raw) -> dict:
    """{part: [lines]} from what the validate role registered: a switch's switch_deploy check-mode result, or a GPU
    server's host_network results ({'files': linux_network_files, 'rails': linux_netdev, 'sysctl': linux_sysctl})."""
    if not isinstance(raw, dict):
        raise StateError(KEY, 'expected the registered results of the drift tasks, got %s' % type(raw).__name__)
    if 'would_push' in raw or 'outcome' in raw or raw.get('failed') or raw.get('skipped'):
        result = _registered('switch_deploy (check mode)', raw)
        if result is None:
            raise NotApplicable('the deploy driver did not run in check mode here (validate_drift is false)')
        return _diff_parts(result.get('would_push'))
    parts = {}
    files = _registered('host_network (check mode): aifabric.fabric.linux_network_files', raw.get('files'))
    if files is not None:
        lines = ['+%s' % path for path in files.get('files') or []] + ['-%s' % path for path in files.get('removed') or []]
        if lines:
            parts['rail files (%s)' % files.get('backend')] = lines
    rails = _registered('host_network (check mode): aifabric.fabric.linux_netdev', raw.get('rails'))
    if rails is not None:
        lines = ['+ip %s' % command for command in rails.get('commands') or []]
        if rails.get('persisted'):
            lines.append('+the boot file of the rail state (rewritten)')
        if lines:
            parts['rails'] = lines
    sysctl = _registered('host_network (check mode): aifabric.fabric.linux_sysctl', raw.get('sysctl'))
    if sysctl is not None:
        before = sysctl.get('before') or {}
        lines = ['-%s = %s' % (name, before.get(name)) for name in sysctl.get('changed_keys') or []]
        if sysctl.get('persisted'):
            lines.append('+the sysctl.d file of the rails (rewritten)')
        if lines:
            parts['sysctl'] = lines
    if files is None and rails is None and sysctl is None:
        raise NotApplicable('the host roles did not run in check mode here (validate_drift is false)')
    return parts


def _nccl_lines(ctx, model):
    """The NCCL settings /etc/nccl.conf gives against the design's, as diff lines (none when they agree or the
    file was not read)."""
    state = ctx.state(model['name'])
    if not model.get('nccl') or not state.provides('nccl_conf'):
        return []
    try:
        seen = state.get('nccl_conf')
    except StateError:
        return []
    designed = {key: str(value) for key, value in model['nccl'].items()}
    have = seen['settings'] if seen['present'] else {}
    lines = []
    for key in sorted(set(designed) | set(have)):
        if have.get(key) != designed.get(key):
            if key in have:
                lines.append('-%s=%s' % (key, have[key]))
            if key in designed:
                lines.append('+%s=%s' % (key, designed[key]))
    return lines


@register
class ConfigDrift(Check):
    id = 'config_drift'
    title = 'The running configuration is what the deploy pushes'
    category = 'drift'
    roles = ROLES
    per = 'device'
    state = (KEY,)
    inputs = 'the reviewed generation (switches) and the host roles\' desired state (GPU servers): what the deploy pushes'
    description = ('the deploy driver in check mode (switches) and the host_network role in check mode plus the NCCL '
                   'settings (GPU servers) find nothing to change')
    failure = 'every line that differs, by part (FRR, interfaces, sysctl, rails, nccl.conf), as the deploy shows it'
    example = ('leaf003 config_drift [running configuration]: expected what the deploy pushes; seen FRR: -router bgp '
               '4200000002, - address-family ipv4 unicast, -  no maximum-paths 1, +router bgp 4200000002, ...')
    na_expected = 'the deploy driver or the host roles in check mode'

    def subjects(self, ctx, model):
        yield Subject('running configuration', 'what the deploy pushes')

    def read(self, ctx, model, subject):
        state = ctx.state(model['name'])
        if not state.has(KEY):
            raise NotApplicable('drift not read (validate_drift is false, or the validate role did not run)')
        parts = state.parsed_with(KEY, parse_drift)
        if model['role'] == 'host':
            nccl = _nccl_lines(ctx, model)
            if nccl:
                parts = dict(parts, **{'nccl.conf': nccl})
        return parts

    def judge(self, ctx, model, subject, state):
        lines = ['%s: %s' % (part, line) for part, items in state.items() for line in items]
        seen = '; '.join('%s: %s' % (part, ', '.join(items[:4]) + (', ...' if len(items) > 4 else ''))
                         for part, items in state.items()) or 'nothing differs'
        return verdict(not lines, seen, facts={'lines': lines, 'parts': sorted(state)})

    def node(self, graph, result):
        # also when the deploy could not compute it (a port it manages is gone, the switch refused the session):
        # a fact about this device's configuration, which joins the device's other cause
        return ('drift', result.device)

    def finding(self, graph, node, evidence):
        if node[0] != 'drift':
            return super().finding(graph, node, evidence)
        lines = [line for item in evidence for line in (item.facts or {}).get('lines', [])]
        if not lines:
            return ('drift', '%s: what the deploy would change could not be read (%s)' % (node[1], evidence[0].seen),
                    'run the deploy in check mode on %s (playbooks/site.yml --check --diff --limit %s)' % (
                        node[1], node[1]))
        return ('drift', '%s: the running configuration differs from what the deploy pushes (%d line%s: %s%s)' % (
            node[1], len(lines), '' if len(lines) == 1 else 's', '; '.join(lines[:3]), '; ...' if len(lines) > 3 else ''),
            'deploy %s again (playbooks/site.yml), or put the change in the intent' % node[1])


__all__ = ['ConfigDrift', 'parse_drift', 'KEY']
