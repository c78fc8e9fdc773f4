# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a deploy pushes: the rendered files the user reviewed, never a fresh render.

The render writes each device's files into a generation of the fabric's output directory (output.py) whose
manifest.json lists the sha256 of every file and, in `meta`, the sha256 of the intent file each device was rendered
from. A deploy takes the device's files from the generation the output directory points at now, and refuses
(naming the device, the directory and what to do) when that generation is missing or incomplete, when a file
differs from its manifest entry, or when the intent has changed since the device was rendered.
"""

from __future__ import annotations

import hashlib
import os

from ..output import CONFIGS, read_manifest, sha256_file

INTENT_DIGEST = 'intent_sha256'            # meta: the intent every device of the generation was rendered from
DEVICE_DIGESTS = 'intent_sha256_by_device'  # meta, renders of some devices: {device: intent its files come from}
RENDER_FIRST = 'render the fabric (playbooks/render.yml), review what it wrote, then deploy'


class NotReviewed(ValueError):
    """The rendered files of a device cannot be deployed as they are (the message says why and what to do)."""


def render_meta(intent_path, rendered, devices=(), previous=None, digest=None) -> dict:
    """The manifest `meta` entries of a render of the `rendered` devices from `intent_path` (`digest`: its sha256,
    when the caller has it already). A render of some of the fabric's `devices` (given) carries the others' files over
    from the previous generation (its manifest, or None), so it keeps what that generation says they were rendered
    from."""
    digest = digest or sha256_file(intent_path)
    if not devices:
        return {INTENT_DIGEST: digest}
    old = (previous or {}).get('meta') or {}
    if old.get(DEVICE_DIGESTS):
        by_device = dict(old[DEVICE_DIGESTS])
    else:
        by_device = dict.fromkeys(devices, old[INTENT_DIGEST]) if old.get(INTENT_DIGEST) else {}
    by_device.update(dict.fromkeys(rendered, digest))
    return {INTENT_DIGEST: digest, DEVICE_DIGESTS: dict(sorted(by_device.items()))}


def reviewed_files(output_dir, device, names, intent_path, optional=()) -> dict:
    """{file name: text} of `device`'s rendered `names` in the current generation of `output_dir`, checked against
    its manifest and the intent; NotReviewed otherwise. `optional` files are read too where the render made them
    (e.g. SONiC's local-users.json, rendered only when the intent lists users)."""
    if not output_dir:
        raise NotReviewed('no output directory of the fabric is known (aifabric_output_dir, which the inventory plugin '
                          'sets): %s' % RENDER_FIRST)
    directory = os.path.realpath(output_dir)
    manifest = read_manifest(directory)
    if manifest is None:
        raise NotReviewed('%s holds no rendered output (no manifest.json): %s' % (output_dir, RENDER_FIRST))
    if manifest.get('complete') is not True:
        raise NotReviewed('the rendered output in %s is not complete: render again' % output_dir)
    meta = manifest.get('meta') or {}
    rendered_from = (meta.get(DEVICE_DIGESTS) or {}).get(device, None if meta.get(DEVICE_DIGESTS) else
                                                         meta.get(INTENT_DIGEST))
    if rendered_from is None:
        raise NotReviewed('the rendered output in %s does not say which intent %s was rendered from: %s'
                          % (output_dir, device, RENDER_FIRST))
    if rendered_from != sha256_file(intent_path):
        raise NotReviewed('the intent %s has changed since %s was rendered into %s (rendered %s): %s'
                          % (intent_path, device, output_dir, manifest.get('created', 'earlier'), RENDER_FIRST))
    files = {}
    present = [name for name in optional if '%s/%s/%s' % (CONFIGS, device, name) in manifest['files']]
    for name in list(names) + present:
        relative = '%s/%s/%s' % (CONFIGS, device, name)
        expected = manifest['files'].get(relative)
        path = os.path.join(directory, relative)
        if expected is None or not os.path.isfile(path):
            raise NotReviewed('%s is not in the rendered output in %s: %s' % (relative, output_dir, RENDER_FIRST))
        with open(path, 'rb') as handle:
            data = handle.read()
        if hashlib.sha256(data).hexdigest() != expected:
            raise NotReviewed('%s in %s differs from what was rendered (its sha256 is not the one manifest.json '
                              'lists): render again and review' % (relative, output_dir))
        files[name] = data.decode('utf-8')
    return files
