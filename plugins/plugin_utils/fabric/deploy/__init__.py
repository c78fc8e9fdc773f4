# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deploy rendered configurations to switches: one contract (contract.py) that every platform's driver follows, and
rolling batches (batches.py). The drivers live in the platform folders: platforms/<name>/deploy.py defines DRIVER, a
class built as DRIVER(device, host_vars) that implements contract.Driver.
"""

from __future__ import annotations

from ..transport import TransportError

# What happened to a switch, as the deploy reports it.
UNCHANGED = 'unchanged'            # running config already equals the rendered one; nothing committed
WOULD_CHANGE = 'would_change'      # check mode: a diff exists, nothing was touched
PENDING_CONFIRM = 'pending_confirm'  # committed with a confirm timer running on the switch
CONFIRMED = 'confirmed'            # confirmed, saved to startup and read back
ROLLED_BACK = 'rolled_back'        # committed, then put back to what it ran before
REVERTING = 'reverting'            # committed, then the session was lost: the switch's own timer reverts it
FAILED = 'failed'                  # refused before commit: the switch runs what it ran before
UNTOUCHED = 'untouched'            # not reached (a batch before it failed)
OUTCOMES = (UNCHANGED, WOULD_CHANGE, PENDING_CONFIRM, CONFIRMED, ROLLED_BACK, REVERTING, FAILED, UNTOUCHED)


class DeployError(TransportError):
    """A deploy step failed: names the device, the step and the switch's own error text, and what state the switch
    is left in (`outcome`)."""

    def __init__(self, device, step, message, outcome=FAILED):
        self.outcome = outcome
        super().__init__(device, step, message)
