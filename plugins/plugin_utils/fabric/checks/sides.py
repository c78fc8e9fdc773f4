# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two sides the lossless checks compare, each turned into views with the same fields (state/views.py), so one
set of rules judges every platform:

- a switch side: `design` phase, the configuration the collection renders read back by the platform's own parser
  (gatherer.design_view); `deployed` phase, the neutral `lossless` state read from the running switch;
- a host side: `design` phase, the host model; `deployed` phase, what aifabric.fabric.rnic_facts read from the NICs.

Each side is computed once per device and phase (ctx.cache) and says why it cannot be judged: `na` (a reason) or
`error` (a StateError).
"""

from __future__ import annotations

import os
import pickle  # nosec B403: from the child a process starts itself (DesignSidesAhead), or as a fleet reading saved it
import subprocess  # nosec B404
import sys

from ..platforms import get_platform
from ..render import render_model
from ..state import StateError
from ..state.sources import gatherer_for

PHASES = ('design', 'deployed')


def no_lossless_dataplane(title) -> str:
    """Why a switch without a lossless data plane (the FRR lab switch) has no lossless state to check."""
    return ('%s has no lossless data plane: PFC, ECN, buffers and the PFC watchdog cannot exist in a software lab, so '
            'the design gives these switches no lossless configuration (the switches of lossless platforms are checked here)'
            % title)


def phases(ctx) -> tuple:
    return tuple(ctx.options.get('lossless_phases', PHASES))


def profile(ctx) -> dict:
    return ctx.design.lossless


def describe_set(values) -> str:
    return '{%s}' % ','.join(str(value) for value in values) if values is not None else 'unknown'


def _rendered(model):
    """The files rendered for `model` (without local users: a design view), read back by the platform's parser."""
    try:
        return render_model(model)
    except (KeyError, ValueError) as exc:
        raise StateError('rendered configuration', 'cannot render: %s' % exc) from None


