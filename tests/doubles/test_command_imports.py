"""The SSH doubles' read-only commands start lean.

Each command on a double's PATH is a Python process of its own (tests/doubles/ssh/cli.py), where the switch runs a
native binary or talks to a daemon; a validation reads many of them on the same cores as the controller. So the
commands a reading runs import only what they answer with: the modules of the commands that change a switch (the
generic config updater and its YANG rules, FRR's daemons through subprocess, the factory state, the user accounts,
the fault knobs' routes) stay out of their process. What each command answers is the doubles' other tests' concern;
here it must answer at all (rc 0, some output), so a broken command cannot pass for a lean one.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.doubles.ssh import state
from tests.unit.utils.paths import ROOT

# Imported only by the commands that change a device (or by a reading's one command that needs it: vtysh's routes).
CHANGE_ONLY = {'subprocess', 'tempfile', 'shutil', 'random', 'getpass', 'jsonpatch',
               'tests.doubles.ssh.frr_daemons', 'tests.doubles.ssh.jobs', 'tests.doubles.routes',
               'tests.unit.platforms.sonic.double.gcu', 'tests.unit.platforms.sonic.double.yang',
               'tests.unit.platforms.sonic.double.factory', 'tests.unit.platforms.sonic.double.accounts'}
# The SONiC database and configuration readers do not start the bgp container's modules either.
SONIC_NOT_FRR = {'tests.unit.platforms.sonic.double.bgp', 'tests.doubles.ssh.frr', 'ipaddress', 'copy'}
READS = [
    ('sonic', ['sonic-db-cli', 'COUNTERS_DB', 'HGET', 'COUNTERS_PORT_NAME_MAP', 'Ethernet0'], SONIC_NOT_FRR),
    ('sonic', ['sonic-db-dump', '-n', 'COUNTERS_DB', '-k', 'COUNTERS:*'], SONIC_NOT_FRR),
    ('sonic', ['sonic-db-dump', '-n', 'APPL_DB', '-k', 'PORT_TABLE:*'], SONIC_NOT_FRR),
    ('sonic', ['show', 'interfaces', 'status'], SONIC_NOT_FRR),
    ('sonic', ['sonic-cfggen', '-d', '--print-data'], SONIC_NOT_FRR),
    ('sonic', ['vtysh', '-c', 'show bgp summary json'], set()),
    ('nvue', ['nv', 'show', 'interface', '-o', 'json'], set()),
    ('nvue', ['nv', 'config', 'show', '-o', 'json'], set()),
    ('nvue', ['nv', 'show', 'vrf', 'default', 'router', 'bgp', 'neighbor', '-o', 'json'], set()),
]
# Runs one command as the wrapper on the double's PATH does (`python -S -m tests.doubles.ssh.cli`), then prints the
# modules it imported (besides the interpreter's own start-up) and its exit status.
RUNNER = '''
import io, json, runpy, sys
before = set(sys.modules)
sys.argv = ['cli'] + sys.argv[1:]
real, sys.stdout = sys.stdout, io.StringIO()
code = 0
try:
    runpy.run_module('tests.doubles.ssh.cli', run_name='__main__')
except SystemExit as end:
    code = end.code or 0
answer, sys.stdout = sys.stdout.getvalue(), real
print(json.dumps({'rc': code, 'answered': bool(answer.strip()), 'modules': sorted(set(sys.modules) - before)}))
'''


@pytest.fixture(scope='module')
def devices(tmp_path_factory):
    """A factory-fresh SONiC and NVUE switch's state directory (what a double's commands read)."""
    found = {}
    for kind in ('sonic', 'nvue'):
        directory = str(tmp_path_factory.mktemp(kind))
        state.init_device(directory, {'name': 'sw1', 'kind': kind})
        found[kind] = directory
    return found


@pytest.mark.parametrize('kind, argv, also_not', READS, ids=[' '.join(item[1][:3]) for item in READS])
def test_a_read_only_command_imports_none_of_the_modules_that_change_a_switch(devices, kind, argv, also_not):
    env = {'DOUBLE_STATE': devices[kind], 'PYTHONPATH': ROOT, 'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
    done = subprocess.run([sys.executable, '-S', '-c', RUNNER] + argv, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert (report['rc'], report['answered']) == (0, True), done.stderr
    heavy = sorted(set(report['modules']) & (CHANGE_ONLY | also_not))
    assert heavy == [], '%s imports %s' % (' '.join(argv), ', '.join(heavy))
