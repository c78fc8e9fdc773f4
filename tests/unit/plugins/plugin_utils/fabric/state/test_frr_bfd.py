# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""BFD sessions of FRR: `vtysh -c 'show bfd peers json' -c 'show bfd peers counters json'`, two JSON arrays in the
shape bfdd prints them (bfdd/bfdd_vty.c, __display_peer_json and __display_peer_counters_json)."""

import json

import pytest

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.frrouting import vtysh as frr
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state import DaemonDown, StateError

PEERS = [{'multihop': False, 'peer': '10.0.0.0', 'local': '10.0.0.1', 'id': 1, 'remote-id': 2, 'passive-mode': False,
          'status': 'down', 'downtime': 12, 'diagnostic': 'control detection time expired', 'remote-diagnostic': 'ok',
          'receive-interval': 300, 'transmit-interval': 300, 'detect-multiplier': 3},
         {'multihop': False, 'peer': 'fe80::1', 'interface': 'eth3', 'status': 'up', 'uptime': 95,
          'diagnostic': 'ok', 'remote-diagnostic': 'ok'}]
COUNTERS = [{'multihop': False, 'peer': '10.0.0.0', 'local': '10.0.0.1', 'control-packet-input': 120,
             'control-packet-output': 130, 'session-up': 7, 'session-down': 7, 'zebra-notifications': 14}]


def output(*documents, rc=0):
    return {'rc': rc, 'stdout': '\n'.join(json.dumps(document, indent=2) for document in documents), 'stderr': ''}


def test_sessions_with_their_down_events_keyed_by_peer_and_interface():
    sessions = frr.parse_bfd_peers(output(PEERS, COUNTERS))
    assert sessions['10.0.0.0'] == {'peer': '10.0.0.0', 'interface': None, 'status': 'down',
                                    'diagnostic': 'control detection time expired', 'remote_diagnostic': 'ok',
                                    'uptime_s': None, 'downtime_s': 12, 'up_events': 7, 'down_events': 7}
    assert sessions['eth3'] is sessions['fe80::1'] and sessions['eth3']['down_events'] is None


def test_no_session_and_empty_output():
    assert frr.parse_bfd_peers(output([], [])) == {}
    assert frr.parse_bfd_peers({'rc': 0, 'stdout': '', 'stderr': ''}) == {}


def test_bfdd_not_running_and_malformed_output():
    with pytest.raises(DaemonDown, match='bfdd is not running'):
        frr.parse_bfd_peers({'rc': 1, 'stdout': '', 'stderr': 'bfdd is not running'})
    with pytest.raises(StateError, match='not valid JSON'):
        frr.parse_bfd_peers({'rc': 0, 'stdout': '[{"peer": ', 'stderr': ''})
    with pytest.raises(StateError, match='without a peer'):
        frr.parse_bfd_peers(output([{'status': 'up'}]))
    with pytest.raises(StateError, match='JSON arrays'):
        frr.parse_bfd_peers(output({'peer': '10.0.0.0'}))
