# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the running Ansible command line says, read from what Ansible parsed (never through a template)."""

from __future__ import annotations

from ansible import context


def limit() -> str:
    """The run's --limit as plain text ('' without one). ansible-core 2.19+ trusts the text of --limit as a template
    and templates `ansible_limit`: read here it stays a value (a new plain str, without the trust tag)."""
    subset = (context.CLIARGS or {}).get('subset')
    return ''.join(subset) if isinstance(subset, str) else ''


__all__ = ['limit']
