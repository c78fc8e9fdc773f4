# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lock-out guard's address rule: a commit must not move the management address the deploy reaches."""

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy.contract import address_problems


@pytest.mark.parametrize('host, addresses', [
    ('192.168.100.11', ['192.168.100.11/24']),   # the address the deploy uses stays
    ('leaf001.example.net', ['192.168.100.12/24']),  # a name: not judged
    ('127.0.0.1', ['192.168.100.12/24']),        # reached through a tunnel / NAT: not judged
    ('10.0.0.5', ['192.168.100.12/24']),         # outside the management network: not judged
])
def test_keeping_or_unknown_addresses_pass(host, addresses):
    assert address_problems(host, 'eth0', addresses) == []


def test_moving_the_reached_address_is_refused():
    assert address_problems('192.168.100.11', 'Management1', ['192.168.100.12/24']) == [
        'the deploy reaches the switch at 192.168.100.11, but the file gives Management1 192.168.100.12/24']
