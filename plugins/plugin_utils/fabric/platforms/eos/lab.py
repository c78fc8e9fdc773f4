# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The containerlab kind of EOS: ceos. cEOS names its interfaces from /mnt/flash/EosIntfMapping.json, so the
container's eth1, eth2 ... get the rendered port names (containerlab docs, kinds/ceos "Interface naming")."""

from __future__ import annotations

import json

from ...lab import LabKind, natural_key, sequential_eth

CEOS_INTERFACE_MAP = '/mnt/flash/EosIntfMapping.json'


def interface_map(design, name, wiring, files_dir):
    """The node's EosIntfMapping.json ({path: text}) and its bind."""
    path = '%s/%s/EosIntfMapping.json' % (files_dir, name)
    interfaces = {interface: port for port, interface in wiring.items()}
    text = json.dumps({
        'ManagementIntf': {'eth0': design.device(name)['management']['interface']},
        'EthernetIntf': dict(sorted(interfaces.items(), key=lambda item: natural_key(item[0]))),
    }, indent=2) + '\n'
    return {path: text}, ['%s:%s:ro' % (path, CEOS_INTERFACE_MAP)]


KINDS = (
    LabKind('ceos', sequential_eth(r'Ethernet\d+(/\d+)*', 'EthernetN or EthernetN/M'), files=interface_map),
)
