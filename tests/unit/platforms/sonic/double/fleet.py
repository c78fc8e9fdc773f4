# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device double of SONiC switches, in SONiC's own test folder: what the OpenSSH double (tests/doubles/ssh:
sshd, the session, the device's state directory, the FRR of its bgp container) runs for the SONiC image's tools
(shell.py: `config`, `show`, `sonic-db-cli` ...; gcu.py: the generic config updater; yang.py: the YANG models the
image checks with; factory.py: the factory CONFIG_DB; buffers.py, buffer_headroom_lua.py: its buffer managers;
bgp.py: bgpcfgd; accounts.py: local users), rules S1-S39 of tests/doubles/README.md.

Found by convention (tests/unit/utils/platforms.py fleet_doubles): the fleet of doubles (tests/doubles/fleet.py)
serves a platform's switches with the machinery FLEET_KIND names, and skips the switches of a platform whose test
folder declares none."""

FLEET_KIND = 'sonic'
