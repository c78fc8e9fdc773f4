# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What FRR's configuration language needs wherever FRR runs (SONiC's bgp container, FRR on Linux)."""

from __future__ import annotations

# bfdd's profile defaults: `show running-config` omits a line that equals its default, so writing it would make the
# rendered file differ from the running configuration forever (the reload's read-back would never match).
BFD_PROFILE_DEFAULTS = (('detect-multiplier', 'multiplier', 3), ('receive-interval', 'interval_ms', 300),
                        ('transmit-interval', 'interval_ms', 300))


def bfd_profile_lines(bfd_timers: dict) -> list:
    """The lines of the FABRIC BFD profile that differ from bfdd's defaults, as FRR prints them."""
    return ['%s %d' % (keyword, bfd_timers[key]) for keyword, key, default in BFD_PROFILE_DEFAULTS
            if bfd_timers[key] != default]


__all__ = ['bfd_profile_lines', 'BFD_PROFILE_DEFAULTS']
