# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the per-check tables of docs/validation.md from the check declarations (plugins/plugin_utils/fabric/checks).

    python scripts/gen-check-doc.py            # rewrite the tables in docs/validation.md
    python scripts/gen-check-doc.py --check    # exit 1 when they are out of date
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DOC = os.path.join(ROOT, 'docs', 'validation.md')


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true', help='only check that the tables are up to date')
    parser.add_argument('--doc', default=DEFAULT_DOC, help='document to update (default docs/validation.md)')
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)  # the core is plain Python: import it from the checkout, no Ansible needed
    from plugins.plugin_utils.fabric.checks.docgen import update

    with open(args.doc, encoding='utf-8') as handle:
        current = handle.read()
    text = update(current)
    name = os.path.relpath(args.doc, ROOT)
    if args.check:
        if current != text:
            print('the check tables of %s are out of date: run python scripts/gen-check-doc.py' % name)
            return 1
        print('the check tables of %s are up to date' % name)
        return 0
    if current != text:
        with open(args.doc, 'w', encoding='utf-8') as handle:
            handle.write(text)
        print('wrote the check tables of %s' % name)
    else:
        print('%s unchanged' % name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
