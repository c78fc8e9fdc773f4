# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render device models into configuration files: one template set per platform, formatting only.

Contract: plugins/plugin_utils/fabric/platforms/<platform>.py defines
    render(model: dict, env: jinja2.Environment) -> dict[str, str]   # file name -> content
and hosts.py does the same for GPU servers; render_fabric() returns the files of the fabric as a whole.
Renderers must not compute design data; they format the model.
"""

from __future__ import annotations

import functools
import importlib
import json
import os

import jinja2

TEMPLATE_ROOT = os.path.join(os.path.dirname(__file__), 'templates')


def _to_nice_json(value, indent=2):
    return json.dumps(value, indent=indent, sort_keys=False)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_ROOT),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters['to_nice_json'] = _to_nice_json
    return env


@functools.lru_cache(maxsize=None)
def _renderer(kind: str):
    module = 'hosts' if kind == 'host' else 'platforms.%s' % kind
    return importlib.import_module('%s.%s' % (__package__, module)).render


def render_model(model: dict) -> dict:
    """Files for one device model: {relative file name: content}."""
    kind = 'host' if model['role'] == 'host' else model['platform']
    return _renderer(kind)(model, environment())


def render_device(design, name: str) -> dict:
    return render_model(design.device(name))


def render_fabric(design) -> dict:
    """Files that belong to the fabric, not to one device: the Kubernetes rail networks (once per fabric)."""
    if not design.hosts():
        return {}
    from . import hosts
    return hosts.render_kubernetes(design.kubernetes(), design.name, environment())
