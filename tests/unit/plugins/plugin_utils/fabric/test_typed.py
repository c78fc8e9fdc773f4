# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""typed.py holds plain data against the TypedDicts the type checker reads (model.py, state/schema.py): a Literal
field takes only its values, a NotRequired field may be absent and is checked where present."""

from typing import Literal, NotRequired, Optional, TypedDict

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import typed
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.model import HostModel, SwitchModel
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import schema
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.terms import SWITCH_ROLES


class Port(TypedDict):
    name: str
    role: Literal['uplink', 'downlink']
    peer: NotRequired[Optional[str]]


def test_a_literal_takes_only_its_values():
    assert typed.problems({'name': 'eth1', 'role': 'uplink'}, Port) == []
    assert typed.problems({'name': 'eth1', 'role': 'sideways'}, Port, 'port') == [
        "port.role is 'sideways', expected one of 'uplink', 'downlink'"]


def test_a_not_required_field_may_be_absent_and_is_checked_where_present():
    assert typed.problems({'name': 'eth1', 'role': 'uplink', 'peer': None}, Port) == []
    assert typed.problems({'name': 'eth1', 'role': 'uplink', 'peer': 7}, Port, 'port') == [
        'port.peer is 7, expected str or null']
    assert typed.problems({'role': 'uplink'}, Port, 'port') == ['port has no name (Port)']


def test_the_models_say_their_roles():
    """The type checker tells a switch's model from a server's by its role; the runtime check holds the same."""
    assert typed._hints(SwitchModel)['role'].__args__ == SWITCH_ROLES  # pylint: disable=protected-access
    assert typed._hints(HostModel)['role'].__args__ == ('host',)  # pylint: disable=protected-access


def test_what_some_platforms_give_is_declared_and_not_demanded():
    interface = {'ifname': 'eth1', 'mtu': 9100, 'operstate': 'UP', 'admin_up': True, 'lower_up': True, 'addresses': []}
    assert schema.problems('interfaces', {'eth1': interface}) == []
    assert schema.problems('interfaces', {'eth1': dict(interface, kind=3)}) == [
        "interfaces['eth1'].kind is 3, expected str or null"]


def test_a_shared_part_is_checked_once_per_call_and_again_in_the_next(monkeypatch):
    """Parsed state shares equal parts (a route table's next hops): one conforms() call checks each object once, and
    remembers nothing past the call (a part changed since is checked again)."""
    class Hop(TypedDict):
        dev: str

    class Route(TypedDict):
        dst: str
        nexthops: list[Hop]

    hops = [{'dev': 'eth1'}, {'dev': 'eth2'}]
    table = [{'dst': '10.0.0.%d' % index, 'nexthops': hops} for index in range(50)]
    remembered = []

    class Recording(dict):
        def __setitem__(self, key, value):
            remembered.append(key)
            super().__setitem__(key, value)
    monkeypatch.setattr(typed, '_CONFORMING', Recording())
    assert typed.conforms(table, list[Route])
    assert remembered.count((id(hops), list[Hop])) == 1 and len(remembered) == 50 + 1 + 2 + 1  # routes, hops, 2 hop dicts, table
    assert typed._CONFORMING == {}  # pylint: disable=protected-access
    hops.append({'dev': 7})
    assert not typed.conforms(table, list[Route])
    assert typed.problems(table, list[Route])[0] == 'value[0].nexthops[2].dev is 7, expected str'
