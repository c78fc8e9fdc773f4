# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gathered state in a file: what a fleet reading, or one slice of a sliced run, hands to the judging step.

One JSON document per file: {"format": 1, "fabric": name, "devices": {device: the result validate_gather gives for
it}}. Written atomically with mode 0600 (running configurations are inside, their password hashes masked); the
judging step reads one file, or every file of a sliced run's directory, and a device found in two files is an
error (two slices read it).
"""

from __future__ import annotations

import glob
import json
import os

FORMAT = 1


class GatheredError(ValueError):
    """A gathered-state file that cannot be used (named, with why)."""


def write_gathered(path, fabric, devices) -> str:
    """Write {device: result} of `fabric` to `path` (its directory made, mode 0700)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    temporary = '%s.%d.tmp' % (path, os.getpid())
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
        json.dump({'format': FORMAT, 'fabric': fabric, 'devices': devices}, handle, separators=(',', ':'))
    os.replace(temporary, path)
    return path


# What the judging step takes of a device's reading (validate_gather's result less what it judged on the way).
KEPT = ('device', 'fabric', 'platform', 'state', 'attempts', 'seconds', 'started_at', 'read_at', 'settled',
        'convergence', 'probe')


class GatheredWriter:
    """Writes the readings of a fleet one device at a time as they come (a fleet of thousands is never held whole in
    memory), then makes the file appear at once: `with GatheredWriter(path, fabric) as out: out.add(name, result)`."""

    def __init__(self, path, fabric):
        self.path, self.fabric = path, fabric
        self.handle, self.count = None, 0
        self.temporary = '%s.%d.tmp' % (path, os.getpid())

    def __enter__(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
        descriptor = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self.handle = os.fdopen(descriptor, 'w', encoding='utf-8')
        self.handle.write('{"format":%d,"fabric":%s,"devices":{' % (FORMAT, json.dumps(self.fabric)))
        return self

    def add(self, name, result):
        kept = {key: result[key] for key in KEPT if key in result}
        self.handle.write('%s%s:%s' % (',' if self.count else '', json.dumps(name), json.dumps(kept, separators=(',', ':'))))
        self.count += 1

    def __exit__(self, kind, _value, _trace):
        self.handle.write('}}')
        self.handle.close()
        if kind is None:
            os.replace(self.temporary, self.path)
        else:
            os.remove(self.temporary)


def read_gathered(paths, fabric) -> dict:
    """{device: result} of every file of `paths` (files, or directories whose *.json files are read)."""
    files = []
    for path in paths:
        files.extend(sorted(glob.glob(os.path.join(path, '*.json'))) if os.path.isdir(path) else [path])
    if not files:
        raise GatheredError('no gathered state in %s' % ', '.join(paths))
    found, source = {}, {}
    for path in files:
        try:
            with open(path, encoding='utf-8') as handle:
                data = json.load(handle)
        except (OSError, ValueError) as error:
            raise GatheredError('%s cannot be read: %s' % (path, error)) from None
        if not isinstance(data, dict) or data.get('format') != FORMAT or not isinstance(data.get('devices'), dict):
            raise GatheredError('%s is not a gathered-state file of format %d' % (path, FORMAT))
        if data.get('fabric') != fabric:
            raise GatheredError('%s holds fabric %s, not %s' % (path, data.get('fabric'), fabric))
        for name, result in data['devices'].items():
            if name in found:
                raise GatheredError('%s was read twice: in %s and %s' % (name, source[name], path))
            found[name], source[name] = result, path
    return found


__all__ = ['write_gathered', 'read_gathered', 'GatheredWriter', 'GatheredError', 'FORMAT', 'KEPT']
