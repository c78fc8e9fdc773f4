"""frr_config: parsing of FRR's own `frr-reload.py --test` output, captured from a lab leaf, and check mode."""

import os
import shutil

import pytest

from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import frr_config
from tests.unit.utils.paths import ROOT

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures', 'frr_config')


def read(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


def test_drift_lines_are_split_into_deletions_and_additions():
    to_delete, to_add = frr_config.parse_reload_test(read('reload_test_drift.txt'))
    assert to_delete == [
        'router bgp 4200000000', ' address-family ipv4 unicast', '  no maximum-paths 8',
        'router bgp 4200000000', ' address-family l2vpn evpn', '  vni 10100', '   no route-target import 65000:10199',
    ]
    assert to_add == [
        'router bgp 4200000000', ' neighbor 10.0.0.2 description spine002:eth1',
        'router bgp 4200000000', ' address-family ipv4 unicast', '  maximum-paths 2',
    ]


def test_no_difference_means_no_lines():
    assert frr_config.parse_reload_test(read('reload_test_clean.txt')) == ([], [])


def test_version_banner_is_never_a_difference():
    output = 'Lines To Delete\n===============\nfrr version 8.4.4\n\nLines To Add\n============\nfrr version 8.4\n'
    assert frr_config.parse_reload_test(output) == ([], [])


# ------------------------------------------------------------------ check mode of the module: nothing changes
# The real vtysh validates the candidate (vtysh -C). FRR's daemons do not run on a CI machine, so "FRR running" is a
# double: a vtysh in front of the real one answers `show version` / `show running-config` as a lab leaf did, and the
# reload script prints the `frr-reload.py --test` output captured from that leaf and records any --reload call.
REAL_VTYSH = shutil.which('vtysh')


def _lab_config():
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_model
    design = design_from_file(os.path.join(ROOT, 'fabrics', 'lab.yml'))
    return render_model(design.device('leaf001'))['frr.conf']


@pytest.fixture
def frr_host(tmp_path, monkeypatch):
    assert REAL_VTYSH, 'vtysh (Debian package frr) is installed by make setup'
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    calls = tmp_path / 'reload-calls'
    running = tmp_path / 'running.conf'
    running.write_text('frr version 8.4.4\nfrr defaults datacenter\nhostname leaf001\n!\n')
    vtysh = bindir / 'vtysh'
    vtysh.write_text('#!/bin/sh\nif [ "$1" = "-c" ] && [ -n "$AIFABRIC_FRR_RUNNING" ]; then\n'
                     '  case "$2" in\n'
                     '    "show version") echo "FRRouting 8.4.4 (leaf001)."; exit 0 ;;\n'
                     '    "show running-config") echo "Building configuration..."; cat %s; exit 0 ;;\n'
                     '  esac\nfi\nexec %s "$@"\n' % (running, REAL_VTYSH))
    reload_script = bindir / 'frr-reload.py'
    reload_script.write_text('#!/bin/sh\ncase "$1" in\n  --test) cat %s ;;\n  --reload) echo "$@" >> %s ;;\nesac\n'
                             % (os.path.join(FIXTURES, 'reload_test_drift.txt'), calls))
    for script in (vtysh, reload_script):
        script.chmod(0o755)
    monkeypatch.setenv('PATH', '%s%s%s' % (bindir, os.pathsep, os.environ['PATH']))
    saved = tmp_path / 'etc' / 'frr' / 'frr.conf'
    saved.parent.mkdir(parents=True)
    saved.write_text('! the configuration saved before\n')
    return {'reload_script': str(reload_script), 'path': str(saved), 'calls': calls, 'monkeypatch': monkeypatch}


def _temp_files():
    import tempfile
    return sorted(name for name in os.listdir(tempfile.gettempdir()) if name.startswith('aifabric-frr-'))


def test_check_mode_with_frr_running_changes_nothing(frr_host):
    frr_host['monkeypatch'].setenv('AIFABRIC_FRR_RUNNING', '1')
    temps = _temp_files()
    result = run_module(frr_config.main, {'config': _lab_config(), 'path': frr_host['path'],
                                          'reload_script': frr_host['reload_script']}, check_mode=True, diff=True)
    assert result.get('failed') is not True, result
    assert result['changed'] is True and result['persisted'] is True
    assert result['lines_to_add'][:2] == ['router bgp 4200000000', ' neighbor 10.0.0.2 description spine002:eth1']
    assert result['diff'][0]['prepared'].startswith('-router bgp 4200000000\n')
    assert not frr_host['calls'].exists()  # never reloaded
    with open(frr_host['path'], encoding='utf-8') as handle:
        assert handle.read() == '! the configuration saved before\n'  # never saved
    assert _temp_files() == temps  # the candidate file is gone again


def test_check_mode_before_frr_runs_reports_everything_and_changes_nothing(frr_host):
    config = _lab_config()
    result = run_module(frr_config.main, {'config': config, 'path': frr_host['path'],
                                          'reload_script': frr_host['reload_script']}, check_mode=True)
    assert result['changed'] is True and result['lines_to_delete'] == []
    assert 'router bgp 4200000000' in result['lines_to_add']
    assert any('FRR is not running' in warning for warning in result['warnings'])
    assert not frr_host['calls'].exists()
    with open(frr_host['path'], encoding='utf-8') as handle:
        assert handle.read() == '! the configuration saved before\n'


def test_a_configuration_frr_rejects_fails_before_anything_changes(frr_host):
    frr_host['monkeypatch'].setenv('AIFABRIC_FRR_RUNNING', '1')
    bad = _lab_config().replace('router bgp 4200000000', 'router bgp 4200000000\n neighbor nonsense remote-as', 1)
    result = run_module(frr_config.main, {'config': bad, 'path': frr_host['path'],
                                          'reload_script': frr_host['reload_script']})
    assert result['failed'] is True and 'FRR rejects the configuration (vtysh -C)' in result['msg']
    assert not frr_host['calls'].exists()
    with open(frr_host['path'], encoding='utf-8') as handle:
        assert handle.read() == '! the configuration saved before\n'
