"""Acceptance of FRR configurations by real FRR: `vtysh -C -f FILE` exits 0 only for a valid file."""

import os
import shutil
import subprocess
import tempfile

import pytest

VTYSH = shutil.which('vtysh') or '/usr/bin/vtysh'


def assert_frr_accepts(config_text):
    if not os.path.exists(VTYSH):
        pytest.fail('FRR vtysh is not installed (scripts/setup-host.sh installs Debian frr); '
                    'this check must run for real, not be skipped')
    with tempfile.NamedTemporaryFile('w', suffix='.conf', delete=False) as handle:
        handle.write(config_text)
        path = handle.name
    try:
        result = subprocess.run([VTYSH, '-C', '-f', path], capture_output=True, text=True, timeout=60, check=False)
    finally:
        os.unlink(path)
    assert result.returncode == 0, 'vtysh -C rejected the configuration (rc=%d):\n%s\n%s' % (
        result.returncode, result.stdout[-3000:], result.stderr[-3000:])
