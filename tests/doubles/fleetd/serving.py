# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every fleetd server shares: its command line (`--spec FILE`), saying it is ready (SPEC.ready, what the
launcher waits for) and serving until it is stopped or the fleet's time is up."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time


async def announce_then_serve(spec, spec_path, **ready):
    """Write SPEC.ready ({'pid', **ready}) at once, then wait for SIGTERM/SIGINT or the end of the fleet's ttl."""
    path = spec_path + '.ready'
    with open(path + '.tmp', 'w', encoding='utf-8') as handle:
        json.dump(dict(ready, pid=os.getpid()), handle)
    os.replace(path + '.tmp', path)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stopped.set)
    try:
        await asyncio.wait_for(stopped.wait(), timeout=max(1.0, spec['ttl'] - (time.time() - spec['started'])))
    except asyncio.TimeoutError:
        pass  # the fleet's time is up: it stops by itself


def main(serve, description, argv=None) -> int:
    """Run `serve(spec, spec_path)` with the spec file the launcher wrote."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--spec', required=True)
    args = parser.parse_args(argv)
    with open(args.spec, encoding='utf-8') as handle:
        spec = json.load(handle)
    asyncio.run(serve(spec, args.spec))
    return 0
