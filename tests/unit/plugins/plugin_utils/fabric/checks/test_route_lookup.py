# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""vtep_route's lookup in a route table, indexed per prefix length, gives the route the kernel's rule gives."""

import ipaddress

from hypothesis import given, settings, strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.checks.fabric import RouteLookup

OCTETS = st.sampled_from([0, 1, 2, 16, 254, 255])
ADDRESSES = st.tuples(st.sampled_from([10, 172]), OCTETS, OCTETS, OCTETS).map(lambda parts: '.'.join(map(str, parts)))
DESTINATIONS = st.one_of(st.just('default'), st.just('not a prefix'), st.just('fe80::/64'),
                         st.tuples(ADDRESSES, st.sampled_from([0, 8, 16, 24, 31, 32])).map('%s/%d'.__mod__))
ROUTES = st.lists(st.fixed_dictionaries({'dst': DESTINATIONS, 'metric': st.none() | st.sampled_from([0, 20, 100]),
                                         'type': st.sampled_from(['unicast', 'blackhole'])}), max_size=25)


def kernel_rule(routes, address):
    """The longest prefix holding the address, the lowest metric among equals, the first listed among equal ones;
    never the default route (the rule written out, one route at a time)."""
    target = ipaddress.ip_address(address)
    best = None
    for route in routes:
        try:
            network = ipaddress.ip_network('0.0.0.0/0' if route['dst'] == 'default' else route['dst'], strict=False)
        except ValueError:
            continue
        if network.version != target.version or target not in network or network.prefixlen == 0:
            continue
        key = (network.prefixlen, -(route['metric'] or 0))
        if best is None or key > best[0]:
            best = (key, route)
    return best[1] if best else None


@settings(max_examples=400, deadline=None)
@given(ROUTES, st.lists(ADDRESSES, min_size=1, max_size=5))
def test_the_indexed_lookup_is_the_kernel_rule(routes, addresses):
    lookup = RouteLookup(routes)
    for address in addresses:
        assert lookup.route(address) is kernel_rule(routes, address)


def test_a_blackhole_more_specific_than_the_bgp_route_wins():
    routes = [{'dst': '10.254.16.0/24', 'metric': 20, 'type': 'unicast'},
              {'dst': '10.254.16.3', 'metric': None, 'type': 'blackhole'}]
    assert RouteLookup(routes).route('10.254.16.3')['type'] == 'blackhole'
    assert RouteLookup(routes).route('10.254.16.4')['type'] == 'unicast'
    assert RouteLookup([{'dst': 'default', 'metric': 0, 'type': 'unicast'}]).route('10.254.16.4') is None
