# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Device text as a person sees it (device_text.py): every secret form each NOS prints is masked, and nothing a device
prints reaches a terminal or a report as control characters, look-alike letters or megabytes.

Each secret form is written the way the vendor documents it (the source is beside each case); the platform that
prints it declares it (Platform.secrets), and mask() applies every platform's forms to whatever it is given.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import (
    HASH_MASK, MASKED, mask, mask_data, shown, visible)
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms import SecretForms, registered
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.state.sources import gatherer_for
from tests.unit.plugins.plugin_utils.fabric.state.recorded import recorded

AVD = 'github.com/aristanetworks/avd python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/'
YANG = 'github.com/sonic-net/sonic-buildimage src/sonic-yang-models/yang-models/'
NVUE = 'docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/'
FRR = 'docs.frrouting.org/en/latest/'
SHA512 = '$6$rounds=5000$saltsaltsalt$' + 'H' * 86

# (platform, form, text as the NOS prints it, the secret, what stays readable, source)
FORMS = [
    ('eos', 'TACACS+ server type-7 key', 'tacacs-server host 10.1.1.1 vrf MGMT key 7 070E33455D1D18544541',
     '070E33455D1D18544541', 'tacacs-server host 10.1.1.1 vrf MGMT key 7', AVD + 'tacacs-servers.j2 at 66d0cf1d'),
    ('eos', 'TACACS+ global type-7 key', 'tacacs-server key 7 0207165218120E',
     '0207165218120E', 'tacacs-server key 7', AVD + 'tacacs-servers.j2 at 66d0cf1d'),
    ('eos', 'RADIUS server type-7 key', 'radius-server host 10.1.1.2 vrf MGMT timeout 5 key 7 011057175804575D72',
     '011057175804575D72', 'radius-server host 10.1.1.2 vrf MGMT timeout 5 key 7', AVD + 'radius-server.j2 at 41a2e029'),
    ('eos', 'BGP neighbour type-7 password', '   neighbor 10.0.0.1 password 7 AQQVlkDOx0u5NfrmOmlqNQ==',
     'AQQVlkDOx0u5NfrmOmlqNQ==', 'neighbor 10.0.0.1 password 7', AVD + 'router-bgp.j2 at 000975f4'),
    ('eos', 'BGP peer group type-7 password', '   neighbor SPINES password 7 q+VNViP5i4rVjW1cxFv2wA==',
     'q+VNViP5i4rVjW1cxFv2wA==', 'neighbor SPINES password 7', AVD + 'router-bgp.j2 at 000975f4'),
    ('eos', 'SNMP community', 'snmp-server community s3cretRO view all ro SNMP-ACL',
     's3cretRO', 'snmp-server community', AVD + 'snmp-server.j2 at 026fa946'),
    ('eos', 'SNMP trap host community', 'snmp-server host 10.9.9.9 vrf MGMT version 2c trapS3cret',
     'trapS3cret', 'snmp-server host 10.9.9.9 vrf MGMT version 2c', AVD + 'snmp-server.j2 at 026fa946'),
    ('eos', 'SNMPv3 user passphrases', 'snmp-server user ops RO v3 auth sha authPassPhrase1 priv aes privPassPhrase2',
     'authPassPhrase1', 'snmp-server user ops RO v3 auth sha', AVD + 'snmp-server.j2 at 026fa946'),
    ('eos', 'SNMPv3 user privacy passphrase', 'snmp-server user ops RO v3 auth sha authPassPhrase1 priv aes privPassPhrase2',
     'privPassPhrase2', 'priv aes', AVD + 'snmp-server.j2 at 026fa946'),
    ('eos', 'enable password hash', 'enable password sha512 ' + SHA512,
     SHA512, 'enable password sha512', AVD + 'enable-password.j2 at 32666f05'),
    ('eos', 'local user secret', 'username admin privilege 15 role network-admin secret sha512 ' + SHA512,
     SHA512, 'username admin privilege 15 role network-admin secret sha512', AVD + 'local-users.j2 at 41a2e029'),
    ('eos', 'NTP authentication key', 'ntp authentication-key 1 sha1 7 0202165D1A0B1C',
     '0202165D1A0B1C', 'ntp authentication-key 1 sha1 7', AVD + 'ntp.j2 at 0dc169fd'),
    ('sonic', 'TACPLUS global passkey (CONFIG_DB)', '{"TACPLUS": {"global": {"auth_type": "pap", "passkey": "tacKey1"}}}',
     'tacKey1', '"auth_type": "pap"', YANG + 'sonic-system-tacacs.yang at 01688967'),
    ('sonic', 'TACPLUS_SERVER passkey (CONFIG_DB)',
     '{"TACPLUS_SERVER": {"10.1.1.1": {"priority": "1", "tcp_port": "49", "passkey": "perServer9"}}}',
     'perServer9', '"10.1.1.1"', YANG + 'sonic-system-tacacs.yang at 01688967'),
    ('sonic', 'TACPLUS passkey (sonic-db-cli HGETALL)', "{'auth_type': 'pap', 'passkey': 'tacKey1', 'timeout': '5'}",
     'tacKey1', "'timeout': '5'", YANG + 'sonic-system-tacacs.yang at 01688967'),
    ('sonic', 'RADIUS passkey (CONFIG_DB)', '{"RADIUS_SERVER": {"10.1.1.2": {"passkey": "rad1us", "auth_port": "1812"}}}',
     'rad1us', '"auth_port": "1812"', YANG + 'sonic-system-radius.yang at 8e991bc2'),
    ('sonic', 'SNMP community (CONFIG_DB key)', '{"SNMP_COMMUNITY": {"c0mmun1ty": {"TYPE": "RO"}}}',
     'c0mmun1ty', '"TYPE": "RO"', YANG + 'sonic-snmp.yang at 0c4a8a4e'),
    ('sonic', 'SNMP community (a config_db.json diff line)',
     '     "SNMP_COMMUNITY": {\n+        "c0mmun1ty": {\n+            "TYPE": "RO"\n+        }\n     },',
     'c0mmun1ty', '"TYPE": "RO"', YANG + 'sonic-snmp.yang at 0c4a8a4e'),
    ('sonic', 'SNMPv3 user passwords (CONFIG_DB)',
     '{"SNMP_USER": {"ops1": {"SNMP_USER_TYPE": "Priv", "SNMP_USER_AUTH_PASSWORD": "authP4ssword",'
     ' "SNMP_USER_ENCRYPTION_PASSWORD": "encP4ssword"}}}',
     'authP4ssword', '"SNMP_USER_TYPE": "Priv"', YANG + 'sonic-snmp.yang at 0c4a8a4e'),
    ('nvue', 'TACACS+ server secret (nv config show -o json)',
     '[{"set": {"system": {"aaa": {"tacacs": {"server": {"5": {"host": {"192.168.0.30": {}}, "secret": "mytacacskey"}}}}}}}]',
     'mytacacskey', '"192.168.0.30"', NVUE + 'TACACS/'),
    ('nvue', 'RADIUS server secret (nv config show, YAML)',
     'system:\n  aaa:\n    radius:\n      server:\n        192.168.0.254:\n          secret: myradiuskey\n          port: 42\n',
     'myradiuskey', 'port: 42', NVUE + 'RADIUS/'),
    ('nvue', 'BGP neighbour password (nv config diff)',
     '        neighbor:\n          swp51:\n+           password: myBgpPass\n            remote-as: external\n',
     'myBgpPass', 'remote-as: external', NVUE + 'BGP/'),
    ('nvue', 'SNMP read-only community (YAML)',
     'system:\n  snmp-server:\n    readonly-community:\n      simplepassword:\n        access:\n          any: {}\n'
     '    state: enabled\n',
     'simplepassword', 'state: enabled', NVUE + 'SNMP-Server/'),
    ('nvue', 'SNMP read-only community (JSON)',
     '{"service": {"snmp-server": {"readonly-community-v6": {"v6community": {"access": {"any": {}}}}}}}',
     'v6community', '"access"', NVUE + 'SNMP-Server/'),
    ('nvue', 'user password', '{"system": {"aaa": {"user": {"ops": {"password": "plainPass", "role": "system-admin"}}}}}',
     'plainPass', '"role": "system-admin"', NVUE + 'User-Accounts/'),
    ('frr', 'BGP neighbour password', ' neighbor 10.0.0.1 password frrBgpPass',
     'frrBgpPass', 'neighbor 10.0.0.1 password', FRR + 'bgp.html'),
    ('frr', 'VTY password', 'password zebraPass', 'zebraPass', 'password', FRR + 'basic.html'),
    ('frr', 'enable password', 'enable password enablePass', 'enablePass', 'enable password', FRR + 'basic.html'),
    ('frr', 'OSPF authentication key', ' ip ospf authentication-key ospfKey1', 'ospfKey1', 'ip ospf authentication-key',
     FRR + 'ospfd.html'),
    ('frr', 'OSPF MD5 key', ' ip ospf message-digest-key 1 md5 md5Key22', 'md5Key22', 'ip ospf message-digest-key 1 md5',
     FRR + 'ospfd.html'),
    ('frr', 'key chain key-string', '  key-string chainKey3', 'chainKey3', 'key-string', FRR + 'ripd.html'),
]


