"""Fault knobs every double reads: a JSON file per device that a test (or a person) writes at any time.

`<state_dir>/faults.json` holds a dict; the doubles re-read it when it changes, so a test running in another
process than the double (a playbook run against the fleet) sets faults the same way as an in-process test.
Counter knobs are rates: a counter grows by `rate * seconds since the knob was set`.

Knobs (all optional):
  reject_lines: [regex, ...]       configuration lines the device refuses (besides its grammar / validation)
  bgp_stuck: [peer, ...] or ["*"]  BGP sessions that never reach Established (peer address or interface)
  convergence_s: float             seconds a configured BGP session needs to come up (default 1)
  interfaces_down: [name, ...]     interfaces whose link is down
  drop_after_commit: true          the management connection dies right after a commit with a confirm timer
                                   and stays dead until the timer has reverted the device
  unreachable: true                the management plane answers nothing
  pfc_pause: {intf: {priority: P, rx_per_s: N, tx_per_s: N}}   pause frames counted per priority
  watchdog_tripped: {intf: {priority: P, count: N}}              PFC watchdog storms detected/restored
  lossless_drops: {intf: {priority: P, per_s: N}}                drops on a lossless (no-drop) queue
  ecn_marks: {intf: {queue: Q, per_s: N}}                        ECN-marked packets on a queue
  after_commit: {knob: value, ...}  knobs that take effect at the next commit (a configuration the device takes but
                                   that breaks it: what a deploy's health gate must catch)
"""

from __future__ import annotations

import json
import os
import time

FILE = 'faults.json'


def write(state_dir, **knobs):
    """Set the knobs of the device whose state directory is `state_dir` (replaces the previous set)."""
    path = os.path.join(state_dir, FILE)
    knobs['_since'] = time.time()
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as handle:
        json.dump(knobs, handle)
    os.replace(tmp, path)


def clear(state_dir):
    write(state_dir)


def committed(state_dir):
    """Called by a double when it commits a configuration: `after_commit` knobs take effect now."""
    path = os.path.join(state_dir, FILE)
    try:
        with open(path, encoding='utf-8') as handle:
            knobs = json.load(handle)
    except (OSError, ValueError):
        return
    if knobs.get('after_commit'):
        knobs.update(knobs.pop('after_commit'))
        knobs.pop('_since', None)
        write(state_dir, **knobs)


class Faults:
    """The current knobs of one device, re-read from its faults.json when that file changes (`reread`: a
    long-lived server's view), or read once (a vendor command's process: one reading for its whole output)."""

    def __init__(self, state_dir=None, reread=True):
        self.state_dir = state_dir
        self.reread = reread
        self.knobs = {'_since': time.time()}
        self._stamp = None

    def set(self, **knobs):
        """In-process alternative to write(): replace the knobs."""
        knobs['_since'] = time.time()
        self.knobs = knobs
        if self.state_dir:
            write(self.state_dir, **dict(knobs))

    def refresh(self):
        if not self.state_dir or (self._stamp is not None and not self.reread):
            return self.knobs
        path = os.path.join(self.state_dir, FILE)
        try:
            stamp = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            self._stamp = None if self.reread else 0
            return self.knobs
        if stamp != self._stamp:
            with open(path, encoding='utf-8') as handle:
                self.knobs = json.load(handle)
            self._stamp = stamp
        return self.knobs

    def committed(self):
        """The device committed a configuration: its `after_commit` knobs take effect, also for this reader."""
        if self.state_dir:
            committed(self.state_dir)
        self._stamp = None

    def get(self, name, default=None):
        return self.refresh().get(name, default)

    def elapsed(self):
        return max(0.0, time.time() - self.refresh().get('_since', time.time()))

    def counter(self, name, interface, field='per_s'):
        """A counter driven by a rate knob: rate * seconds since the knob was set (0 when not set)."""
        entry = (self.get(name) or {}).get(interface)
        if not entry:
            return 0
        return int(entry.get(field, 0) * self.elapsed())
