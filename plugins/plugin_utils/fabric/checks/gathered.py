# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gathered state in a file: what a fleet reading, or one slice of a sliced run, hands to the judging step.

Format 2 (what this collection writes): JSON Lines, a header line {"format": 2, "fabric": name}, then one line per
device {"device": name, "result": the result validate_gather gives for it}. The judging step reads it one device at a
time, so the readings of a fleet of thousands are never all in memory at once. Format 1 (one JSON document
{"format": 1, "fabric": name, "devices": {device: result}}; the per-host readings a slice keeps, written by the
validate role) is read whole. Files are written atomically with mode 0600 (running configurations are inside, their
password hashes masked); the judging step reads one file, or every file of a sliced run's directory, and a device
found in two files is an error (two slices read it).
"""

from __future__ import annotations

import glob
import json
import os
import shutil

FORMAT = 2
FORMATS = (1, 2)
# What the judging step takes of a device's reading (validate_gather's result less what it judged on the way).
KEPT = ('device', 'fabric', 'platform', 'state', 'attempts', 'seconds', 'started_at', 'read_at', 'settled',
        'convergence', 'probe')


class GatheredError(ValueError):
    """A gathered-state file that cannot be used (named, with why)."""


class GatheredWriter:
    """Writes the readings of a fleet one device at a time as they come (a fleet of thousands is never held whole in
    memory), then makes the file appear at once: `with GatheredWriter(path, fabric) as out: out.add(name, result)`.
    With `part`, the device lines alone, written where they are (another process's share of a fleet reading, which
    the writer of the file takes in with join())."""

    def __init__(self, path, fabric, part=False):
        self.path, self.fabric, self.part = path, fabric, part
        self.handle, self.count = None, 0
        self.temporary = path if part else '%s.%d.tmp' % (path, os.getpid())

    def __enter__(self):
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
        descriptor = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self.handle = os.fdopen(descriptor, 'w', encoding='utf-8')
        if not self.part:
            self.handle.write('{"format":%d,"fabric":%s}\n' % (FORMAT, json.dumps(self.fabric)))
        return self

    def join(self, part, count):
        """Take in the `count` device lines of a part (GatheredWriter(part=True), closed) and remove it."""
        self.handle.flush()
        with open(part, 'rb') as source:
            shutil.copyfileobj(source, self.handle.buffer, 1 << 22)
        self.handle.buffer.flush()
        os.remove(part)
        self.count += count

    def add(self, name, result):
        kept = {key: result[key] for key in KEPT if key in result}
        self.handle.write(json.dumps({'device': name, 'result': kept}, separators=(',', ':')) + '\n')
        self.count += 1

    def __exit__(self, kind, _value, _trace):
        self.handle.close()
        if kind is not None:
            os.remove(self.temporary)
        elif not self.part:
            os.replace(self.temporary, self.path)


def write_gathered(path, fabric, devices) -> str:
    """Write {device: result} of `fabric` to `path` (its directory made, mode 0700)."""
    with GatheredWriter(path, fabric) as out:
        for name, result in devices.items():
            out.add(name, result)
    return path


def _files(paths) -> list:
    files = []
    for path in paths:
        files.extend(sorted(glob.glob(os.path.join(path, '*.json'))) if os.path.isdir(path) else [path])
    if not files:
        raise GatheredError('no gathered state in %s' % ', '.join(paths))
    return files


def _header(path, data, fabric):
    if not isinstance(data, dict) or data.get('format') not in FORMATS:
        raise GatheredError('%s is not a gathered-state file of format %s' % (path, ' or '.join(map(str, FORMATS))))
    if data.get('fabric') != fabric:
        raise GatheredError('%s holds fabric %s, not %s' % (path, data.get('fabric'), fabric))


_DEVICE_LINE = b'{"device":'  # how GatheredWriter starts a device's line: its name is read without the rest
_RESULT = b',"result":'  # after the name: no unescaped '"' is inside a JSON string, so the first one ends the name


def _devices_of(path, fabric, only=None):
    """(device, result) of one file, one device at a time for format 2; with `only` (a set of devices), the others'
    lines are passed over undecoded (their names are still yielded, with None: a device found twice is still one)."""
    try:
        with open(path, 'rb') as handle:
            first = handle.readline()
            try:
                header = json.loads(first)
            except ValueError:
                header = None
            if isinstance(header, dict) and header.get('format') == 2:
                _header(path, header, fabric)
                for number, line in enumerate(handle, start=2):
                    if not line.strip():
                        continue
                    if only is not None and line.startswith(_DEVICE_LINE):
                        end = line.find(_RESULT, len(_DEVICE_LINE))
                        name = json.loads(line[len(_DEVICE_LINE):end]) if end > 0 else None
                        if isinstance(name, str) and name not in only:
                            yield name, None
                            continue
                    entry = json.loads(line)
                    if not isinstance(entry, dict) or not isinstance(entry.get('device'), str) \
                            or not isinstance(entry.get('result'), dict):
                        raise GatheredError('%s line %d is not a device\'s reading' % (path, number))
                    yield entry['device'], entry['result'] if only is None or entry['device'] in only else None
                return
            data = json.loads(first + handle.read())
    except GatheredError:
        raise
    except (OSError, ValueError) as error:
        raise GatheredError('%s cannot be read: %s' % (path, error)) from None
    _header(path, data, fabric)
    if data.get('format') != 1 or not isinstance(data.get('devices'), dict):
        raise GatheredError('%s is not a gathered-state file of format 1 (no devices)' % path)
    for name, result in data['devices'].items():
        yield name, result if only is None or name in only else None


def iter_gathered(paths, fabric, only=None):
    """(device, result) of every file of `paths` (files, or directories whose *.json files are read), one at a time;
    a device found twice is refused, naming both files. With `only` (a set of devices), those devices' alone: a
    process that judges a share of a fleet reads the other devices' lines no further than their names."""
    source = {}
    for path in _files(paths):
        for name, result in _devices_of(path, fabric, only):
            if name in source:
                raise GatheredError('%s was read twice: in %s and %s' % (name, source[name], path))
            source[name] = path
            if result is not None:
                yield name, result


def read_gathered(paths, fabric) -> dict:
    """{device: result} of every file of `paths` (iter_gathered, held whole)."""
    return dict(iter_gathered(paths, fabric))


__all__ = ['write_gathered', 'read_gathered', 'iter_gathered', 'GatheredWriter', 'GatheredError', 'FORMAT', 'FORMATS', 'KEPT']