@pytest.mark.parametrize('platform, form, text, secret, kept, source', FORMS,
                         ids=['%s: %s' % (case[0], case[1]) for case in FORMS])
def test_every_secret_form_is_masked(platform, form, text, secret, kept, source):  # pylint: disable=unused-argument
    masked = mask(text)
    assert secret not in masked, masked
    assert kept in masked and (MASKED in masked or HASH_MASK in masked), masked
    assert secret not in json.dumps(mask_data({'stdout': text, 'lines': [text]}))


def test_every_platform_declares_its_secret_forms():
    """A NOS prints secrets somewhere: a platform folder without its forms would show them."""
    for name, platform in registered().items():
        assert isinstance(platform.secrets, SecretForms) and platform.secrets != SecretForms(), name
        assert any(case[0] == name for case in FORMS), 'no secret form of %s is tested' % name


def test_crypt_hashes_are_masked_on_every_path():
    assert SHA512 not in mask('hashed-password: %s' % SHA512)
    assert mask('x $y$j9T$salt$hash y') == 'x %s y' % HASH_MASK


def test_configuration_line_keys_are_masked_too():
    """EOS's running-config as eAPI JSON: the lines are the keys of the tree."""
    tree = {'cmds': {'tacacs-server key 7 0207165218120E': None,
                     'router bgp 65000': {'cmds': {'neighbor 10.0.0.1 password 7 AQQVlk==': None,
                                                   'neighbor 10.0.0.1 send-community extended': None}}}}
    masked = json.dumps(mask_data(tree))
    assert '0207165218120E' not in masked and 'AQQVlk==' not in masked
    assert 'neighbor 10.0.0.1 send-community extended' in masked


