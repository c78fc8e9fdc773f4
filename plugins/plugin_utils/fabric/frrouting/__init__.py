# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""FRRouting, the routing suite more than one platform runs (SONiC's bgp container, FRR on Linux): what their
configurations (config.py) and their readings (vtysh.py) share. Not a platform: it has no PLATFORM and the registry
never lists it; the platform folders that run FRR import it, and it imports none of them."""
