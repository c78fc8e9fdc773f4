# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device double of Arista EOS switches, in EOS's own test folder: the eAPI double (device.py: the switch, its
configuration sessions and `show` answers; config.py and grammar.py: what EOS takes, rules E1-E17 of
tests/doubles/README.md; server.py: eAPI over HTTPS; show.py: the show outputs).

Found by convention (tests/unit/utils/platforms.py fleet_doubles): the fleet of doubles (tests/doubles/fleet.py)
serves a platform's switches with the machinery FLEET_KIND names, and skips the switches of a platform whose test
folder declares none."""

FLEET_KIND = 'eos'