GCU = 'github.com/sonic-net/sonic-utilities generic_config_updater/'
# (how a secret reaches text other than the NOS's own configuration, the text, the secret, what stays readable)
CARRIED = [
    ('a removed line of a unified diff', '-tacacs-server host 10.1.1.1 key 7 070E33455D1D18544541',
     '070E33455D1D18544541', '-tacacs-server host 10.1.1.1 key 7 <secret>'),
    ('an added line of a diff', '+snmp-server community s3cretRO ro', 's3cretRO', '+snmp-server community <secret> ro'),
    ('a line of a diff(1) in its normal format', '> enable password enablePass', 'enablePass', '> enable password <secret>'),
    ('a configuration line an error quotes (eAPI)', "CLI command 3 of 9 'ntp authentication-key 1 sha1 7 0202165D1A0B1C' "
     "failed: invalid command", '0202165D1A0B1C', 'failed: invalid command'),
    ('a line a message quotes (vtysh)', 'line 4: "password zebraPass" is not allowed here', 'zebraPass',
     'is not allowed here'),
    ('a key chain line quoted', '"  key-string chainKey3" rejected', 'chainKey3', 'rejected'),
    ('a CONFIG_DB row key (sonic-db-cli, a deploy diff)', '-SNMP_COMMUNITY|c0mmun1ty {"TYPE": "RO"}', 'c0mmun1ty',
     '-SNMP_COMMUNITY|<secret> {"TYPE": "RO"}'),
    ('a JSON Patch path through a community table (' + GCU + 'gu_common.py)',
     'Patch: [{"op": "add", "path": "/SNMP_COMMUNITY/c0mmun1ty", "value": {"TYPE": "RO"}}]', 'c0mmun1ty',
     '"path": "/SNMP_COMMUNITY/<secret>"'),
    ('a JSON Patch of a secret field', '{"op": "replace", "path": "/TACPLUS_SERVER/10.1.1.1/passkey", "value": "k3y9"}',
     'k3y9', '"/TACPLUS_SERVER/10.1.1.1/passkey"'),
    ('a JSON Patch of a secret field, in a message', 'failed to apply [{"path": "/TACPLUS/global/passkey", '
     '"op": "add", "value": "k3y9"}]', 'k3y9', 'failed to apply'),
    ('a JSON document a message quotes', 'the switch said: {"service": {"snmp-server": {"readonly-community-v6": '
     '{"v6community": {"access": {"any": {}}}}}}}', 'v6community', 'the switch said: {"service"'),
]


