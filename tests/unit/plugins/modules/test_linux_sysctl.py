"""linux_sysctl: parameter paths (dots in interface names), value normalisation, and the module on a fake /proc/sys
(check mode changes nothing; a second run changes nothing)."""

import os

from tests.roles.fakehw.runner import run_module

from ansible_collections.aifabric.fabric.plugins.modules import linux_sysctl


def test_proc_path_swaps_dots_and_slashes():
    assert linux_sysctl.proc_path('net.ipv4.ip_forward') == '/proc/sys/net/ipv4/ip_forward'
    assert linux_sysctl.proc_path('net.ipv4.conf.eth1/100.rp_filter') == '/proc/sys/net/ipv4/conf/eth1.100/rp_filter'


def test_values_compare_as_words():
    assert linux_sysctl.normalize('4096\t87380   6291456\n') == '4096 87380 6291456'
    assert linux_sysctl.normalize(True) == '1'
    assert linux_sysctl.normalize(2) == '2'


def test_file_lists_the_parameters_sorted():
    text = linux_sysctl.file_text({'net.ipv4.conf.all.rp_filter': '2', 'net.ipv4.conf.all.arp_ignore': '1'})
    assert text.splitlines()[1:] == ['net.ipv4.conf.all.arp_ignore = 1', 'net.ipv4.conf.all.rp_filter = 2']


def test_parameter_names_are_checked():
    assert linux_sysctl.NAME.fullmatch('net.ipv4.conf.eth1/100.rp_filter')
    assert not linux_sysctl.NAME.fullmatch('net/ipv4/ip_forward')
    assert not linux_sysctl.NAME.fullmatch('ip_forward')
    assert not linux_sysctl.NAME.fullmatch('net.ipv4.ip_forward\n')


# ------------------------------------------------------------------ the module on a test root (a fake /proc/sys)
WANTED = {'net.ipv4.conf.all.rp_filter': 2, 'net.ipv4.conf.eth1/100.arp_ignore': 1, 'net.ipv4.tcp_rmem': '4096 87380 6291456'}


def _root(tmp_path):
    root = tmp_path / 'host'
    values = {'net/ipv4/conf/all/rp_filter': '1\n', 'net/ipv4/conf/eth1.100/arp_ignore': '0\n',
              'net/ipv4/tcp_rmem': '4096\t87380\t6291456\n'}
    for relative, value in values.items():
        path = root / 'proc' / 'sys' / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value)
    return root


def _files(root):
    found = {}
    for directory, _unused, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding='utf-8') as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found


def _run(root, check_mode=False, **options):
    values = dict(sysctl=WANTED, root=str(root), path='/etc/sysctl.d/90-ut.conf')
    values.update(options)
    return run_module(linux_sysctl.main, values, check_mode=check_mode, diff=True)


def test_check_mode_changes_nothing(tmp_path):
    root = _root(tmp_path)
    before = _files(root)
    result = _run(root, check_mode=True)
    assert result['changed'] is True and result['persisted'] is True
    assert result['changed_keys'] == ['net.ipv4.conf.all.rp_filter', 'net.ipv4.conf.eth1/100.arp_ignore']
    assert 'net.ipv4.conf.all.rp_filter = 2' in result['diff'][0]['after']
    assert _files(root) == before  # no value written, no sysctl.d file


def test_apply_then_nothing_to_do(tmp_path):
    root = _root(tmp_path)
    result = _run(root)
    assert result['changed'] is True
    assert (root / 'proc/sys/net/ipv4/conf/all/rp_filter').read_text() == '2'
    assert (root / 'proc/sys/net/ipv4/conf/eth1.100/arp_ignore').read_text() == '1'
    assert (root / 'proc/sys/net/ipv4/tcp_rmem').read_text() == '4096\t87380\t6291456\n'  # equal as words: untouched
    persisted = (root / 'etc/sysctl.d/90-ut.conf').read_text()
    assert persisted.splitlines()[1:] == ['net.ipv4.conf.all.rp_filter = 2', 'net.ipv4.conf.eth1/100.arp_ignore = 1',
                                          'net.ipv4.tcp_rmem = 4096 87380 6291456']
    again = _run(root)
    assert (again['changed'], again['changed_keys'], again['persisted']) == (False, [], False)
    assert _run(root, check_mode=True)['changed'] is False


def test_bad_names_and_missing_parameters_fail_before_writing(tmp_path):
    root = _root(tmp_path)
    before = _files(root)
    result = _run(root, sysctl={'net.ipv4.ip_forward\nkernel.x': 1, 'net.ipv4.conf.all.rp_filter': 2,
                                'net.ipv4.no_such_thing': 1})
    assert result['failed'] is True
    assert 'not a kernel parameter name' in result['msg'] and 'no such kernel parameter here' in result['msg']
    assert _files(root) == before
