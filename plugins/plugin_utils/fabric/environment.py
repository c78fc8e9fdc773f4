# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one Jinja2 environment of every template: the shared ones (templates/docs, templates/hosts) and each
platform's own (platforms/<platform>/templates/, named '<platform>/<file>'). Renderers and the fabric documentation
both format with it; neither imports the other."""

from __future__ import annotations

import os
from typing import Any

import jinja2

from . import compile_cache, jsontext
from .platforms import registered

TEMPLATE_ROOT = os.path.join(os.path.dirname(__file__), 'templates')


def _to_nice_json(value, indent=2):
    return jsontext.dumps(value, indent=indent)


class _ModelEnvironment(jinja2.Environment):
    """Templates format plain dicts: `neighbor.ip` looks the key up first (Jinja2 tries the attribute first, and
    the AttributeError it catches for every dict field is most of a template's time). A name of a dict method
    still means the method."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_METHODS:  # pylint: disable=unidiomatic-typecheck
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_DICT_METHODS = frozenset(dir(dict))

# Options that change what a template compiles to (the bytecode cache's namespace includes them).
_TEMPLATE_OPTIONS: dict[str, Any] = {'trim_blocks': True, 'lstrip_blocks': True, 'keep_trailing_newline': True, 'autoescape': False}


def environment() -> jinja2.Environment:
    """The one Jinja2 environment of every renderer: the shared templates and each platform's own (built again only
    when the platform registry changed)."""
    registry = registered()
    if _ENVIRONMENT.get('registry') is not registry:
        _ENVIRONMENT.update(registry=registry, env=_environment(
            tuple((name, platform.templates) for name, platform in registry.items())))
    return _ENVIRONMENT['env']


_ENVIRONMENT = {}


def _environment(platform_templates) -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([
        jinja2.PrefixLoader({name: jinja2.FileSystemLoader(folder) for name, folder in platform_templates}),
        jinja2.FileSystemLoader(TEMPLATE_ROOT),
    ])
    env = _ModelEnvironment(
        loader=loader,
        auto_reload=False,  # templates do not change during a run: no stat(2) of the template per device
        undefined=jinja2.StrictUndefined,
        # Compiled templates are kept per user, so a fresh process (an AWX job) does not compile them again.
        bytecode_cache=compile_cache.template_cache(_TEMPLATE_OPTIONS),
        **_TEMPLATE_OPTIONS,
    )
    env.filters['to_nice_json'] = _to_nice_json
    return env
