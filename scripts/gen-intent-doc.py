# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write docs/intent.md from the intent schema (plugins/plugin_utils/fabric/schema/intent.schema.yml).

    python scripts/gen-intent-doc.py            # rewrite docs/intent.md
    python scripts/gen-intent-doc.py --check    # exit 1 when docs/intent.md is out of date
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(ROOT, 'docs', 'intent.md')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true', help='only check that the file is up to date')
    parser.add_argument('--output', default=DEFAULT_OUTPUT, help='file to write (default docs/intent.md)')
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)  # the core is plain Python: import it from the checkout, no Ansible needed
    from plugins.plugin_utils.fabric.schema_doc import generate

    text = generate()
    try:
        with open(args.output, encoding='utf-8') as handle:
            current = handle.read()
    except FileNotFoundError:
        current = None
    if args.check:
        if current != text:
            print('%s is out of date: run python scripts/gen-intent-doc.py' % os.path.relpath(args.output, ROOT))
            return 1
        print('%s is up to date' % os.path.relpath(args.output, ROOT))
        return 0
    if current != text:
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        with open(args.output, 'w', encoding='utf-8') as handle:
            handle.write(text)
        print('wrote %s' % os.path.relpath(args.output, ROOT))
    else:
        print('%s unchanged' % os.path.relpath(args.output, ROOT))
    return 0


if __name__ == '__main__':
    sys.exit(main())
