# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of gathered device state: pure functions from tool output to plain Python data.

One gatherer per platform, in the platform's folder (platforms/<name>/state.py), and one for GPU servers (host.py);
the interface is gatherer.py, the shared parsers are here (lldp, iproute2, ping, rnic, counters). Every parser
takes the text (or the command result, or the eAPI
JSON) a read-only command printed and returns plain, platform-neutral data, or raises StateError with a sentence
that names the source and what is wrong with the input: empty or malformed input is never a traceback.
`sources.py` is the registry and lists the neutral state keys.
"""

from __future__ import annotations

import json

from ..printable import visible


class StateError(ValueError):
    """Gathered state could not be read: the command failed or printed something unparseable."""

    def __init__(self, source: str, message: str):
        self.source = source
        self.message = message
        super().__init__('%s: %s' % (source, message))

    def again(self) -> StateError:
        """This error as a new exception, to raise a kept error once more: raising the kept one would add each raise's
        frames (and the state their locals hold) to its traceback, for as long as it is kept."""
        return _restored(self.__class__, self.args, self.__dict__)

    def __reduce__(self):
        # pickled as again() copies it (a process that parsed a share of a fleet hands its errors back): its args
        # hold the one text __init__ made of (source, message)
        return _restored, (self.__class__, self.args, self.__dict__)


def _restored(kind, args, attributes) -> StateError:
    error = kind.__new__(kind)
    error.__dict__.update(attributes)
    error.args = args
    return error


class DaemonDown(StateError):
    """The daemon that owns the state is not running (e.g. vtysh: 'bgpd is not running').

    Not a gathering error: it is an observation about the device, and checks report it as a failure. `daemon` names
    the daemon ('bgpd', 'lldpd'), so that nothing downstream reads it out of the message.
    """

    def __init__(self, source: str, daemon: str):
        self.daemon = daemon
        super().__init__(source, '%s is not running' % daemon)


def excerpt(text, limit=120) -> str:
    """A short, single-line excerpt of what a device printed, for error messages: visible (printable.visible)."""
    text = ' '.join(str(text).split())
    return visible(text if len(text) <= limit else text[:limit - 3] + '...', max(limit, 60))


def command_output(source: str, result) -> str:
    """The stdout of a command result (dict with rc/stdout/stderr, as Ansible registers it) or plain text.

    Raises StateError when the command failed or was skipped, quoting its error output.
    """
    if result is None:
        raise StateError(source, 'not gathered')
    if isinstance(result, str):
        return result
    if not isinstance(result, dict):
        raise StateError(source, 'expected command output, got %s' % type(result).__name__)
    if result.get('skipped'):
        raise StateError(source, 'not gathered (task skipped: %s)' % result.get('skip_reason', 'no reason given'))
    if result.get('unreachable'):
        raise StateError(source, 'device unreachable: %s' % excerpt(result.get('msg', '')))
    rc = result.get('rc')
    stdout = result.get('stdout') or ''
    stderr = result.get('stderr') or ''
    if rc is None and 'stdout' not in result:
        raise StateError(source, 'command did not run: %s' % excerpt(result.get('msg', 'no output')))
    if rc not in (0, None):
        raise StateError(source, 'command failed (rc %s): %s' % (rc, excerpt(stderr or stdout or result.get('msg', ''))))
    return stdout


def load_json(source: str, text, empty=None):
    """Parse JSON text. Empty input returns `empty` when given, else raises StateError."""
    if isinstance(text, (dict, list)):
        return text
    if text is None or not str(text).strip():
        if empty is not None:
            return empty
        raise StateError(source, 'empty output (expected JSON)')
    try:
        return json.loads(text)
    except ValueError as exc:
        raise StateError(source, 'not valid JSON (%s) in %r' % (exc.args[0].split(':')[0], excerpt(text, 60))) from None


def require_mapping(source: str, value, what='the top level'):
    if not isinstance(value, dict):
        raise StateError(source, '%s is %s, expected a JSON object' % (what, type(value).__name__))
    return value


def integer(source: str, value, what: str) -> int:
    """`value` (a number, or text of one such as '3' or ' 9216 ') as an int; anything else (a queue key 'TxQ<b>3</b>',
    an MTU 'jumbo', a float, a list) is a StateError naming `what` and the value the device printed."""
    if isinstance(value, bool):
        raise StateError(source, '%s is %r, expected a number' % (what, value))
    if isinstance(value, int):
        return value
    text = value.strip() if isinstance(value, str) else None
    if text and (text.isascii() and text.isdigit() or text[0] == '-' and text[1:].isascii() and text[1:].isdigit()):
        return int(text)
    raise StateError(source, '%s is %s, expected a number' % (what, excerpt(repr(value), 80)))


def as_list(value) -> list:
    """Tools print one item as an object and several as a list (lldpcli json); always return a list."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


__all__ = ['StateError', 'DaemonDown', 'command_output', 'load_json', 'require_mapping', 'as_list', 'excerpt', 'integer']
