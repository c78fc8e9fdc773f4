"""Golden-file assertions. Set AIFABRIC_UPDATE_GOLDEN=1 to rewrite the files after a deliberate change."""

import difflib
import os

GOLDEN_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden')


def assert_golden(relative_path, content):
    path = os.path.join(GOLDEN_ROOT, relative_path)
    if os.environ.get('AIFABRIC_UPDATE_GOLDEN') == '1':
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(content)
        return
    assert os.path.exists(path), 'missing golden file %s (run with AIFABRIC_UPDATE_GOLDEN=1 to create it)' % path
    with open(path, encoding='utf-8') as handle:
        expected = handle.read()
    if content != expected:
        diff = ''.join(difflib.unified_diff(expected.splitlines(True), content.splitlines(True),
                                            'golden/' + relative_path, 'rendered', n=2))
        raise AssertionError('rendered output differs from golden file:\n' + diff[:6000])
