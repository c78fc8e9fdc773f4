# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The words every layer shares: the roles a device of a fabric has, and the fixed sizes of the protocols a fabric
carries. Spelled here once (tests/unit/plugins/test_layers.py holds that no other module spells the role list)."""

from __future__ import annotations

from typing import Literal, get_args

SwitchRole = Literal['leaf', 'spine', 'super_spine']  # from the servers up
SWITCH_ROLES: tuple[SwitchRole, ...] = get_args(SwitchRole)
ROLES = SWITCH_ROLES + ('host',)
TOP_DOWN = tuple(reversed(SWITCH_ROLES)) + ('host',)  # how plans and reports list the tiers

VXLAN_OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8

__all__ = ['SwitchRole', 'SWITCH_ROLES', 'ROLES', 'TOP_DOWN', 'VXLAN_OVERHEAD']
