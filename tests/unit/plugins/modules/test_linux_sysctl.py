"""linux_sysctl helpers: parameter paths (dots in interface names) and value normalisation."""

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
    assert linux_sysctl.NAME.match('net.ipv4.conf.eth1/100.rp_filter')
    assert not linux_sysctl.NAME.match('net/ipv4/ip_forward')
    assert not linux_sysctl.NAME.match('ip_forward')
