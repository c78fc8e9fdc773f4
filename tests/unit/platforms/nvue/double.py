# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device double of NVIDIA Cumulus Linux switches: the OpenSSH double of NVUE (sshd per switch, `nv` and the
kernel's tables), its code in tests/doubles/ssh/nvue.py.

Found by convention (tests/unit/utils/platforms.py fleet_doubles): the fleet of doubles (tests/doubles/fleet.py)
serves a platform's switches with the machinery FLEET_KIND names, and skips the switches of a platform whose test
folder declares none."""

FLEET_KIND = 'nvue'
