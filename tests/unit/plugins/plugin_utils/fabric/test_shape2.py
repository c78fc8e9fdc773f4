"""The second golden fabric shape (fixtures/intents/shape2.yml): mixed vendors, unnumbered underlay, two VRFs and
a non-default lossless profile (RoCE DSCP 24 on priority 2, CNP DSCP 40 on priority 5, default class 1).

Every file of every device is golden, the non-default values reach every platform and every host file, and no
default value is left behind in a QoS context (DSCP 26/48, priority/TC 3/6, ToS 106)."""

import json
import os
import re

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_fabric, render_model
from tests.unit.utils.frr import assert_frr_accepts
from tests.unit.utils.golden import assert_golden

UNIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DESIGN = design_from_file(os.path.join(UNIT, 'fixtures', 'intents', 'shape2.yml'))
DEVICES = DESIGN.device_names()
FILES = {name: render_model(DESIGN.device(name)) for name in DEVICES}

ROCE_DSCP, CNP_DSCP, LOSSLESS, CNP, DEFAULT_TC = 24, 40, 2, 5, 1


def test_the_shape_is_mixed_vendor_and_sized_from_the_models():
    platforms = {name: DESIGN.nodes[name].platform for name in DEVICES if DESIGN.nodes[name].role != 'host'}
    assert set(platforms.values()) == {'sonic', 'nvue', 'eos'}
    summary = DESIGN.summary()
    assert summary['tiers'] == 2 and summary['hosts'] == 8 and summary['rails'] == 4
    assert summary['oversubscription'] <= 1.0


@pytest.mark.parametrize('device', DEVICES)
def test_golden(device):
    """A switch's files are its platform's golden data (tests/unit/platforms/<platform>/golden/shape2), a GPU
    server's the shape's own (tests/unit/golden/shape2)."""
    node = DESIGN.nodes[device]
    for name, content in sorted(FILES[device].items()):
        assert_golden('shape2/%s/%s' % (device, name), content, platform=None if node.role == 'host' else node.platform)


def test_golden_fabric_files():
    for name, content in sorted(render_fabric(DESIGN).items()):
        assert_golden('shape2/fabric/%s' % name, content)


@pytest.mark.parametrize('device', [name for name in DEVICES if 'frr.conf' in FILES[name]])
def test_real_frr_accepts_the_sonic_frr_conf(device):
    assert_frr_accepts(FILES[device]['frr.conf'])


# ----------------------------------------------------------------------------------------------- values reach
def _sonic(files):
    db = json.loads(files['config_db.json'])
    dscp = db['DSCP_TO_TC_MAP']['AIFABRIC']
    assert (dscp[str(ROCE_DSCP)], dscp[str(CNP_DSCP)]) == (str(LOSSLESS), str(CNP))
    assert {value for key, value in dscp.items() if int(key) not in (ROCE_DSCP, CNP_DSCP)} == {str(DEFAULT_TC)}
    for key, row in db['PORT_QOS_MAP'].items():
        if key != 'global':
            assert (row['pfc_enable'], row['pfcwd_sw_enable']) == (str(LOSSLESS), str(LOSSLESS))
    assert {key.split('|')[1] for key, row in db['QUEUE'].items() if 'wred_profile' in row} == {str(LOSSLESS)}
    # lossless PGs: a profile of the traditional model, NULL where the switch computes them (dynamic)
    assert {key.split('|')[1] for key, row in db['BUFFER_PG'].items()
            if row['profile'].startswith('pg_lossless') or row['profile'] == 'NULL'} == {str(LOSSLESS)}
    assert {key.split('|')[1] for key, row in db['QUEUE'].items() if row['scheduler'] == 'AIFABRIC_CNP'} == {str(CNP)}


def _eos(files):
    text = files['startup-config.cfg']
    assert 'qos map dscp %d to traffic-class %d\n' % (ROCE_DSCP, LOSSLESS) in text
    assert 'qos map dscp %d to traffic-class %d\n' % (CNP_DSCP, CNP) in text
    assert set(re.findall(r'priority-flow-control priority (\d) no-drop', text)) == {str(LOSSLESS)}
    if 'interface Vxlan1' in text:  # VTEPs without DSCP propagation: the lossless TC stands for the RoCE DSCP
        assert 'qos map traffic-class %d to dscp %d\n' % (LOSSLESS, ROCE_DSCP) in text
    assert re.search(r'tx-queue 7\n      priority strict', text)  # the CNP class takes EOS's highest queue
    assert 'qos map traffic-class %d to tx-queue 7\n' % CNP in text
    assert 'dcbx application' not in text  # no Arista source for the command (issue 35): not rendered