def switch_side(ctx, model, phase):
    """{'views': {port: view} | None, 'source', 'na': reason | None, 'error': StateError | None, 'issues': []}."""
    key = ('switch_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    platform = get_platform(model['platform'])
    gatherer = gatherer_for(model)
    side = {'views': None, 'source': None, 'na': None, 'error': None, 'issues': []}
    try:
        if not platform.lossless_dataplane or model.get('qos') is None:
            side['na'] = no_lossless_dataplane(gatherer.title)
        elif phase == 'design':
            if gatherer.design_view is None:
                side['na'] = 'the %s gatherer cannot read the rendered configuration' % gatherer.title
            else:
                state = gatherer.design_view(_rendered(model))
                side.update(views=state['ports'], issues=state['issues'], source=state['source'])
        elif not ctx.state(model['name']).provides('lossless'):
            side['na'] = 'the %s gatherer does not read the lossless configuration' % gatherer.title
        else:
            side['source'] = gatherer.describe('lossless', model)
            state = ctx.state(model['name']).get('lossless')
            side.update(views=state['ports'], issues=state['issues'], source=state['source'])
    except StateError as exc:
        side['error'] = exc.with_traceback(None)  # kept: its frames would keep what they read
    ctx.cache[key] = side
    return side


# NCCL's NCCL_IB_TC when nothing sets it (NCCL environment variables: "Default is 0").
NCCL_DEFAULT_IB_TC = 0


def _model_host_views(model):
    rnic = model['rnic']
    mapping = {int(dscp): prio for dscp, prio in rnic['dscp_to_priority'].items()}
    # What the applications mark, as rendered: nccl.conf and the RDMA-CM default ToS host_rnic writes.
    marking = [('NCCL_IB_TC (nccl.conf)', model['nccl'].get('NCCL_IB_TC', NCCL_DEFAULT_IB_TC)),
               ('RDMA-CM default ToS', rnic['traffic_class'])]
    return {rail['interface']: {
        'mtu': rnic.get('mtu', model['mtu']), 'trust': rnic['trust'], 'dscp_to_priority': mapping,
        'pfc': sorted(rnic['pfc_priorities']), 'cnp_dscp': rnic['cnp_dscp'], 'cnp_priority': rnic['cnp_priority'],
        'ecn': sorted(rnic.get('ecn_priorities') or []), 'ecn_known': True, 'pause': {'rx': False, 'tx': False},
        'exists': True, 'rdma': True, 'marking': marking, 'marking_error': None,
        # host_rnic sets the NIC's headroom cable length to the rail's cable (mlnx_qos --cable_len)
        'cable_length_m': rail['cable_length_m'], 'qos_read': True,
    } for rail in model['rails']}


def _nccl_marking(ctx, name):
    """(label, NCCL_IB_TC) from the host's /etc/nccl.conf, or a StateError."""
    try:
        conf = ctx.state(name).get('nccl_conf')
    except StateError as exc:
        return exc
    if not conf['present']:
        return ('NCCL_IB_TC (no %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    value = conf['settings'].get('NCCL_IB_TC')
    if value is None:
        return ('NCCL_IB_TC (not in %s: NCCL default)' % conf['path'], NCCL_DEFAULT_IB_TC)
    try:
        return ('NCCL_IB_TC (%s)' % conf['path'], int(value))
    except ValueError:
        return StateError('nccl_conf', 'NCCL_IB_TC=%r in %s is not a number' % (value, conf['path']))


def _facts_host_views(parsed, nccl):
    views = {}
    for name, data in parsed['interfaces'].items():
        ecn = None
        if data['ecn_rp_priorities'] is not None:
            ecn = sorted(set(data['ecn_rp_priorities']) & set(data['ecn_np_priorities'] or []))
        marking = [] if isinstance(nccl, StateError) else [nccl]
        if data['rdma_cm_tos'] is not None:
            marking.append(('RDMA-CM default ToS', data['rdma_cm_tos']))
        if data['traffic_class'] is not None:
            # MLNX_OFED's global verbs traffic class replaces what every application asks for, NCCL_IB_TC included.
            marking.append(('verbs traffic class (overrides NCCL_IB_TC)', data['traffic_class']))
        views[name] = {
            'mtu': data['mtu'], 'trust': data['trust'], 'dscp_to_priority': data['dscp_to_priority'],
            'pfc': data['pfc_priorities'], 'cnp_dscp': data['cnp_dscp'], 'cnp_priority': data['cnp_priority'],
            'ecn': ecn, 'ecn_known': ecn is not None, 'pause': data['pause'], 'exists': data['exists'],
            'rdma': bool(data['rdma_devices']), 'qos_tool': data['qos_tool'],
            'cable_length_m': data['cable_length_m'], 'qos_read': data['qos_tool'] is not None,
            'marking': marking, 'marking_error': nccl if isinstance(nccl, StateError) else None,
        }
    return views


def host_side(ctx, model, phase):
    """Like switch_side, for a GPU server: the host model (design) or its rnic_facts (deployed)."""
    key = ('host_side', model['name'], phase)
    if key in ctx.cache:
        return ctx.cache[key]
    side = {'views': None, 'source': None, 'na': None, 'error': None}
    if phase == 'design':
        side['source'] = 'host model'
        side['views'] = _model_host_views(model)
    else:
        side['source'] = 'rnic_facts'
        try:
            parsed = ctx.state(model['name']).get('rnic')
            if parsed['not_applicable']:
                side['na'] = parsed['not_applicable']
            else:
                side['views'] = _facts_host_views(parsed, _nccl_marking(ctx, model['name']))
        except StateError as exc:
            side['error'] = exc.with_traceback(None)  # kept: its frames would keep what they read
    ctx.cache[key] = side
    return side


# -- the design phase ahead, in a process of its own ------------------------------------------------------------------
# The design phase of a gathered run renders every switch and reads its files back: a sixth of the judging step of a
# fleet (the 16k fabric's 1,280 switches: about 28 s on 2 cores). It depends on the design alone, so a child process
# computes it on the other core while this one takes the devices' readings. Below this many switches the child's
# start (imports, the design made again) costs more than it saves.
AHEAD_MIN_SWITCHES = 64
AHEAD_TIMEOUT = 600  # seconds the judging step waits for the child once it needs the sides, then makes them itself
NICE = 10  # a fleet reading's child: the readers and the devices' answers come first


def design_side_names(design, devices) -> list:
    """The switches whose design side the lossless checks of `devices` read: theirs and their links' far ends."""
    names = set()
    for name in devices:
        node = design.nodes.get(name)
        if node is None:
            continue
        if node.role != 'host':
            names.add(name)
        for link in node.links:
            _port, far, _far_port = link.end(node)
            if far.role != 'host':
                names.add(far.name)
    return sorted(names)


class DesignSidesAhead:
    """switch_side(ctx, model, 'design') of `names` computed by a child process from the intent file while the caller
    does other work; install() puts them in a context's cache. Whatever goes wrong with the child (it cannot start,
    import or finish in AHEAD_TIMEOUT s), install() puts nothing and each side is computed here when a check asks:
    the results are the same either way. A fleet reading starts it (`nice`: on the CPU its reading leaves idle) and
    save()s the sides for its run's judging step, which takes them with saved()."""

    def __init__(self, intent_path, names, nice=False):
        self.names, self.process, self.intent, self.output = list(names), None, None, None
        try:
            self.intent = _file_version(intent_path)  # the child's design must be of the intent this step judges by
        except OSError:
            return
        root = _collections_root()
        if root is None or not sys.executable or not self.names or len(self.names) < AHEAD_MIN_SWITCHES:
            return  # no interpreter of this one's to start (an embedded Python), none asked for, or too few to gain
        try:
            self.process = subprocess.Popen(  # nosec B603  # pylint: disable=consider-using-with  # stop() ends it
                [sys.executable, '-c', _CHILD, root, os.path.realpath(intent_path), str(NICE if nice else 0)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.process.stdin.write('\n'.join(self.names).encode('utf-8'))
            self.process.stdin.close()
            self.process.stdin = None  # given whole: communicate() only reads
        except OSError:
            self.stop()

    @classmethod
    def saved(cls, path, intent_path, names) -> DesignSidesAhead:
        """The sides a fleet reading of this run saved at `path` (save()), for install(); none when the file cannot
        be read (install() then puts nothing)."""
        ahead = cls(intent_path, [])
        ahead.names = list(names)
        try:
            with open(path, 'rb') as handle:
                ahead.output = handle.read()
        except OSError:
            ahead.output = None
        return ahead

    def save(self, path) -> str | None:
        """Wait for the child and write what it gave to `path` (mode 0600, in the run's own directory); the path, or
        None when the child gave nothing (the judging step then computes the sides itself)."""
        output = self._output()
        if output is None:
            return None
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, 'wb') as handle:
            handle.write(output)
        return path

    def _output(self):
        if self.output is None and self.process is not None:
            try:
                output, _errors = self.process.communicate(timeout=AHEAD_TIMEOUT)
                self.output = output if self.process.returncode == 0 else None
            except subprocess.TimeoutExpired:
                pass
            finally:
                self.stop()
        return self.output

    def install(self, ctx) -> int:
        """How many sides the child gave (0: none, computed here on demand)."""
        output = self._output()
        try:
            # nosec B301: the output of a child of this process, or the file this run's fleet reading wrote in the
            # run's own directory (mode 0700) and named in its result
            version, found = pickle.loads(output) if output else (None, {})  # nosec B301
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
            version, found = None, {}
        if version != self.intent or not isinstance(found, dict) or not set(self.names) <= set(found):
            return 0
        for name in self.names:
            views, issues, source, na, error = found[name]
            ctx.cache.setdefault(('switch_side', name, 'design'), {
                'views': views, 'issues': issues, 'source': source, 'na': na,
                'error': StateError(*error) if error else None})
        return len(self.names)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def _file_version(path):
    """(size, modification time) of a file, what tells the design cache that it changed."""
    stat = os.stat(path)
    return (stat.st_size, stat.st_mtime_ns)


def _collections_root():
    """The directory that holds this collection's ansible_collections tree (what the child puts on its path)."""
    here = os.path.abspath(__file__)
    marker = os.sep + 'ansible_collections' + os.sep
    return here[:here.rindex(marker)] if marker in here else None


_CHILD = ('import sys; sys.path.insert(0, sys.argv[1]); '
          'from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks import sides; '
          'sides.design_sides_child(sys.argv[2], int(sys.argv[3]))')


def design_sides_child(intent_path, nice=0):
    """In the child: the design sides of the switches named on stdin, pickled to stdout (`nice`: its niceness)."""
    if nice:
        os.nice(nice)
    from .. import checks  # pylint: disable=import-outside-toplevel
    from ..design import design_from_file  # pylint: disable=import-outside-toplevel
    names = sys.stdin.read().split()
    version = _file_version(intent_path)
    ctx = checks.Context(design_from_file(intent_path), {})
    found = {}
    for name in names:
        side = switch_side(ctx, ctx.model(name), 'design')
        error = side['error']
        found[name] = (side['views'], side['issues'], side['source'], side['na'],
                       (error.source, error.message) if error is not None else None)
    sys.stdout.buffer.write(pickle.dumps((version, found), protocol=pickle.HIGHEST_PROTOCOL))


__all__ = ['switch_side', 'host_side', 'describe_set', 'profile', 'phases', 'no_lossless_dataplane', 'PHASES',
           'DesignSidesAhead', 'design_side_names', 'design_sides_child']
