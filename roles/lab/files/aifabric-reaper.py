# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Minimal PID 1: reap orphaned processes, exit promptly on SIGTERM/SIGINT (docker stop)."""
import os
import signal
import sys
import time


def _stop(signum, frame):
    sys.exit(0)


signal.signal(signal.SIGTERM, _stop)
signal.signal(signal.SIGINT, _stop)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(1)
