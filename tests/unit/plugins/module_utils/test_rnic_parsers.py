# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RNIC parsers on fixtures of every tool output format the parsers read, plus malformed and empty output."""

import glob
import os

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError, version_tuple
from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_parsers as p

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        'fixtures', 'host')
DEFAULT_MAP = {dscp: dscp >> 3 for dscp in range(64)}


def fx(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


# ------------------------------------------------------------------------------------------- mlnx_qos

def test_mlnx_qos_fresh_nic_trust_pcp():
    state = p.parse_mlnx_qos(fx('mlnx_qos/ofed5_default_pcp.txt'))
    assert state['dcbx'] == 'os'
    assert state['trust'] == 'pcp'
    assert state['dscp2prio'] == {}
    assert state['pfc'] == [0] * 8
    assert state['pfc_buffer'] == [0] * 8
    assert state['receive_buffer'] == {'sizes': [262016, 0, 0, 0, 0, 0, 0, 0], 'max': 262016}
    assert state['cable_len'] == 7
    # mlx5 default: priority 0 on TC 1 and priority 1 on TC 0.
    assert state['prio_tc'] == {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert [tc['tsa'] for tc in state['tcs']] == ['vendor'] * 8
    assert state['lldpad_warning'] is False


def test_mlnx_qos_lossless_trust_dscp_default_map():
    state = p.parse_mlnx_qos(fx('mlnx_qos/doca_dscp_pfc3.txt'))
    assert state['trust'] == 'dscp'
    assert state['dscp2prio'] == DEFAULT_MAP
    assert state['pfc'] == [0, 0, 0, 1, 0, 0, 0, 0]
    assert state['pfc_buffer'] == [0, 0, 0, 1, 0, 0, 0, 0]
    assert state['receive_buffer']['sizes'][:2] == [20016, 156096]


def test_mlnx_qos_cable_length_after_cable_len():
    """`mlnx_qos --cable_len 30` prints the state after it: `Cable len: %d` of the IEEE PFC delay (mlnx-tools
    python/mlnx_qos pretty_print), which mlx5 sizes its lossless buffer's xoff from."""
    assert p.parse_mlnx_qos(fx('mlnx_qos/doca_cable_len_30.txt'))['cable_len'] == 30


def test_mlnx_qos_firmware_owned_buffer_reports_no_cable_length():
    """Without a driver-managed port buffer mlx5 leaves the delay 0 (mlx5e_dcbnl_ieee_getpfc fills it only when
    MLX5_BUFFER_SUPPORTED) and the buffer query fails, so mlnx_qos prints no buffer line or row."""
    state = p.parse_mlnx_qos(fx('mlnx_qos/firmware_buffer_no_cable_len.txt'))
    assert state['cable_len'] == 0 and state['receive_buffer'] is None and state['pfc_buffer'] is None
    assert state['pfc'] == [0, 0, 0, 1, 0, 0, 0, 0]


def test_mlnx_qos_cable_length_that_is_not_a_number_is_refused():
    text = fx('mlnx_qos/doca_dscp_pfc3.txt').replace('Cable len: 7', 'Cable len: seven')
    with pytest.raises(ParseError) as caught:
        p.parse_mlnx_qos(text)
    assert 'cable length' in str(caught.value)


def test_mlnx_qos_wrapped_dscp_lines_keep_every_entry():
    """More than 8 DSCPs on one priority wrap onto a second 'prio:7 dscp:' line."""
    state = p.parse_mlnx_qos(fx('mlnx_qos/dscp_override_wrapped.txt'))
    assert len(state['dscp2prio']) == 64
    assert state['dscp2prio'][48] == 7
    assert sorted(dscp for dscp, prio in state['dscp2prio'].items() if prio == 7) == [48] + list(range(56, 64))


def test_mlnx_qos_lldpad_firmware_dcbx_ets_ratelimit_no_buffer():
    state = p.parse_mlnx_qos(fx('mlnx_qos/lldpad_fw_ets_nobuffer.txt'))
    assert state['lldpad_warning'] is True
    assert state['dcbx'] == 'fw'
    assert state['notices'] == ['Buffers commands are not supported on your system']
    assert state['receive_buffer'] is None and state['pfc_buffer'] is None
    assert state['pfc'] == [0, 0, 0, 1, 0, 0, 0, 0]
    tcs = {tc['tc']: tc for tc in state['tcs']}
    assert tcs[0] == {'tc': 0, 'ratelimit_gbps': 25.0, 'tsa': 'ets', 'bw_percent': 50, 'priorities': [0, 1, 2, 4, 5, 7]}
    assert tcs[3]['bw_percent'] == 50 and tcs[6]['tsa'] == 'strict'


def test_mlnx_qos_trust_not_supported():
    state = p.parse_mlnx_qos(fx('mlnx_qos/trust_unsupported.txt'))
    assert state['trust'] == 'none'
    assert 'Priority trust state is not supported on your system' in state['notices']


@pytest.mark.parametrize('name, message', [
    ('mlnx_qos/truncated.txt', "no 'PFC configuration' enabled row"),
    ('mlnx_qos/traceback.txt', 'unexpected line'),
])
def test_mlnx_qos_malformed(name, message):
    with pytest.raises(ParseError, match=message) as info:
        p.parse_mlnx_qos(fx(name))
    assert str(info.value).startswith('mlnx_qos: ')


@pytest.mark.parametrize('text', ['', '   \n', None])
def test_mlnx_qos_empty(text):
    with pytest.raises(ParseError, match='mlnx_qos: (empty output|no output)'):
        p.parse_mlnx_qos(text)


def test_mlnx_qos_bad_pfc_cells():
    text = fx('mlnx_qos/ofed5_default_pcp.txt').replace('\tenabled     0   0   0   0   0   0   0   0',
                                                        '\tenabled     0   0   0   2   0   0   0   0')
    with pytest.raises(ParseError, match='PFC enabled cells must be 0 or 1'):
        p.parse_mlnx_qos(text)


# ------------------------------------------------------------------------------------------- dcb

@pytest.mark.parametrize('name, mask, delay', [
    ('dcb/pfc_show_default.txt', [0] * 8, 0),
    ('dcb/pfc_show_prio3.txt', [0, 0, 0, 1, 0, 0, 0, 0], 7),
    ('dcb/pfc_show_prio3.json', [0, 0, 0, 1, 0, 0, 0, 0], 7),
    ('dcb/pfc_show_prio34_pretty.json', [0, 0, 0, 1, 1, 0, 0, 0], 0),
])
def test_dcb_pfc_text_and_json(name, mask, delay):
    state = p.parse_dcb_pfc(fx(name))
    assert state['pfc'] == mask
    assert state['delay'] == delay
    assert state['pfc_cap'] == 8
    assert state['macsec_bypass'] is False


def test_dcb_pfc_statistics():
    state = p.parse_dcb_pfc(fx('dcb/pfc_show_prio3_stats.txt'))
    assert state['requests'] == [0, 0, 0, 18422, 0, 0, 0, 0]
    assert state['indications'] == [0, 0, 0, 9071, 0, 0, 0, 0]


def test_dcb_pfc_driver_without_dcb():
    with pytest.raises(ParseError, match='does not implement DCB'):
        p.parse_dcb_pfc(fx('dcb/pfc_show_veth.stderr'))


@pytest.mark.parametrize('text, message', [
    ('', 'empty output'),
    ('prio-pfc 0:off 1:off\n', 'must list priorities 0..7'),
    ('pfc-cap 8 macsec-bypass off delay 0\n', "no 'prio-pfc' line"),
    ('prio-pfc 0:off 1:off 2:off 3:maybe 4:off 5:off 6:off 7:off\n', "expected 'on' or 'off'"),
    ('{"pfc_cap": 8}', "no 'prio_pfc' array"),
    ('{"prio_pfc": [true]}', 'must list 8 booleans'),
    ('{"prio_pfc": [tru', 'invalid JSON'),
])
def test_dcb_pfc_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        p.parse_dcb_pfc(text)


@pytest.mark.parametrize('name', ['dcb/app_show_numeric.txt', 'dcb/app_show_symbolic.txt',
                                  'dcb/app_show_iproute2_6.1.json', 'dcb/app_show_iproute2_6.5.json'])
def test_dcb_app_every_format_gives_the_default_map(name):
    state = p.parse_dcb_app(fx(name))
    assert state['dscp_prio'] == DEFAULT_MAP
    assert p.dcb_trust(state) == 'dscp'


def test_dcb_app_override_and_pcp_only_and_empty():
    assert p.parse_dcb_app(fx('dcb/app_show_override.txt'))['dscp_prio'][48] == 7
    pcp = p.parse_dcb_app(fx('dcb/app_show_pcp_only.txt'))
    assert pcp['dscp_prio'] == {} and p.dcb_trust(pcp) == 'pcp'
    assert len(pcp['pcp_prio']) == 8
    for text in ('', None, fx('dcb/app_show_empty.json')):
        assert p.dcb_trust(p.parse_dcb_app(text)) == 'pcp'


@pytest.mark.parametrize('text, message', [
    ('dscp-prio 26\n', 'expected DSCP:PRIO pairs'),
    ('dscp-prio 64:3\n', 'DSCP 64 out of range'),
    ('dscp-prio AF99:3\n', 'DSCP is not a number'),
    ('dscp-prio 26:9\n', 'priority 9 out of range'),
    ('bogus 1 2\n', 'unexpected line'),
    ('{"dscp_prio": [[26]]}', 'entries must be'),
])
def test_dcb_app_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        p.parse_dcb_app(text)


# ------------------------------------------------------------------------------------------- ibv_devinfo

def test_ibv_devinfo_two_roce_devices():
    devices = p.parse_ibv_devinfo(fx('ibv_devinfo/cx7_roce_two_devices.txt'))
    assert [device['hca_id'] for device in devices] == ['mlx5_0', 'mlx5_1']
    port = devices[0]['ports'][0]
    assert devices[0]['vendor_part_id'] == 4129 and devices[0]['fw_ver'] == '28.39.1002'
    assert port['state'] == 'PORT_ACTIVE' and port['state_num'] == 4
    assert port['active_mtu'] == 4096 and port['active_mtu_code'] == 5
    assert port['link_layer'] == 'Ethernet'


def test_ibv_devinfo_infiniband_and_down_and_rxe():
    ib = p.parse_ibv_devinfo(fx('ibv_devinfo/cx6_infiniband.txt'))[0]['ports'][0]
    assert ib['link_layer'] == 'InfiniBand' and ib['sm_lid'] == 1 and ib['port_lid'] == 12
    down = p.parse_ibv_devinfo(fx('ibv_devinfo/port_down_mtu1024.txt'))[0]['ports'][0]
    assert down['state'] == 'PORT_DOWN' and down['active_mtu'] == 1024
    rxe = p.parse_ibv_devinfo(fx('ibv_devinfo/rxe.txt'))[0]
    assert rxe['hca_id'] == 'rxe0' and rxe['vendor_id'] == '0xffffff' and 'board_id' not in rxe


def test_ibv_devinfo_verbose_with_gids():
    device = p.parse_ibv_devinfo(fx('ibv_devinfo/cx6dx_verbose.txt'))[0]
    port = device['ports'][0]
    assert port['active_width'] == '4X (2)' and port['active_speed'] == '25.0 Gbps (32)'
    assert port['phys_state'] == 'LINK_UP' and port['gid_tbl_len'] == 255
    assert port['gids'][3] == {'index': 3, 'gid': '::ffff:10.100.0.10', 'type': 'RoCE v2'}
    assert p.ipv4_from_gid(port['gids'][3]['gid']) == '10.100.0.10'
    assert p.ipv4_from_gid(port['gids'][2]['gid']) == '10.100.0.10'
    assert device['hca_core_clock'] == '156250kHZ'  # device-level -v lines parse as keys


def test_ibv_devinfo_list_and_no_devices():
    assert p.parse_ibv_devinfo_list(fx('ibv_devinfo/list_two.txt')) == ['mlx5_0', 'mlx5_1']
    assert p.parse_ibv_devinfo_list(fx('ibv_devinfo/list_one.txt')) == ['mlx5_0']
    assert p.parse_ibv_devinfo_list(fx('ibv_devinfo/no_devices.txt')) == []
    assert p.parse_ibv_devinfo(fx('ibv_devinfo/no_devices.txt')) == []


@pytest.mark.parametrize('text, message', [
    (fx('ibv_devinfo/wrong_device.txt'), 'RDMA device mlx5_9 does not exist'),
    ('\ttransport:\t\t\tInfiniBand (0)\n', "does not start with 'hca_id:'"),
    ('hca_id:\tmlx5_0\n\t\tport:\tone\n', 'port number is not a number'),
    ('', 'empty output'),
])
def test_ibv_devinfo_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        p.parse_ibv_devinfo(text)


def test_ibv_devinfo_list_count_mismatch():
    with pytest.raises(ParseError, match='header says 3 devices'):
        p.parse_ibv_devinfo_list('3 HCAs found:\n\tmlx5_0\n')


# ------------------------------------------------------------------------------------------- rdma link

def test_rdma_link_formats():
    text = p.parse_rdma_link(fx('rdma/link_roce.txt'))
    assert text == [dict(entry, netdev_index=None) for entry in p.parse_rdma_link(fx('rdma/link_roce.json'))]
    assert text[0]['netdev'] == 'ens1f0np0' and text[0]['state'] == 'ACTIVE'
    details = p.parse_rdma_link(fx('rdma/link_details.txt'))
    assert details[1] == {'ifname': 'mlx5_1', 'port': 1, 'state': 'DOWN', 'physical_state': 'DISABLED',
                          'netdev': 'ens2f0np0', 'netdev_index': 5, 'subnet_prefix': None, 'lid': None,
                          'sm_lid': None, 'lmc': None}
    ib = p.parse_rdma_link(fx('rdma/link_ib.txt'))[0]
    assert ib['netdev'] is None and ib['lid'] == 12 and ib['subnet_prefix'] == 'fe80:0000:0000:0000'
    assert p.parse_rdma_link(fx('rdma/link_rxe.txt'))[0]['ifname'] == 'rxe0'
    assert p.parse_rdma_link(fx('rdma/link_empty.txt')) == []


@pytest.mark.parametrize('text, message', [
    ('dev mlx5_0 node_type ca\n', "expected 'link DEV/PORT"),
    ('link mlx5_0/1 state\n', 'key/value pairs are incomplete'),
    ('link mlx5_0/x state ACTIVE\n', 'port is not a number'),
    ('[{"port": 1}]', 'need ifname and port'),
    ('{"ifname": "mlx5_0"}', 'must be an array'),
])
def test_rdma_link_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        p.parse_rdma_link(text)


# ------------------------------------------------------------------------------------------- GIDs

def test_show_gids():
    rows = p.parse_show_gids(fx('show_gids/cx6dx.txt'))
    assert len(rows) == 8
    assert rows[3] == {'dev': 'mlx5_0', 'port': 1, 'index': 3, 'gid': '0000:0000:0000:0000:0000:ffff:0a64:000a',
                       'ipv4': '10.100.0.10', 'version': 'v2', 'ndev': 'ens1f0np0'}
    assert rows[1]['ipv4'] is None


def test_show_gids_truncated():
    text = fx('show_gids/cx6dx.txt')
    with pytest.raises(ParseError, match='n_gids_found'):
        p.parse_show_gids(text.rsplit('n_gids_found', 1)[0])
    with pytest.raises(ParseError, match='trailer says 9 GIDs but 8'):
        p.parse_show_gids(text.replace('n_gids_found=8', 'n_gids_found=9'))


def test_gid_entry_and_roce_v2_selection():
    rows = [p.gid_entry(0, 'fe80:0000:0000:0000:0ac0:ebff:fe40:8df2', 'IB/RoCE v1', 'eth1'),
            p.gid_entry(1, 'fe80:0000:0000:0000:0ac0:ebff:fe40:8df2', 'RoCE v2', 'eth1'),
            p.gid_entry(2, '0000:0000:0000:0000:0000:ffff:0a64:000a', 'IB/RoCE v1', 'eth1'),
            p.gid_entry(3, '0000:0000:0000:0000:0000:ffff:0a64:000a', 'RoCE v2', 'eth1'),
            p.gid_entry(4, '0000:0000:0000:0000:0000:0000:0000:0000', None, None),
            p.gid_entry(5, 'fe80:0000:0000:0000:0000:0000:0000:0000', 'RoCE v2', 'eth1')]
    assert rows[4] is None and rows[5] is None  # empty slot and bare link-local prefix are skipped
    assert rows[0]['family'] == 'ipv6-link-local' and rows[0]['version'] == 'v1'
    assert [row['index'] for row in p.roce_v2_ipv4_gids(rows)] == [3]
    assert p.roce_v2_ipv4_gids(rows, '10.100.0.11') == []


def test_ibdev2netdev():
    assert p.parse_ibdev2netdev(fx('ibdev2netdev/two.txt')) == [
        {'ifname': 'mlx5_0', 'port': 1, 'netdev': 'ens1f0np0', 'state': 'Up'},
        {'ifname': 'mlx5_1', 'port': 1, 'netdev': 'ens2f0np0', 'state': 'Down'}]
    with pytest.raises(ParseError, match='==>'):
        p.parse_ibdev2netdev('mlx5_0 -> ens1f0np0\n')


# ------------------------------------------------------------------------------------------- ethtool

def test_ethtool_stats_mlx5_lossless_counters():
    stats = p.parse_ethtool_stats(fx('ethtool/stats_mlx5_cx7_pfc3.txt'))
    assert stats['rx_prio3_pause'] == 18422 and stats['rx_vport_rdma_unicast_packets'] == 918272334
    grouped = p.lossless_counters(stats)
    assert grouped['pfc_counter_priorities'] == [3]  # mlx5 lists prioN_pause only for PFC-enabled priorities
    assert grouped['per_priority'][3]['tx_pause'] == 9071
    assert grouped['port']['rx_discards_phy'] == 0 and grouped['port']['tx_pause_ctrl_phy'] == 9071


def test_ethtool_stats_global_pause_veth_and_none():
    grouped = p.lossless_counters(p.parse_ethtool_stats(fx('ethtool/stats_mlx5_global_pause.txt')))
    assert grouped['pfc_counter_priorities'] == [] and 'rx_global_pause' in grouped['port']
    assert p.parse_ethtool_stats(fx('ethtool/stats_veth.txt'))['peer_ifindex'] == 7
    assert p.parse_ethtool_stats(fx('ethtool/stats_none.txt')) == {}


@pytest.mark.parametrize('text, message', [
    ('', 'empty output'),
    ('Cannot get stats strings information: Operation not supported\n', "expected a 'NIC statistics:' header"),
    ('NIC statistics:\n     rx_packets: many\n', 'counter rx_packets is not a number'),
    ('NIC statistics:\n     rx_packets 12\n', 'expected NAME: VALUE'),
])
def test_ethtool_stats_malformed(text, message):
    with pytest.raises(ParseError, match=message):
        p.parse_ethtool_stats(text)


def test_ethtool_pause():
    assert p.parse_ethtool_pause(fx('ethtool/pause_off.txt')) == {
        'autoneg': False, 'rx': False, 'tx': False, 'rx_negotiated': None, 'tx_negotiated': None}
    on = p.parse_ethtool_pause(fx('ethtool/pause_on_autoneg.txt'))
    assert on['rx'] and on['tx'] and on['rx_negotiated']
    with pytest.raises(ParseError, match='Pause parameters'):
        p.parse_ethtool_pause('netlink error: Operation not supported\n')
    with pytest.raises(ParseError, match='RX/TX lines missing'):
        p.parse_ethtool_pause('Pause parameters for eth1:\nAutonegotiate:\toff\n')


# ------------------------------------------------------------------------------------------- sysfs values

def test_traffic_class_file():
    assert p.parse_traffic_class(fx('traffic_class/global_106.txt')) == {'global': 106, 'rules': []}
    assert p.parse_traffic_class(fx('traffic_class/global_with_rules.txt'))['rules'] == [
        'dst_ip=10.100.0.0/16,tclass=106', 'dst_ip=192.168.0.0/16,tclass=0']
    assert p.parse_traffic_class(fx('traffic_class/unset.txt')) == {'global': None, 'rules': []}
    assert p.parse_traffic_class('Global tclass=-1\n')['global'] is None
    with pytest.raises(ParseError, match='Global tclass'):
        p.parse_traffic_class('tclass is 106\n')


def test_sysfs_values_and_roce_mode():
    assert p.parse_sysfs_int('x', '1\n') == 1 and p.parse_sysfs_int('x', '0x1') == 1
    assert p.parse_sysfs_int('x', '') is None
    with pytest.raises(ParseError, match='value is not a number'):
        p.parse_sysfs_int('cnp_dscp', 'forty\n')
    assert p.parse_roce_mode('RoCE v2\n') == 2 and p.parse_roce_mode('IB/RoCE v1\n') == 1
    with pytest.raises(ParseError, match='RoCE v2'):
        p.parse_roce_mode('v3\n')


@pytest.mark.parametrize('mtu, active', [(1500, 1024), (4191, 2048), (4192, 4096), (9000, 4096), (1280, 1024),
                                         (1100, 512)])
def test_roce_active_mtu_follows_netdev_mtu(mtu, active):
    assert p.roce_active_mtu(mtu) == active


def test_version_tuple():
    assert version_tuple('550.54.15') == (550, 54, 15)
    assert version_tuple('6.8.0-45-generic') == (6, 8, 0, 45)
    assert version_tuple('5.12.0rc1') == (5, 12, 0)
    assert version_tuple('unknown') is None


# ------------------------------------------------------------------------------------------- robustness

PARSERS = [p.parse_mlnx_qos, p.parse_dcb_pfc, p.parse_dcb_app, p.parse_ibv_devinfo, p.parse_ibv_devinfo_list,
           p.parse_rdma_link, p.parse_ibdev2netdev, p.parse_show_gids, p.parse_ethtool_stats, p.parse_ethtool_pause,
           p.parse_traffic_class, p.parse_roce_mode]


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list('abcXYZ019:=,.-_[]{}"\t \n/')), max_size=200))
def test_any_text_gives_data_or_parse_error(text):
    for parser in PARSERS:
        try:
            parser(text)
        except ParseError:
            pass


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(min_value=0, max_value=4000))
def test_truncated_fixtures_never_traceback(cut):
    for name, parser in (('mlnx_qos/doca_dscp_pfc3.txt', p.parse_mlnx_qos),
                         ('ibv_devinfo/cx6dx_verbose.txt', p.parse_ibv_devinfo),
                         ('ethtool/stats_mlx5_cx7_pfc3.txt', p.parse_ethtool_stats),
                         ('show_gids/cx6dx.txt', p.parse_show_gids), ('dcb/pfc_show_prio3.json', p.parse_dcb_pfc)):
        text = fx(name)[:cut]
        try:
            parser(text)
        except ParseError as exc:
            assert str(exc)


def test_every_fixture_is_used():
    """Each captured format is exercised by some test (path or name appears in the tests or the fake host)."""
    tests = os.path.dirname(FIXTURES.rstrip('/').rsplit(os.sep + 'fixtures', 1)[0])
    sources = glob.glob(os.path.join(tests, 'unit', 'plugins', 'module_utils', 'test_*.py'))
    sources += glob.glob(os.path.join(tests, 'unit', 'plugins', 'modules', 'test_*.py'))
    sources += glob.glob(os.path.join(tests, 'roles', '*.py')) + glob.glob(os.path.join(tests, 'roles', 'fakehw', '*.py'))
    text = ''
    for path in sources:
        with open(path, encoding='utf-8') as handle:
            text += handle.read()
    fixtures = sorted(os.path.relpath(path, FIXTURES) for path in glob.glob(os.path.join(FIXTURES, '*', '*'))
                      if not path.endswith('.md'))
    unused = [name for name in fixtures
              if name not in text and "'%s'" % os.path.splitext(os.path.basename(name))[0] not in text]
    assert unused == [], 'fixtures no test reads: %s' % unused