@pytest.mark.parametrize('text, secret, kept', [case[1:] for case in CARRIED], ids=[case[0] for case in CARRIED])
def test_a_secret_form_carried_in_other_text_is_masked(text, secret, kept):
    """A form matches a configuration line wherever text carries one: a diff's line, a line an error quotes, a
    CONFIG_DB row key, a JSON Patch (what SONiC's generic config updater applies and prints), a quoted document."""
    masked = mask(text)
    assert secret not in masked and kept in masked, masked


@pytest.mark.parametrize('text', ['~user admin: password changes\n', 'Error: password mismatch', 'enter a password: '])
def test_prose_after_a_colon_is_no_configuration_line(text):
    """The switch_deploy diff of SONiC's users says '~user admin: password changes': not a secret."""
    assert mask(text) == text


def test_two_communities_stay_two_entries():
    masked = mask_data({'SNMP_COMMUNITY': {'one': {'TYPE': 'RO'}, 'two': {'TYPE': 'RW'}}})
    assert sorted(entry['TYPE'] for entry in masked['SNMP_COMMUNITY'].values()) == ['RO', 'RW']


def test_text_without_a_secret_is_the_same_object():
    text = 'interface Ethernet1/1\n   mtu 9214\n   neighbor 10.0.0.1 send-community extended\n'
    assert mask(text) is text
    data = {'stdout': text, 'rc': 0}
    assert mask_data(data) is data


@pytest.mark.parametrize('platform', sorted(registered()) + ['host'])
def test_masking_changes_nothing_a_check_reads(platform):
    """Every recorded output of the platform, masked as validate_gather masks what it reads, parses to the same
    neutral state: the forms touch secrets only."""
    for model, raw in recorded(platform):
        gatherer = gatherer_for(model)
        for key, output in raw.items():
            assert gatherer.parse(key, mask_data(output)) == gatherer.parse(key, output), (model['name'], key)


# --------------------------------------------------------------------------- visible
@pytest.mark.parametrize('text, expected', [
    ('spine\udcff001', 'spine\\udcff001'),  # what a JSON writer prints for a byte that is not UTF-8
    ('\x1b]0;owned\x07\x1b[2Jleaf', '\\x1b]0;owned\\x07\\x1b[2Jleaf'),  # OSC window title, clear screen
    ('leaf001\r\nERROR forged line', 'leaf001\\r\\nERROR forged line'),
    ('l\u0430b', 'l\\u0430b'),  # a Cyrillic a that looks like lab
    ('\u202eevil', '\\u202eevil'),  # bidi override
    ('<script>alert(1)</script>', '<script>alert(1)</script>'),  # printable: the report formats escape it
    ('\U0001F600', '\\U0001f600'),
])
def test_visible_escapes_what_a_terminal_or_a_reader_would_take_for_something_else(text, expected):
    assert visible(text) == expected


def test_visible_bounds_the_length_and_says_what_it_cut():
    huge = 'x' * 10 * 1024 * 1024
    shown_text = visible(huge)
    assert len(shown_text) <= 300 and shown_text.endswith('...[%d more characters]' % (len(huge) - 260))
    wide = '\u0430' * 1000
    assert len(visible(wide)) <= 300 and 'more characters]' in visible(wide)


