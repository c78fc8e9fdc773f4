"""Golden-file assertions. Set AIFABRIC_UPDATE_GOLDEN=1 to rewrite the files after a deliberate change: each is
written where it is read, a platform's in its own test folder (tests/unit/platforms/<name>/golden), the
platform-neutral ones (GPU server files, fabric documents) under tests/unit/golden."""

import difflib
import os

from tests.unit.utils.platforms import golden

GOLDEN_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden')


def golden_path(relative_path, platform=None):
    """The golden file `relative_path`: platform `platform`'s when given, else a platform-neutral one."""
    return golden(platform, relative_path) if platform else os.path.join(GOLDEN_ROOT, relative_path)


def assert_golden(relative_path, content, platform=None):
    path = golden_path(relative_path, platform)
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
                                            os.path.relpath(path, os.path.dirname(GOLDEN_ROOT)), 'rendered', n=2))
        raise AssertionError('rendered output differs from golden file:\n' + diff[:6000])
