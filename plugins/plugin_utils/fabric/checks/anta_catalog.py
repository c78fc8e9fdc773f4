# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ANTA, Arista's network test framework, on the devices that speak eAPI: a test catalog generated from the design,
run through ANTA's library on the eAPI outputs the gatherer read through the deploy connection, its results in
the same report as our checks (check id `anta`, one Result per ANTA test).

- device_catalog(ctx, model): the ANTA catalog (plain data, ANTA's YAML structure) of one device: BGP peer counts
  per address family with their state, VXLAN interface, VNI bindings and remote VTEPs, fabric interfaces up, L3 and
  L2 MTU, LLDP neighbours of the switch links against the cabling plan. Every value comes from the design.
- fabric_catalog(ctx, names): the same for several devices in one catalog, each test filtered to its device by
  tag (ANTA tags every device with its name), written to anta-catalog.yml so people can run `anta nrfu` themselves.
- eapi_commands(ctx, model): the eAPI commands (with their revisions) ANTA's tests read, gathered under state key
  `anta` like every other state.
- run(ctx, names): AntaRunner over an AntaInventory of CollectedDevice (an AntaDevice answering from those
  outputs), one TestResult per test, turned into Results.
ANTA (PyPI `anta`) is imported only here, inside functions: the rest of the collection works without it.
"""

from __future__ import annotations

import asyncio

from . import ERROR, FAIL, NOT_APPLICABLE, PASS, Check, NotApplicable, Outcome, Subject, register
from .catalog import expected_vnis, vni_vteps
from ..state import StateError
from ..state.gatherer import command_key
from ..terms import SWITCH_ROLES

ANTA_KEY = 'anta'
SWITCHES = SWITCH_ROLES
MISSING = 'ANTA is not installed on the controller (pip install anta, see requirements.txt)'


def available() -> bool:
    try:
        import anta  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    except ImportError:
        return False
    return True


def _remote_vteps(ctx, model):
    """Every VTEP this leaf has a tunnel to: the leaves sharing an L2VNI, and with a tenant VRF every other leaf."""
    evpn = model.get('evpn') or {}
    vteps = {ip for item in expected_vnis(ctx, model) for ip in item['remote_vteps']}
    if evpn.get('vrfs'):
        vrfs = {vrf['name'] for vrf in evpn['vrfs']}
        for leaf in ctx.design.device_names('leaf'):
            other = ctx.model(leaf).get('evpn') or {}
            if leaf != model['name'] and vrfs & {vrf['name'] for vrf in other.get('vrfs') or []}:
                vteps.add(other['vtep_ip'])
    vni_vteps(ctx)  # memoised for the other leaves
    return sorted(vteps)


def device_catalog(ctx, model) -> dict:
    """{ANTA test module: [{TestName: inputs}]} for one device, from the design."""
    bgp = model.get('bgp') or {}
    neighbors = bgp.get('neighbors') or []
    families = [{'afi': 'ipv4', 'safi': 'unicast', 'vrf': 'default', 'num_peers': len(neighbors), 'check_peer_state': True}]
    if bgp.get('evpn'):
        families.append({'afi': 'evpn', 'num_peers': len(neighbors), 'check_peer_state': True})
    routed = [item for item in model['interfaces'] if item.get('mode') == 'routed']
    bridged = [item for item in model['interfaces'] if item.get('mode') != 'routed']
    catalog: dict[str, list] = {
        'anta.tests.routing.bgp': [{'VerifyBGPPeerCount': {'address_families': families}}],
        'anta.tests.interfaces': [
            {'VerifyInterfacesStatus': {'interfaces': [{'name': item['name'], 'status': 'up'} for item in model['interfaces']]}},
        ],
        'anta.tests.connectivity': [{'VerifyLLDPNeighbors': {
            'require_fqdn': False,
            'neighbors': [{'port': item['name'], 'neighbor_device': item['peer'], 'neighbor_port': item['peer_interface']}
                          for item in model['interfaces'] if item.get('peer_role') != 'host']}}],
    }
    if routed:
        catalog['anta.tests.interfaces'].append({'VerifyL3MTU': {'mtu': model['mtu'], 'specific_mtu': [
            {item['name']: item['mtu']} for item in routed if item['mtu'] != model['mtu']]}})
    if bridged:
        catalog['anta.tests.interfaces'].append({'VerifyL2MTU': {'mtu': model['mtu'], 'specific_mtu': [
            {item['name']: item['mtu']} for item in bridged]}})
    evpn = model.get('evpn')
    if evpn:
        bindings = {vlan['vni']: vlan['vlan'] for vlan in evpn['vlans']}
        bindings.update({vrf['l3vni']: vrf['name'] for vrf in evpn.get('vrfs') or [] if vrf.get('l3vni')})
        catalog['anta.tests.vxlan'] = [{'VerifyVxlan1Interface': None}, {'VerifyVxlanVniBinding': {'bindings': bindings}},
                                       {'VerifyVxlanVtep': {'vteps': _remote_vteps(ctx, model)}}]
    return catalog


def fabric_catalog(ctx, names) -> dict:
    """One ANTA catalog for `names`, each test limited to its device with `filters: {tags: [device]}`."""
    merged = {}
    for name in names:
        for module, tests in device_catalog(ctx, ctx.model(name)).items():
            for test in tests:
                (test_name, inputs), = test.items()
                merged.setdefault(module, []).append({test_name: dict(inputs or {}, filters={'tags': [name]})})
    return merged


def _catalog(data):
    from anta.catalog import AntaCatalog  # pylint: disable=import-outside-toplevel
    return AntaCatalog.from_dict(data)


def eapi_commands(ctx, model) -> list:
    """[{'cmd', 'revision'}] every test of the device's catalog reads (ANTA renders them from the inputs)."""
    if not available():
        return []
    from anta.device import AntaDevice  # pylint: disable=import-outside-toplevel
    device = _collected_class(AntaDevice)(model['name'], {})
    seen, commands = set(), []
    for definition in _catalog(device_catalog(ctx, model)).tests:
        test = definition.test(device=device, inputs=definition.inputs)
        for command in test.instance_commands:
            key = command_key(command.command, command.revision)
            if key not in seen:
                seen.add(key)
                commands.append({'cmd': command.command, 'revision': command.revision} if command.revision
                                else {'cmd': command.command})
    return commands


def _collected_class(base):
    class CollectedDevice(base):
        """An ANTA device answering from eAPI outputs that were read through the collection's own connection."""

        def __init__(self, name, outputs, hw_model='gathered'):
            super().__init__(name, tags={name}, disable_cache=True)
            self.outputs = dict(outputs)
            self.hw_model = hw_model

        @property
        def _keys(self):
            return (self.name,)

        async def _collect(self, command, *, collection_id=None):
            key = command_key(command.command, command.revision)
            output = self.outputs.get(key, self.outputs.get(command_key(command.command)))
            if output is None:
                command.errors = ['not gathered: %s' % command.command]
            elif isinstance(output, dict) and set(output) <= {'errors', 'messages'} and output.get('errors'):
                command.errors = [str(item) for item in output['errors']]
            else:
                command.output = output

        async def refresh(self):
            self.is_online = self.established = bool(self.outputs)

        async def disconnect(self):
            return None

    return CollectedDevice


def run(catalog_data, outputs) -> list:
    """Run ANTA's tests of `catalog_data` on devices answering from `outputs` ({device: {command key: output}}).

    Returns [{device, test, description, result, messages}] (ANTA's TestResult fields) in catalog order.
    """
    # pylint: disable=import-outside-toplevel
    from anta.device import AntaDevice
    from anta.inventory import AntaInventory
    from anta.result_manager import ResultManager
    from anta.runner import main as run_anta  # ANTA's documented entry point for scripts
    collected = _collected_class(AntaDevice)
    inventory = AntaInventory()
    for name, answers in outputs.items():
        inventory.add_device(collected(name, answers))
    manager = ResultManager()
    asyncio.run(run_anta(manager, inventory, _catalog(catalog_data)))
    order = {}
    for tests in catalog_data.values():
        for test in tests:
            order.setdefault(next(iter(test)), len(order))
    results = [{'device': item.name, 'test': item.test, 'description': item.description,
                'result': str(getattr(item.result, 'value', item.result)), 'messages': list(item.messages)}
               for item in manager.results]
    return sorted(results, key=lambda item: (item['device'], order.get(item['test'], len(order)), item['test']))


STATUS = {'success': PASS, 'failure': FAIL, 'error': ERROR, 'skipped': NOT_APPLICABLE, 'unset': ERROR}


def _ran(ctx):
    """ANTA results of every device of the run that has ANTA outputs, computed once: {device: [result]}."""
    if 'anta_results' not in ctx.cache:
        outputs = {}
        for name in ctx.options.get('devices') or ctx.design.device_names():
            state = ctx.state(name)
            if ctx.model(name)['role'] in SWITCHES and state.provides(ANTA_KEY) and state.has(ANTA_KEY):
                try:
                    outputs[name] = state.get(ANTA_KEY)
                except StateError:
                    continue
        by_device = {}
        if outputs and available():
            for item in run(fabric_catalog(ctx, sorted(outputs)), outputs):
                by_device.setdefault(item['device'], []).append(item)
        ctx.cache['anta_results'] = by_device
    return ctx.cache['anta_results']


@register
class AntaTests(Check):
    id = 'anta'
    title = 'ANTA tests from the design (EOS)'
    category = 'anta'
    roles = SWITCHES
    per = 'EOS switch, one result per ANTA test'
    state = (ANTA_KEY,)
    peers = True
    inputs = ('the catalog of checks/anta_catalog.py: BGP peers per address family, VXLAN interface, VNI bindings and '
              'VTEPs, cabled ports up, L3/L2 MTU, LLDP neighbours of the switch links')
    description = ('ANTA\'s own tests pass on the eAPI outputs read through the deploy connection (one result per ANTA '
                   'test, its verdict its own; a skipped ANTA test is not applicable)')
    failure = 'ANTA\'s own messages'
    example = ('leaf001 anta [VerifyBGPPeerCount]: expected Verifies the count of BGP peers for given address families.; '
               'seen AFI: ipv4 SAFI: unicast VRF: default - Expected: 2, Actual: 1')
    error_subject = 'all'
    na_expected = 'ANTA tests'
    source_per_subject = True

    def subjects(self, ctx, model):
        state = ctx.state(model['name'])
        if not state.provides(ANTA_KEY):
            yield Subject('all', 'ANTA tests')  # read() says why it is not applicable
            return
        if not available():
            yield Subject('all', 'ANTA tests', data='missing')
            return
        try:
            state.get(ANTA_KEY)
        except StateError:
            yield Subject('all', 'ANTA tests')  # read() raises it again, as an error
            return
        ran = _ran(ctx).get(model['name'], [])
        for item in ran:
            yield Subject(item['test'], item['description'], data=item)
        if not ran:
            yield Subject('all', 'ANTA tests', data='none')

    def read(self, ctx, model, subject):
        state = ctx.state(model['name'])
        if not state.provides(ANTA_KEY):
            raise NotApplicable('ANTA speaks eAPI; the %s gatherer reads the device otherwise (its state is checked by '
                                'the other checks)' % state.gatherer.title)
        return state.get(ANTA_KEY)

    def source(self, ctx, model, subject):
        return 'ANTA %s' % subject.name if isinstance(subject.data, dict) else None

    def judge(self, ctx, model, subject, state):
        if subject.data == 'missing':
            return Outcome(ERROR, MISSING)
        if subject.data == 'none':
            return Outcome(ERROR, 'ANTA ran no test on this device')
        status = STATUS.get(subject.data['result'], ERROR)
        message = 'not applicable: skipped by ANTA' if status == NOT_APPLICABLE else ''
        return Outcome(status, '; '.join(subject.data['messages']) or subject.data['result'], message)


__all__ = ['device_catalog', 'fabric_catalog', 'eapi_commands', 'run', 'command_key', 'available', 'ANTA_KEY']
