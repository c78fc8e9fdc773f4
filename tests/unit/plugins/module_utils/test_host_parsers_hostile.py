# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whatever a GPU server's tools print, their parsers give data or their own error (issue 37 item 2, the GPU servers).

The modules on the servers (rnic_facts, rnic_qos, gpu_facts, gpudirect) and the performance gate parse the text of
nvidia-smi, mlnx_qos, dcb, ethtool, ibv_devinfo, rdma, show_gids, lsmod, lspci, nccl-tests and perftest. Property
tests feed every parser each of its recorded real outputs (tests/unit/fixtures/host, fixtures/perf) mutated: a token
replaced by a hostile one (a lone surrogate, escape sequences, markup, a huge or negative number, a word where a
number belongs), text inserted or cut, a line dropped or repeated. The result is data or ParseError (PerfError for
the performance tools), never another exception: a module reports ParseError with the tool and the line, anything
else is a traceback.
"""

import glob
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.module_utils import gpu_parsers as g
from ansible_collections.aifabric.fabric.plugins.module_utils import rnic_parsers as p
from ansible_collections.aifabric.fabric.plugins.module_utils.host_parse import ParseError
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import perf

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'fixtures')

# fixture files (glob under fixtures/) -> the parsers that read that tool's output
PARSED_BY = [
    ('host/dcb/app_show_*', [p.parse_dcb_app]),
    ('host/dcb/pfc_show_*', [p.parse_dcb_pfc]),
    ('host/ethtool/pause_*', [p.parse_ethtool_pause]),
    ('host/ethtool/stats_*', [p.parse_ethtool_stats]),
    ('host/ibdev2netdev/*', [p.parse_ibdev2netdev]),
    ('host/ibv_devinfo/list_*', [p.parse_ibv_devinfo_list]),
    ('host/ibv_devinfo/[!l]*', [p.parse_ibv_devinfo]),
    ('host/mlnx_qos/*', [p.parse_mlnx_qos]),
    ('host/rdma/*', [p.parse_rdma_link]),
    ('host/show_gids/*', [p.parse_show_gids]),
    ('host/traffic_class/*', [p.parse_traffic_class]),
    ('host/kallsyms/*', [g.parse_kallsyms]),
    ('host/lsmod/*', [g.parse_lsmod]),
    ('host/proc_modules/*', [g.parse_proc_modules]),
    ('host/lspci/*', [g.parse_lspci_acs]),
    ('host/nvidia_smi/topo_*', [g.parse_nvidia_smi_topo]),
    ('host/nvidia_smi/query_*', [g.parse_nvidia_smi_query]),
    ('host/nvidia_smi/[!tq]*', [g.classify_nvidia_smi_failure]),
    ('host/nvidia_version/[!l]*', [g.parse_driver_version_file]),
    ('host/nvidia_version/license_*', [g.module_flavor_from_license]),
    ('host/modprobe/*', [lambda text: g.classify_peermem_load_failure(text, text)]),
    ('host/dmesg/*', [lambda text: g.classify_peermem_load_failure('modprobe: ERROR', text)]),
    ('perf/all_reduce_*', [perf.parse_all_reduce]),
    ('perf/ib_write_bw_*', [perf.parse_ib_write_bw]),
]
# Short files the modules read, a value of each as the kernel or a package writes it (sysfs, modules-load.d).
SYSFS = [(p.parse_roce_mode, 'RoCE v2\n'), (lambda text: p.parse_sysfs_int('cnp_dscp', text), '48\n'),
         (g.parse_modules_load, '# loaded at boot by systemd-modules-load\nnvidia-peermem\n')]
REFUSED = (ParseError, perf.PerfError)


def _cases():
    cases = []
    for pattern, parsers in PARSED_BY:
        paths = sorted(glob.glob(os.path.join(FIXTURES, pattern)))
        assert paths, 'no recorded output matches %s' % pattern
        for path in paths:
            with open(path, encoding='utf-8') as handle:
                text = handle.read()
            cases.extend((os.path.relpath(path, FIXTURES), parser, text) for parser in parsers)
    cases.extend(('sysfs', parser, text) for parser, text in SYSFS)
    return cases


CASES = _cases()
HOSTILE = st.one_of(st.sampled_from([
    '\udcff', 'mlx5_\udcff0', '\x1b]0;owned\x07\x1b[2J', '\r\nforged line', '<b>3</b>', '', ' ', '\t', '-1', '-',
    '9' * 40, '1e309', 'nan', 'inf', 'N/A', '0x', ':', '::', '=', ',', '|', '[', ']', '{', '}', '"', "'", 'on', 'off',
    'X', 'GPU0', 'NIC0', 'mlx5_0', 'PXB', '\u0430', '\x00', '\\']), st.text(max_size=8))
TOKEN = re.compile(r'\S+')


@st.composite
def mutated(draw, text):
    action = draw(st.sampled_from(['replace token', 'insert', 'cut', 'drop line', 'repeat line', 'swap lines']))
    if action == 'replace token':
        tokens = list(TOKEN.finditer(text))
        if tokens:
            token = tokens[draw(st.integers(0, len(tokens) - 1))]
            return text[:token.start()] + draw(HOSTILE) + text[token.end():]
    lines = text.splitlines(True)
    if action in ('drop line', 'repeat line', 'swap lines') and len(lines) > 1:
        index = draw(st.integers(0, len(lines) - 2))
        if action == 'drop line':
            return ''.join(lines[:index] + lines[index + 1:])
        if action == 'repeat line':
            return ''.join(lines[:index + 1] + lines[index:])
        return ''.join(lines[:index] + [lines[index + 1], lines[index]] + lines[index + 2:])
    at = draw(st.integers(0, len(text)))
    cut = draw(st.integers(0, 40)) if action == 'cut' else 0
    return text[:at] + ('' if action == 'cut' else draw(HOSTILE)) + text[at + cut:]


def _judge(parser, text):
    try:
        parser(text)
    except REFUSED as exc:
        assert str(exc)  # the tool and what was wrong


def test_every_parser_of_the_servers_has_recorded_outputs():
    """A parser the modules call that no case covers is named here (add its recorded outputs to PARSED_BY)."""
    covered = {parser for _pattern, parsers in PARSED_BY for parser in parsers} | {p.parse_roce_mode, g.parse_modules_load}
    public = [module.__dict__[name] for module in (p, g) for name in dir(module) if name.startswith('parse_')]
    public += [perf.parse_all_reduce, perf.parse_ib_write_bw]
    missing = [function.__name__ for function in public if function not in covered and function is not p.parse_sysfs_int]
    assert not missing, missing


@pytest.mark.parametrize('case', CASES, ids=[case[0] + ':' + getattr(case[1], '__name__', '') for case in CASES])
def test_each_recorded_output_is_read(case):
    """The unmutated outputs: data, or the parser's own error for an output that records a failure."""
    _name, parser, text = case
    _judge(parser, text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_output_gives_data_or_the_parser_s_error(data):
    _name, parser, text = data.draw(st.sampled_from(CASES), label='recorded output')
    _judge(parser, data.draw(mutated(text), label='mutated'))


@pytest.mark.parametrize('case', CASES, ids=[case[0] + ':' + getattr(case[1], '__name__', '') for case in CASES])
def test_a_lone_surrogate_after_every_token_is_read_or_refused(case):
    """What a tool prints through a writer that turned an undecodable byte into a surrogate escape, everywhere."""
    _name, parser, text = case
    _judge(parser, TOKEN.sub(lambda match: match.group(0) + '\udcff', text))


def _recorded(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8') as handle:
        return handle.read()


def _first_row(text, change):
    """`text` with its first result row (a line that starts with a number) changed by `change`."""
    lines = text.splitlines(True)
    index = next(number for number, line in enumerate(lines) if line.split() and line.split()[0].isdigit())
    lines[index] = change(lines[index])
    return ''.join(lines)


@pytest.mark.parametrize('name, change, message', [
    ('perf/all_reduce_2.19_2x8_healthy.txt', lambda row: row.split(None, 1)[1],
     r"result row '.*float.*' has no element count after its size"),
    ('perf/all_reduce_2.19_2x8_healthy.txt', lambda row: row.replace(row.split()[1], '2\u00b2', 1),
     r'has no element count after its size'),
    ('perf/ib_write_bw_400g_gbits.txt', lambda row: ' '.join(row.split()[:2] + ['N/A', 'N/A'] + row.split()[4:]) + '\n',
     r'result row .* has no bandwidth'),
], ids=['all_reduce row without its size', 'all_reduce count with a superscript', 'ib_write_bw bandwidth N/A'])
def test_the_rows_the_property_test_found_are_named(name, change, message):
    """Found by the property test above: a row read shifted (int('float')), a digit int() refuses ('²' passes
    str.isdigit), N/A where a bandwidth belongs (None times the MiB/s factor)."""
    with pytest.raises(perf.PerfError, match=message):
        (perf.parse_all_reduce if 'all_reduce' in name else perf.parse_ib_write_bw)(_first_row(_recorded(name), change))


def test_an_mtu_without_a_number_is_no_mtu():
    text = re.sub(r'Mtu\s*:\s*\S+', 'Mtu             : jumbo', _recorded('perf/ib_write_bw_400g_gbits.txt'))
    assert perf.parse_ib_write_bw(text)['mtu_bytes'] is None
