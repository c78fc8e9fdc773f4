# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Options of the host modules that read the host's files and run its tools (module_utils/host_access.py)."""

    DOCUMENTATION = r"""
options:
  root:
    description:
      - Root of the file system the module reads (and, if it changes the host, writes), for tests and chroots.
    type: path
    default: /
  bin_path:
    description:
      - Directories to look up tools in, instead of C(PATH) (for tests).
    type: list
    elements: path
"""
