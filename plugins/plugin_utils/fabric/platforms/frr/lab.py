# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab switch runs on the lab's own image (Debian with FRR, roles/lab), like the GPU servers."""

from __future__ import annotations

from ...lab import LAB_IMAGE

KINDS = (LAB_IMAGE,)
