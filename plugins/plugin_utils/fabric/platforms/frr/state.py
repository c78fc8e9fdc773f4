# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRR on Linux: the gatherer of platform `frr`. FRR's own state through vtysh (frrouting/vtysh.py, shared with
SONiC's bgp container), the kernel's through iproute2 (interfaces, and the leaves' routes to the remote VTEPs),
neighbours through lldpd, bfdd's sessions and the data-plane marking capture, all read by the shell batch reader."""

from __future__ import annotations

from ...frrouting.vtysh import BFD_SOURCE, VTYSH_SOURCES
from ...state import iproute2, lldp
from ...state.gatherer import Gatherer
from ...state.probe import CAPTURE_SOURCE
from ...state.shell import SHELL

# The kernel's routes: where a leaf sends the VXLAN packets to each remote VTEP.
ROUTES_SOURCE = iproute2.ROUTES_SOURCE

GATHERER = Gatherer('frr', 'FRR on Linux',
                    VTYSH_SOURCES + (iproute2.SOURCE, lldp.SOURCE, BFD_SOURCE, ROUTES_SOURCE, CAPTURE_SOURCE),
                    reader=SHELL)

__all__ = ['GATHERER', 'ROUTES_SOURCE']
