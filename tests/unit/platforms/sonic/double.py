# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device double of SONiC switches: the OpenSSH double of the SONiC image (sshd per switch, the image's tools and
databases), its code in tests/doubles/ssh/sonic*.py and the FRR it runs in tests/doubles/ssh/frr*.py.

Found by convention (tests/unit/utils/platforms.py fleet_doubles): the fleet of doubles (tests/doubles/fleet.py)
serves a platform's switches with the machinery FLEET_KIND names, and skips the switches of a platform whose test
folder declares none."""

FLEET_KIND = 'sonic'
