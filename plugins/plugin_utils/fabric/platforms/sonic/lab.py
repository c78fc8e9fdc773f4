# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The containerlab kinds of SONiC: sonic-vm (the whole SONiC image in a VM) and sonic-vs (the virtual switch
container), both with the virtual switch's fixed port layout (containerlab docs, kinds/sonic-vs and sonic-vm)."""

from __future__ import annotations

import re

from ...lab import LabKind

# The SONiC virtual switch HwSKU (Force10-S6000): 32 ports Ethernet0, Ethernet4 ... Ethernet124 on eth1 ... eth32.
SONIC_VS_PORTS = 32


def _sonic_vs_lanes(ports):
    wired = {}
    for port in ports:
        match = re.fullmatch(r'Ethernet(\d+)', port)
        if match and int(match.group(1)) % 4 == 0 and int(match.group(1)) // 4 < SONIC_VS_PORTS:
            wired[port] = 'eth%d' % (int(match.group(1)) // 4 + 1)
    return wired, ('Ethernet0, Ethernet4 ... Ethernet%d (the virtual switch\'s %d ports; render the SONiC switches '
                   'with ports of that layout)' % (4 * (SONIC_VS_PORTS - 1), SONIC_VS_PORTS))


KINDS = (
    LabKind('sonic-vm', _sonic_vs_lanes),
    LabKind('sonic-vs', _sonic_vs_lanes),
)
