# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The containerlab kinds of Cumulus Linux: cvx (a container) and nvidia_cumulusvx (the VM)."""

from __future__ import annotations

from ...lab import LabKind, same_names

KINDS = (
    # cvx runs Cumulus in a container: its swp interfaces are the container's own, breakout names included.
    LabKind('cvx', same_names(r'(?=.{4,15}$)swp\d+(s\d+)?', 'swpN or swpNsM, at most 15 characters')),
    LabKind('nvidia_cumulusvx', same_names(r'swp\d+', 'swpN (the VM has no breakout ports)')),
)
