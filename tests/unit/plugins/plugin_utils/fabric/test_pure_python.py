"""The design engine is pure Python: it imports, designs and renders with Ansible made unimportable."""

import os
import subprocess
import sys

from tests.unit.utils.paths import ROOT


SCRIPT = r'''
import sys, importlib.abc
class NoAnsible(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == 'ansible' or name.startswith('ansible.'):
            raise ImportError('ansible must not be imported by the design engine: ' + name)
sys.meta_path.insert(0, NoAnsible())
sys.path.insert(0, sys.argv[1])
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
design = design_from_file(sys.argv[2])
files = render_device(design, 'leaf001')
assert 'frr.conf' in files and not [m for m in sys.modules if m == 'ansible' or m.startswith('ansible.')]
print('ok', len(design.device_names()))
'''


def test_design_engine_imports_and_renders_without_ansible(tmp_path):
    tree = tmp_path / 'ansible_collections' / 'aifabric'
    tree.mkdir(parents=True)
    os.symlink(ROOT, str(tree / 'fabric'))
    result = subprocess.run([sys.executable, '-c', SCRIPT, str(tmp_path), os.path.join(ROOT, 'fabrics', 'lab.yml')],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == 'ok 10'