def _nvue(files):
    config = yaml.safe_load(files['startup.yaml'])[0]['set']
    qos = config['qos']
    dscp = qos['mapping']['default-global']['dscp']
    assert (dscp[str(ROCE_DSCP)], dscp[str(CNP_DSCP)]) == ({'switch-priority': LOSSLESS}, {'switch-priority': CNP})
    assert all(list(profile['switch-priority']) == [str(LOSSLESS)] for profile in qos['pfc'].values())
    scheduler = qos['egress-scheduler']['default-global']['traffic-class']
    assert [queue for queue, entry in scheduler.items() if entry['mode'] == 'strict'] == [str(CNP)]
    for profile in qos['congestion-control'].values():
        assert [queue for queue, entry in profile['traffic-class'].items() if entry['ecn'] == 'enable'] == [str(LOSSLESS)]


def _host(files):
    nccl = dict(line.split('=', 1) for line in files['nccl.conf'].splitlines() if line and not line.startswith('#'))
    assert nccl['NCCL_IB_TC'] == str((ROCE_DSCP << 2) | 2)  # 98: DSCP 24 with ECT(0)
    script = files['rnic/aifabric-rnic-qos']
    assert 'CNP_DSCP=%d\n' % CNP_DSCP in script and 'CNP_PRIORITY=%d\n' % CNP in script
    assert 'ROCE_TOS=%d\n' % ((ROCE_DSCP << 2) | 2) in script and 'ECN_PRIORITIES="%d"\n' % LOSSLESS in script
    assert 'DCB_PFC="0:off 1:off 2:on 3:off 4:off 5:off 6:off 7:off"\n' in script
    # DSCP 24 >> 3 = 3, but RoCE rides priority 2: the NIC map overrides it.
    assert ' 24:2 ' in script


CHECKS = {'sonic': _sonic, 'eos': _eos, 'nvue': _nvue, 'host': _host}


@pytest.mark.parametrize('device', DEVICES)
def test_non_default_values_reach_every_platform_and_host(device):
    node = DESIGN.nodes[device]
    CHECKS['host' if node.role == 'host' else node.platform](FILES[device])


# ----------------------------------------------------------------------------------------------- no default left
# Default values of the collection's lossless profile, in the contexts where they would be QoS settings.
DEFAULT_QOS_PATTERNS = {
    'config_db.json': [r'"26": "3"', r'"48": "6"', r'"pfc_enable": "3"', r'"pfcwd_sw_enable": "3"',
                       r'"Ethernet\d+\|3": \{\s*"profile": "(pg_lossless|NULL)',
                       r'"Ethernet\d+\|6": \{\s*"scheduler": "AIFABRIC_CNP"'],
    'startup-config.cfg': [r'\b26\b[^\n]* to traffic-class 3', r'\b48\b[^\n]* to traffic-class 6',
                           r'priority-flow-control priority 3 no-drop', r'traffic-class 3 to dscp 26',
                           r'traffic-class 6 to tx-queue 7'],
    'startup.yaml': [r"'26':\n\s+switch-priority: 3", r"'48':\n\s+switch-priority: 6", r"switch-priority:\n\s+'3': \{\}",
                     r"'6':\n\s+mode: strict"],
    'nccl.conf': [r'NCCL_IB_TC=106'],
    'rnic/aifabric-rnic-qos': [r'CNP_DSCP=48', r'CNP_PRIORITY=6', r'ROCE_TOS=106', r'ECN_PRIORITIES="3"', r' 3:on '],
    'host.json': [r'"roce_dscp": 26', r'"cnp_dscp": 48', r'"traffic_class": 106'],
}


@pytest.mark.parametrize('device', DEVICES)
def test_no_default_qos_value_is_left_behind(device):
    for name, content in FILES[device].items():
        for pattern in DEFAULT_QOS_PATTERNS.get(name, ()):
            assert not re.search(pattern, content), '%s %s still has a default: %s' % (device, name, pattern)


def test_the_default_scan_bites_on_a_default_fabric():
    """The patterns are real: the same fabric with the default profile trips each file kind."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_intent
    data = yaml.safe_load(open(os.path.join(UNIT, 'fixtures', 'intents', 'shape2.yml'), encoding='utf-8'))
    data.pop('lossless')
    design = design_from_intent(data)
    tripped = set()
    for name in design.device_names():
        for file_name, content in render_model(design.device(name)).items():
            if any(re.search(pattern, content) for pattern in DEFAULT_QOS_PATTERNS.get(file_name, ())):
                tripped.add(file_name)
    assert tripped == set(DEFAULT_QOS_PATTERNS)
