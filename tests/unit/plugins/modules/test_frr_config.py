"""frr_config: parsing of FRR's own `frr-reload.py --test` output, captured from a lab leaf."""

import os

from ansible_collections.aifabric.fabric.plugins.modules import frr_config

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