def test_visible_keeps_the_lines_of_a_diff_when_asked():
    assert visible('-a\x1b\n+b\r', lines=True) == '-a\\x1b\n+b\\r'


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=60, max_value=400))
def test_visible_is_printable_ascii_bounded_and_stable(text, limit):
    out = visible(text, limit)
    assert out.isascii() and out.isprintable() and len(out) <= limit
    assert visible(out, limit) == out


def test_shown_masks_then_makes_visible():
    assert shown('tacacs-server key 7 0207165218120E\n\x1b[2J') == 'tacacs-server key 7 %s\\n\\x1b[2J' % MASKED


SECRET_WORDS = sorted({word for form in registered().values() for word in
                       form.secrets.fields + form.secrets.names + form.secrets.words})
ALPHABET = st.sampled_from('abcdeiklnoprstwy-_ $:{}"\n') | st.characters(min_codepoint=0x80, max_codepoint=0x2200)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(SECRET_WORDS).map(
    lambda word: ''.join(char.upper() if index % 2 else char for index, char in enumerate(word))) | st.text(ALPHABET),
    max_size=4).map(''.join))
def test_the_quick_test_says_what_the_expression_says(text):
    """The plain-substring test of ASCII text decides as the case-insensitive expression of the secret words does, on
    any text: mixed case, '$', Unicode letters that match an ASCII one (the Kelvin sign, the long s)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import _forms  # pylint: disable=import-outside-toplevel
    quick = _forms()[3]
    assert quick.search(text) == (quick.pattern.search(text) is not None)
    assert quick.search(text.replace('s', '\u017f').replace('k', '\u212a')) == (
        quick.pattern.search(text.replace('s', '\u017f').replace('k', '\u212a')) is not None)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text(ALPHABET, max_size=8) | st.sampled_from(SECRET_WORDS + [SHA512]) | st.integers(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.text(ALPHABET, max_size=6) | st.sampled_from(SECRET_WORDS), inner, max_size=3),
                    max_leaves=12))
def test_a_part_without_a_secret_word_is_skipped_whole_and_masked_the_same(data):
    """mask_data skips a mapping or list whose written-out text holds no secret word and no '$': what it returns is
    what masking each key and value would return."""
    def masked_one_by_one(value):
        if isinstance(value, str):
            return mask(value)
        if isinstance(value, list):
            return [masked_one_by_one(item) for item in value]
        if isinstance(value, dict):
            return {mask(key) if isinstance(key, str) else key: masked_one_by_one(item) for key, item in value.items()}
        return value
    result = mask_data(data)
    if not any(word in json.dumps(data).lower() for word in SECRET_WORDS) and '$' not in json.dumps(data):
        assert result is data
    if result is data:  # skipped, or nothing masked: masking each key and value changes nothing either
        assert masked_one_by_one(data) == data


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.text(ALPHABET, max_size=8) | st.sampled_from(SECRET_WORDS + [SHA512]) | st.integers()
                    | st.none() | st.booleans(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.text(ALPHABET, max_size=6) | st.sampled_from(SECRET_WORDS), inner, max_size=3)
                    | st.lists(inner, min_size=65, max_size=70),  # a tree too large to search part by part
                    max_leaves=80))
def test_a_tree_written_out_at_once_is_searched_as_each_key_and_value_would_be(data):
    """mask_data searches a mapping or list written out as one text: it says what a search of each key and value
    says, on ASCII text and on Unicode letters only the case-insensitive expression knows (the Kelvin sign), at any
    size (a large tree's text is not escaped first: 'pass\u212aey' is no passkey to a search of escaped text)."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.device_text import (  # pylint: disable=import-outside-toplevel
        _forms, _may_hold_secret)
    quick = _forms()[3]

    def parts(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            for item in value:
                yield from parts(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                yield key
                yield from parts(item)
    assert _may_hold_secret(quick, data) == any(quick.search(part) for part in parts(data))
    kelvin = [{'n': number} for number in range(70)] + [{'pass\u212aey': 'hunter2'}]
    assert _may_hold_secret(quick, kelvin)
    assert mask_data({'TACPLUS_SERVER': kelvin})['TACPLUS_SERVER'][-1] == {'pass\u212aey': MASKED}
