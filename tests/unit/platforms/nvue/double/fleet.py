# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device double of NVIDIA Cumulus Linux (NVUE) switches, in NVUE's own test folder: shell.py is what the
OpenSSH double (tests/doubles/ssh: sshd, the session, the device's state directory) runs for `nv` and the
kernel's tables of a Cumulus switch (rules N1-N15 of tests/doubles/README.md).

Found by convention (tests/unit/utils/platforms.py fleet_doubles): the fleet of doubles (tests/doubles/fleet.py)
serves a platform's switches with the machinery FLEET_KIND names, and skips the switches of a platform whose test
folder declares none."""

FLEET_KIND = 'nvue'
