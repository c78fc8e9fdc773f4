# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one template per configuration section costs: the switches of the 16,384-GPU fabric rendered by each
platform whose templates have sections (templates/sections/), through its file's template (an include per section)
and through the same sections pasted into one template, side by side in one process.

Both render from the renderer's own context (render.context, built before timing), so the difference is the includes
alone; the two outputs are compared first (they must be equal). CPU time of the template renders only, best of
--repeat rounds, the two interleaved in each round so machine load hits both.

    python benchmarks/bench_template_sections.py                    # every sectioned platform, 400 switches, best of 5
    python benchmarks/bench_template_sections.py --switches 1280 --repeat 9
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common  # noqa: E402  pylint: disable=wrong-import-position

_common.import_path()

# pylint: disable=wrong-import-position
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent  # noqa: E402
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.environment import environment  # noqa: E402
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import (  # noqa: E402
    get_platform, platform_names)

INCLUDE = re.compile(r"^\{% include '([^']+)' %\}$")


def sectioned() -> list:
    return [name for name in platform_names() if os.path.isdir(os.path.join(get_platform(name).templates, 'sections'))]


def pasted(env, template):
    """The file's template with each include replaced by the section's own text: one template, the same output."""
    parts = []
    for line in env.loader.get_source(env, template)[0].splitlines():
        match = INCLUDE.match(line)
        if match:
            parts.append(env.loader.get_source(env, match.group(1))[0])
    return env.from_string(''.join(parts))


def run(name, switches=400, repeat=5, servers=2048) -> dict:
    design = design_from_intent(_common.gpu16k_intent(name, servers=servers))
    renderer, env = get_platform(name).part('render'), environment()
    names = [device for device in design.device_names() if design.nodes[device].role != 'host'][:switches]
    contexts = [renderer.context(design.device(device)) for device in names]
    sections, whole = env.get_template(renderer.TEMPLATE), pasted(env, renderer.TEMPLATE)
    if any(sections.render(context) != whole.render(context) for context in contexts):
        raise SystemExit('%s: the sections and the pasted template render differently' % name)
    best = {'sections': float('inf'), 'one template': float('inf')}
    for _round in range(repeat):
        for label, template in (('one template', whole), ('sections', sections)):
            start = time.process_time()
            for context in contexts:
                template.render(context)
            best[label] = min(best[label], time.process_time() - start)
    return {'platform': name, 'switches': len(contexts), 'repeat': repeat,
            'ms_per_switch': {label: seconds * 1000 / len(contexts) for label, seconds in best.items()}}


def report(results) -> str:
    lines = ['Template render CPU per switch of the 16,384-GPU fabric, best of the rounds (%s)' % _common.load_text(),
             '%-8s %9s %15s %11s %7s' % ('platform', 'switches', 'one template', 'sections', 'ratio')]
    for result in results:
        one, sections = result['ms_per_switch']['one template'], result['ms_per_switch']['sections']
        row = (result['platform'], result['switches'], one, sections, sections / one)
        lines.append('%-8s %9d %12.3f ms %8.3f ms %6.2fx' % row)
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--switches', type=int, default=400, help='switches rendered per round')
    parser.add_argument('--repeat', type=int, default=5, help='rounds (the best one counts)')
    args = parser.parse_args()
    results = [run(name, args.switches, args.repeat) for name in sectioned()]
    print(report(results))
    _common.save_result('template_sections.json', {'results': results})


if __name__ == '__main__':
    main()
