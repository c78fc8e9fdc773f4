"""CONFIG_DB as SONiC's YANG models accept it: the check `config replace`/`apply-patch` run on the target config
(sonic-utilities generic_config_updater/gu_common.py ConfigWrapper.validate_config_db_config: sonic_yang loadData,
then validate_lanes and validate_bgp_peer_group).

Every rule below is written from the model named beside it, sonic-buildimage src/sonic-yang-models/yang-models/
<model>.yang (typedefs from yang-templates/sonic-types.yang.j2), at commit 086b03bd70. Error texts are those of
libyang 3.12.2, the release the snapshot builds (rules/libyang3.mk) and sonic_yang loads through its Python binding
(src/sonic-yang-mgmt/sonic_yang.py `import libyang`, rules/libyang3-py3.mk 3.1.0): CESNET/libyang v3.12.2
src/ly_common.h, src/plugins_types.c and src/plugins_types/*.c:
  Invalid type uint32 value "%s".                      Value "%s" is out of type uint8 min/max bounds.
  Unsatisfied range - value "%s" is out of the allowed range.
  Unsatisfied pattern - "%s" does not conform to "%s".  Unsatisfied length - string "%s" length is not allowed.
  Invalid enumeration value "%s".                      Invalid boolean value "%s".
  Invalid union value "%s" - no matching subtype found  Failed to convert IPv4 address "%s".
  Invalid leafref value "%s" - no target instance "%s" with the same value.
  Mandatory node "%s" instance does not exist.         Must condition "%s" not satisfied. (or the model's message)
  Node "%s" not found as a child of "%s" node.         List instance is missing its key "%s".
libyang-python prefixes "failed to parse data tree: " (libyang/context.py parse_data_mem, error()) and sonic_yang
wraps the result as "Data Loading Failed\n<that>" (src/sonic-yang-mgmt/sonic_yang_ext.py loadData). libyang-python
also appends the error's data and schema paths; the double leaves them out (their exact form is unverified).

Tables with a YANG model that this double does not check field by field are accepted as given (YANG_TABLES lists
every table that has a model; a table without one is cropped by sonic_yang and refused by GCU when a patch changes
it). README.md ("SONiC: rules and sources") lists what is checked.
"""

from __future__ import annotations

import ipaddress
import re

# Every CONFIG_DB table that has a YANG model (the top-level containers of yang-models/*.yang).
YANG_TABLES = frozenset('''
AAA ALARM ALARM_STATS ASIC_SENSORS AS_PATH_SET AUTO_TECHSUPPORT AUTO_TECHSUPPORT_FEATURE BANNER_MESSAGE
BGP_AGGREGATE_ADDRESS BGP_ALLOWED_PREFIXES BGP_BBR BGP_DEVICE_GLOBAL BGP_GLOBALS BGP_GLOBALS_AF
BGP_GLOBALS_AF_AGGREGATE_ADDR BGP_GLOBALS_AF_NETWORK BGP_GLOBALS_LISTEN_PREFIX BGP_INTERNAL_NEIGHBOR BGP_MONITORS
BGP_NEIGHBOR BGP_NEIGHBOR_AF BGP_PEER_GROUP BGP_PEER_GROUP_AF BGP_PEER_RANGE BGP_SENTINELS BGP_VOQ_CHASSIS_NEIGHBOR BMP
BREAKOUT_CFG BUFFER_PG BUFFER_POOL BUFFER_PORT_EGRESS_PROFILE_LIST BUFFER_PORT_INGRESS_PROFILE_LIST BUFFER_PROFILE
BUFFER_QUEUE CABLE_LENGTH CHASSIS_MODULE COMMUNITY_SET CONSOLE_PORT CONSOLE_SWITCH COPP_GROUP COPP_TRAP CRM
DEBUG_COUNTER DEBUG_COUNTER_DROP_REASON DEBUG_DROP_MONITOR DEFAULT_LOSSLESS_BUFFER_PARAMETER DEVICE_METADATA
DEVICE_NEIGHBOR DEVICE_NEIGHBOR_METADATA DHCPV4_RELAY DHCP_RELAY DHCP_SERVER DHCP_SERVER_IPV4 DNS_NAMESERVER
DNS_OPTIONS DOT1P_TO_TC_MAP DSCP_TO_FC_MAP DSCP_TO_TC_MAP EVENT EVPN_ETHERNET_SEGMENT EVPN_MH_GLOBAL EXP_TO_FC_MAP
EXTENDED_COMMUNITY_SET FABRIC_MONITOR FABRIC_PORT FEATURE FG_NHG FG_NHG_MEMBER FG_NHG_PREFIX FIPS FLEX_COUNTER_TABLE
FLOW_COUNTER_ROUTE_PATTERN GNMI GRPCCLIENT HEARTBEAT INTERFACE KDUMP KUBERNETES_MASTER LDAP LDAP_SERVER LLDP LLDP_PORT
LOGGER LOOPBACK_INTERFACE LOSSLESS_TRAFFIC_PATTERN MACSEC_PROFILE MAC_MOVE_GUARD MAP_PFC_PRIORITY_TO_QUEUE
MCLAG_DOMAIN MCLAG_INTERFACE MCLAG_UNIQUE_IP MEMORY_STATISTICS MGMT_INTERFACE MGMT_PORT MGMT_VRF_CONFIG
MID_PLANE_BRIDGE MIRROR_SESSION MPLS_TC_TO_TC_MAP MUX_CABLE MUX_LINKMGR NAT_BINDINGS NAT_GLOBAL NAT_POOL NEIGH NTP
NTP_KEY NTP_SERVER NVGRE_TUNNEL NVGRE_TUNNEL_MAP PASSW_HARDENING PBH_HASH PBH_HASH_FIELD PBH_RULE PBH_TABLE
PEER_SWITCH PFC_PRIORITY_TO_PRIORITY_GROUP_MAP PFC_WD PORT PORTCHANNEL PORTCHANNEL_INTERFACE PORTCHANNEL_MEMBER
PORT_QOS_MAP PORT_STORM_CONTROL PREFIX PREFIX_LIST PREFIX_SET QUEUE RADIUS RADIUS_SERVER RESTAPI ROUTE_MAP
ROUTE_MAP_SET ROUTE_REDISTRIBUTE SAG SCHEDULER SERIAL_CONSOLE SFLOW SFLOW_COLLECTOR SFLOW_SESSION SNMP
SNMP_AGENT_ADDRESS_CONFIG SNMP_COMMUNITY SNMP_USER SSH_SERVER STATIC_NAPT STATIC_NAT STATIC_ROUTE STORMOND_CONFIG STP
STP_MST STP_MST_INST STP_MST_PORT STP_PORT STP_VLAN STP_VLAN_PORT SUBNET_DECAP SUPPRESS_ASIC_SDK_HEALTH_EVENT
SWITCH_FAST_LINKUP SWITCH_HASH SWITCH_TRIMMING SYSLOG_CONFIG SYSLOG_CONFIG_FEATURE SYSLOG_SERVER SYSTEM_DEFAULTS
SYSTEM_PORT TACPLUS TACPLUS_SERVER TC_TO_DSCP_MAP TC_TO_PRIORITY_GROUP_MAP TC_TO_QUEUE_MAP TELEMETRY TELEMETRY_CLIENT
TUNNEL VERSIONS VLAN VLAN_INTERFACE VLAN_MEMBER VLAN_SUB_INTERFACE VNET VNET_ROUTE VNET_ROUTE_TUNNEL
VOQ_INBAND_INTERFACE VRF VXLAN_EVPN_NVO VXLAN_TUNNEL VXLAN_TUNNEL_MAP WARM_RESTART WRED_PROFILE XCVRD_LOG ZTP
'''.split())


class Invalid(Exception):
    """A config libyang refuses; the message is libyang's."""


# -- leaf types (each a function of the value that raises Invalid) ------------------------------------------------
PARSE = 'failed to parse data tree: '  # libyang-python Context.parse_data_mem -> error()


def _inval(value, element, kind='string'):
    """A value its type cannot parse (plugins_types.c: "Invalid type %s value")."""
    return Invalid(PARSE + 'Invalid type %s value "%s".' % (kind, value))


def _noconstr(value, constraint, what='pattern'):
    """A value outside its range, length or pattern (ly_common.h LY_ERRMSG_NORANGE / NOLENGTH / NOPATTERN)."""
    if what == 'range':
        return Invalid(PARSE + 'Unsatisfied range - value "%s" is out of the allowed range.' % value)
    if what == 'length':
        return Invalid(PARSE + 'Unsatisfied length - string "%s" length is not allowed.' % value)
    return Invalid(PARSE + 'Unsatisfied pattern - "%s" does not conform to "%s".' % (value, constraint))


class Type:
    """A YANG type: check(value, element) raises Invalid."""

    def __init__(self, check, text):
        self.check, self.text = check, text


def uint(low, high, bits=32):
    def check(value, element):
        text = str(value)
        if not re.fullmatch(r'\d+', text):
            raise _inval(text, element, 'uint%d' % bits)
        if int(text) >= 2 ** bits:
            raise Invalid(PARSE + 'Value "%s" is out of type uint%d min/max bounds.' % (text, bits))
        if not low <= int(text) <= high:
            raise _noconstr(text, '%d..%d' % (low, high), 'range')
    return Type(check, 'uint%d %d..%d' % (bits, low, high))


def integer(low, high):
    def check(value, element):
        text = str(value)
        if not re.fullmatch(r'-?\d+', text):
            raise _inval(text, element, 'int32')
        if not low <= int(text) <= high:
            raise _noconstr(text, '%d..%d' % (low, high), 'range')
    return Type(check, 'int32 %d..%d' % (low, high))


def one_of(*allowed):
    """A YANG range of single values (`range "10|100|1000"`)."""
    def check(value, element):
        text = str(value)
        if not re.fullmatch(r'\d+', text):
            raise _inval(text, element, 'uint32')
        if int(text) not in allowed:
            raise _noconstr(text, '|'.join(str(item) for item in allowed), 'range')
    return Type(check, 'range %s' % '|'.join(str(item) for item in allowed))


def enum(*names):
    def check(value, element):
        if str(value) not in names:
            raise Invalid(PARSE + 'Invalid enumeration value "%s".' % value)
    return Type(check, 'enumeration %s' % '|'.join(names))


def pattern(regex, low=None, high=None):
    """A string with a YANG pattern (anchored, as YANG patterns are) and an optional length."""
    compiled = re.compile(regex)

    def check(value, element):
        text = str(value)
        if low is not None and not low <= len(text) <= high:
            raise _noconstr(text, '%d..%d' % (low, high), 'length')
        if not compiled.fullmatch(text):
            raise _noconstr(text, regex)
    return Type(check, 'pattern %s' % regex)


def string(low=None, high=None):
    def check(value, element):
        text = str(value)
        if low is not None and not low <= len(text) <= high:
            raise _noconstr(text, '%d..%d' % (low, high), 'length')
    return Type(check, 'string' if low is None else 'string %d..%d' % (low, high))


def _addr(kinds):
    """inet:ip-address is a union of the IPv4 and IPv6 types (union.c: "Invalid union value"); inet:ipv4-address alone
    fails its pattern."""
    def check(value, element):
        try:
            address = ipaddress.ip_address(str(value))
        except ValueError:
            address = None
        if address is None or address.version not in kinds:
            if len(kinds) > 1:
                raise Invalid(PARSE + 'Invalid union value "%s" - no matching subtype found.' % value)
            raise _noconstr(value, 'ietf-inet-types ipv4-address pattern')
    return check


IP_ADDRESS = Type(_addr((4, 6)), 'inet:ip-address')
IPV4_ADDRESS = Type(_addr((4,)), 'inet:ipv4-address')
IPV4_PREFIX = r'(([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\.){3}([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])/(([0-9])|([1-2][0-9])|(3[0-2]))'


def _ip_prefix(value, element):
    """sonic-types sonic-ip4-prefix | sonic-ip6-prefix: address/length, host bits allowed (an interface address)."""
    text = str(value)
    if re.fullmatch(IPV4_PREFIX, text):
        return
    address, slash, length = text.partition('/')
    try:
        if slash and ipaddress.IPv6Address(address) and re.fullmatch(r'\d+', length) and int(length) <= 128:
            return
    except ValueError:
        pass
    raise Invalid(PARSE + 'Invalid union value "%s" - no matching subtype found.' % text)


IP_PREFIX = Type(_ip_prefix, 'sonic-ip-prefix')
HOSTNAME_RE = r'(([a-zA-Z0-9_]([a-zA-Z0-9\-_]){0,61})?[a-zA-Z0-9]\.)*([a-zA-Z0-9_]([a-zA-Z0-9\-_]){0,61})?[a-zA-Z0-9]\.?|\.'


def _host(value, element):
    """ietf-inet-types host: an IP address or a domain name."""
    try:
        ipaddress.ip_address(str(value))
        return
    except ValueError:
        if not re.fullmatch(HOSTNAME_RE, str(value)) or len(str(value)) > 253:
            raise Invalid(PARSE + 'Invalid union value "%s" - no matching subtype found.' % value) from None


HOST = Type(_host, 'inet:host')
MAC = pattern(r'[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}')
BOOLEAN = enum('true', 'false')                   # YANG boolean
BOOLEAN_TYPE = pattern(r'false|true|False|True')  # sonic-types boolean_type
ADMIN_STATUS = enum('up', 'down')
ADMIN_MODE = enum('enabled', 'disabled')
MODE_STATUS = enum('enable', 'disable')
ON_OFF = enum('on', 'off')
PORT_NUMBER = uint(0, 65535, 16)
AS_NUMBER = uint(0, 4294967295)
MAP_NAME = pattern(r'[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})', 1, 32)
HASH_FIELDS = ('IN_PORT', 'DST_MAC', 'SRC_MAC', 'ETHERTYPE', 'VLAN_ID', 'IP_PROTOCOL', 'DST_IP', 'SRC_IP', 'L4_DST_PORT',
               'L4_SRC_PORT', 'INNER_DST_MAC', 'INNER_SRC_MAC', 'INNER_ETHERTYPE', 'INNER_IP_PROTOCOL', 'INNER_DST_IP',
               'INNER_SRC_IP', 'INNER_L4_DST_PORT', 'INNER_L4_SRC_PORT', 'IPV6_FLOW_LABEL')
HASH_ALGORITHMS = ('CRC', 'XOR', 'RANDOM', 'CRC_32LO', 'CRC_32HI', 'CRC_CCITT', 'CRC_XOR')
DEVICE_TYPES = ('ToRRouter|LeafRouter|SpineChassisFrontendRouter|ChassisBackendRouter|ASIC|MgmtToRRouter|MgmtLeafRouter|'
                'MgmtSpineRouter|MgmtAccessRouter|LowerMgmtAggregator|UpperMgmtAggregator|SpineRouter|BackEndSpineRouter|'
                'UpperSpineRouter|FabricSpineRouter|LowerSpineRouter|BackEndToRRouter|BackEndLeafRouter|EPMS|MgmtTsToR|'
                'BmcMgmtToRRouter|MiniTs|LeafTs|SpineTs|CoreTs|ConsoleServer|TerminalServer|SonicHost|SmartSwitchDPU|'
                'FilterLeaf|NetworkBmc|MseeRouter|not-provisioned|LowerRegionalHub|FabricRegionalHub|UpperRegionalHub')


class Leaf:
    """A leaf (or leaf-list, `many`) of a list entry: its type, whether it is mandatory, the table its value must
    name a key of (a leafref to that table's first key), and a YANG path for the leafref message."""

    def __init__(self, kind=None, mandatory=False, ref=None, many=False, refs=()):
        self.kind, self.mandatory, self.many = kind, mandatory, many
        self.refs = (ref,) + tuple(refs) if ref else tuple(refs)  # a union of leafrefs: any may match


class List:
    """A YANG list stored as CONFIG_DB rows `key1|key2`: its key leaves in order and its other leaves."""

    def __init__(self, name, keys, leaves=None, checks=(), inner=None):
        self.name, self.keys, self.leaves, self.checks, self.inner = name, keys, dict(leaves or {}), checks, inner


class Container:
    """A YANG container stored as one CONFIG_DB row with a fixed key (DEVICE_METADATA|localhost)."""

    def __init__(self, leaves, checks=()):
        self.leaves, self.checks = dict(leaves), checks


def _ref_path(module, table, key='name'):
    """A leafref path as libyang prints it: /<module>:<module>/<module>:<TABLE>/<module>:<TABLE>_LIST/<module>:<key>."""
    return '/{0}:{0}/{0}:{1}/{0}:{1}_LIST/{0}:{2}'.format(module, table, key)


# Leafref paths per referenced table (the module that defines it, the key leaf).
REF_PATH = {table: _ref_path(module, table, key) for table, module, key in (
    ('PORT', 'sonic-port', 'name'),
    ('VLAN', 'sonic-vlan', 'name'),
    ('VRF', 'sonic-vrf', 'name'),
    ('PORTCHANNEL', 'sonic-portchannel', 'name'),
    ('MGMT_PORT', 'sonic-mgmt_port', 'name'),
    ('LOOPBACK_INTERFACE', 'sonic-loopback-interface', 'name'),
    ('VXLAN_TUNNEL', 'sonic-vxlan', 'name'),
    ('BUFFER_POOL', 'sonic-buffer-pool', 'name'),
    ('BUFFER_PROFILE', 'sonic-buffer-profile', 'name'),
    ('SCHEDULER', 'sonic-scheduler', 'name'),
    ('WRED_PROFILE', 'sonic-wred-profile', 'name'),
    ('DSCP_TO_TC_MAP', 'sonic-dscp-tc-map', 'name'),
    ('TC_TO_QUEUE_MAP', 'sonic-tc-queue-map', 'name'),
    ('TC_TO_PRIORITY_GROUP_MAP', 'sonic-tc-priority-group-map', 'name'),
    ('MAP_PFC_PRIORITY_TO_QUEUE', 'sonic-pfc-priority-queue-map', 'name'),
    ('PFC_PRIORITY_TO_PRIORITY_GROUP_MAP', 'sonic-pfc-priority-priority-group-map', 'name'),
    ('TC_TO_DSCP_MAP', 'sonic-tc-dscp-map', 'name'),
    ('DOT1P_TO_TC_MAP', 'sonic-dot1p-tc-map', 'name'),
    ('NTP_KEY', 'sonic-ntp', 'id'),
    ('MACSEC_PROFILE', 'sonic-macsec', 'name'),
    ('VNET', 'sonic-vnet', 'name'),
    ('FEATURE', 'sonic-feature', 'name'),
)}


def _must(condition, message=None):
    return Invalid(PARSE + (message or 'Must condition "%s" not satisfied.' % condition))


def _family_matches(row, key_values, config):
    """sonic-interface/-loopback-interface/-vlan *_IPPREFIX_LIST family: IPv4 for a dotted prefix, IPv6 for a colon one."""
    family = row.get('family')
    if family is not None:
        prefix = key_values[-1]
        if not ((':' in prefix and family == 'IPv6') or ('.' in prefix and family == 'IPv4')):
            raise _must("(contains(../ip-prefix, ':') and current()='IPv6') or (contains(../ip-prefix, '.') and current()='IPv4')")


def _in_own_list(table, message):
    """The `name` of an *_IPPREFIX_LIST row must also be a row of the table's own list (the interface itself)."""
    def check(row, key_values, config):
        if key_values[0] not in config.get(table, {}):
            raise _must('(current() = ../../%s_LIST[name=current()]/name)' % table, message)
    return check


def _vlanid_matches(row, key_values, config):
    if 'vlanid' in row and str(row['vlanid']) != key_values[0][len('Vlan'):]:
        raise _must("substring-after(../name, 'Vlan') = current()", 'The vlanid must correspond to the VLAN name')


def _vlan_member(row, key_values, config):
    vlan, port = key_values
    if port in config.get('INTERFACE', {}):
        raise _must('not(/intf:sonic-interface/intf:INTERFACE/intf:INTERFACE_LIST[intf:name=current()])',
                    'Port is a router interface.')
    untagged = [key for key, fields in config.get('VLAN_MEMBER', {}).items()
                if key.split('|', 1)[-1] == port and fields.get('tagging_mode') == 'untagged']
    if len(untagged) > 1:
        raise _must("count(../../vlan:VLAN_MEMBER_LIST[vlan:port=current() and vlan:tagging_mode='untagged']) <= 1",
                    'Port can be untagged in at most one VLAN.')


def _mgmt_family(row, key_values, config):
    """sonic-mgmt_interface: ip_prefix and gwaddr must be of one family (both musts need gwaddr to be there)."""
    prefix, gateway = key_values[1], str(row.get('gwaddr', ''))
    if not ((':' in prefix and ':' in gateway) or ('.' in prefix and '.' in gateway)):
        raise _must("(contains(current(), ':') and contains(../gwaddr, ':')) or (contains(current(), '.') and "
                    "contains(../gwaddr, '.'))")


def _mgmt_vrf_enabled(config):
    return str(config.get('MGMT_VRF_CONFIG', {}).get('vrf_global', {}).get('mgmtVrfEnabled', 'false')) == 'true'


def _ntp_vrf(row, key_values, config):
    if row.get('vrf') == 'mgmt' and not _mgmt_vrf_enabled(config):
        raise _must('', 'Must condition not satisfied. Try enable Management VRF.')


def _syslog_server(row, key_values, config):
    if row.get('vrf') == 'mgmt' and not _mgmt_vrf_enabled(config):
        raise _must("(current() != 'mgmt') or (/mvrf:sonic-mgmt_vrf/mvrf:MGMT_VRF_CONFIG/mvrf:vrf_global/mvrf:mgmtVrfEnabled = 'true')")
    if 'source' in row:
        server, source = key_values[0], str(row['source'])
        if not (('.' in source and '.' in server) or (':' in source and ':' in server)):
            raise _must("(contains(current(), '.') and contains(../server_address, '.')) or (contains(current(), ':') "
                        "and contains(../server_address, ':'))")


def _aaa_tacacs_passkey(row, key_values, config):
    if key_values[0] == 'authentication' and 'tacacs+' in str(row.get('login', '')) \
            and not config.get('TACPLUS', {}).get('global', {}).get('passkey'):
        raise _must('', "Authentication with 'tacacs+' is not allowed when passkey not exists.")


def _wred_thresholds(row, key_values, config):
    for colour in ('green', 'yellow', 'red'):
        low, high = row.get('%s_min_threshold' % colour), row.get('%s_max_threshold' % colour)
        if low is not None and high is not None and str(high).isdigit() and str(low).isdigit() and int(high) < int(low):
            raise _must('', '%s max threshold must be greater than or equal to min threshold' % colour.capitalize())


def _scheduler_meter(row, key_values, config):
    cir = int(row['cir']) if str(row.get('cir', '')).isdigit() else 0
    if 'pir' in row and cir <= 0:
        raise _must('((current()/../cir) and (current()/../cir > 0))')
    if 'pir' in row and str(row['pir']).isdigit() and int(row['pir']) < cir:
        raise _must('', 'pir must be greater than or equal to cir')


def _pfcwd(row, key_values, config):
    name = key_values[0]
    if name == 'GLOBAL':
        for field in ('action', 'detection_time', 'restoration_time', 'pfc_stat_history'):
            if field in row:
                raise _must("../ifname != 'GLOBAL'")
        return
    if 'POLL_INTERVAL' in row:
        raise _must("../ifname = 'GLOBAL'")
    poll = config.get('PFC_WD', {}).get('GLOBAL', {}).get('POLL_INTERVAL')
    if poll is not None and str(poll).isdigit():
        for field in ('detection_time', 'restoration_time'):
            if str(row.get(field, '')).isdigit() and int(row[field]) < int(poll):
                raise _must('', '%s must be greater than or equal to POLL_INTERVAL' % field)


def _buffer_pool(row, key_values, config):
    if 'percentage' in row:
        if 'size' in row:
            raise _must('(not(current()/../size))')
        if config.get('DEVICE_METADATA', {}).get('localhost', {}).get('buffer_model') != 'dynamic':
            raise _must('', 'Percentage must be configured in dynamic buffer model')


def _metadata(row, key_values, config):
    if row.get('suppress-fib-pending') == 'enabled' and row.get('synchronous_mode') != 'enable':
        raise _must('', 'ASIC synchronous mode must be enabled in order to enable suppress FIB pending feature')


INTERFACE_LEAVES = {'vrf_name': Leaf(ref='VRF'), 'vnet_name': Leaf(ref='VNET'), 'nat_zone': Leaf(uint(0, 3, 8)),
                    'mpls': Leaf(enum('enable', 'disable')), 'ipv6_use_link_local_only': Leaf(MODE_STATUS),
                    'mac_addr': Leaf(MAC), 'loopback_action': Leaf(pattern(r'drop|forward'))}
IPPREFIX_LEAVES = {'scope': Leaf(enum('global', 'local')), 'family': Leaf(enum('IPv4', 'IPv6'))}
FLEX_GROUPS = ('BUFFER_POOL_WATERMARK', 'DEBUG_COUNTER', 'ENI', 'DASH_METER', 'HA_SET', 'ICMP_SESSION', 'PFCWD',
               'PG_DROP', 'PG_WATERMARK', 'PORT', 'PORT_RATES', 'PORT_BUFFER_DROP', 'PORT_PHY_ATTR', 'QUEUE',
               'QUEUE_WATERMARK', 'RIF', 'RIF_RATES', 'ACL', 'FLOW_CNT_TRAP', 'FLOW_CNT_ROUTE', 'TUNNEL',
               'WRED_ECN_QUEUE', 'WRED_ECN_PORT', 'SWITCH')
FLEX_LEAVES = {'FLEX_COUNTER_STATUS': Leaf(enum('enable', 'disable')), 'FLEX_COUNTER_DELAY_STATUS': Leaf(BOOLEAN_TYPE),
               'POLL_INTERVAL': Leaf(uint(100, 4294967295)), 'BULK_CHUNK_SIZE': Leaf(uint(1, 4294967295)),
               'BULK_CHUNK_SIZE_PER_PREFIX': Leaf(string())}
METADATA_LEAVES = {
    'hwsku': Leaf(string(1, 255)), 'asic_id': Leaf(string(1, 16)), 'default_bgp_status': Leaf(enum('up', 'down')),
    'docker_routing_config_mode': Leaf(pattern(r'separated|unified|split|split-unified')), 'hostname': Leaf(string(1, 63)),
    'platform': Leaf(string(1, 255)), 'mac': Leaf(MAC), 'default_pfcwd_status': Leaf(enum('disable', 'enable')),
    'bgp_asn': Leaf(AS_NUMBER), 'deployment_id': Leaf(uint(0, 4294967295)), 'type': Leaf(pattern(DEVICE_TYPES, 1, 255)),
    'buffer_model': Leaf(pattern(r'dynamic|traditional')), 'frr_mgmt_framework_config': Leaf(BOOLEAN),
    'synchronous_mode': Leaf(enum('enable', 'disable')), 'yang_config_validation': Leaf(MODE_STATUS),
    'subtype': Leaf(pattern(r'DualToR|SmartSwitch|Supervisor|UpstreamLC|DownstreamLC')), 'peer_switch': Leaf(string(1, 63)),
    'storage_device': Leaf(BOOLEAN), 'switch_id': Leaf(uint(0, 65535, 16)), 'max_cores': Leaf(uint(0, 255, 8)),
    'switch_type': Leaf(pattern(r'chassis-packet|fabric|npu|voq|dpu|dummy-sup')), 'dhcp_server': Leaf(ADMIN_MODE),
    'bgp_adv_lo_prefix_as_128': Leaf(BOOLEAN), 'suppress-fib-pending': Leaf(enum('enabled', 'disabled')),
    'rack_mgmt_map': Leaf(string(0, 128)), 'timezone': Leaf(string(1, 255)), 'create_only_config_db_buffers': Leaf(BOOLEAN),
    'supporting_bulk_counter_groups': Leaf(many=True), 'bgp_router_id': Leaf(IPV4_ADDRESS),
    'chassis_hostname': Leaf(string(1, 63)), 'nexthop_group': Leaf(enum('enabled', 'disabled')),
    'ring_thread_enabled': Leaf(BOOLEAN), 't2_group_asns': Leaf(AS_NUMBER, many=True), 'anchor_route_source': Leaf(many=True),
    'orch_northbond_dash_zmq_enabled': Leaf(BOOLEAN), 'syslog_with_osversion': Leaf(BOOLEAN), 'syslog_counter': Leaf(BOOLEAN),
    'has_sonic_dhcpv4_relay': Leaf(BOOLEAN_TYPE), 'zebra_nexthop': Leaf(enum('enabled', 'disabled')),
    'use_template_render_for_restore': Leaf(BOOLEAN), 'dpu_auto_recovery': Leaf(enum('enable', 'disable')),
    **{name: Leaf() for name in ('cloudtype', 'region', 'sub_role', 'downstream_subrole', 'resource_type', 'mgmt_type',
                                 'cluster', 'asic_name', 'slice_type', 'location_type')},
}


def _map(table, key_kind, value_kind, key_name, value_name):
    """The QoS maps: a named list whose inner list is keyed by the field names (sonic-dscp-tc-map & co)."""
    return {'list': List(table + '_LIST', [('name', MAP_NAME)], inner=(key_kind, value_kind, key_name, value_name))}


PG_OR_PRIORITY = pattern(r'[0-7]?')
TABLES = {
    # sonic-port.yang
    'PORT': {'list': List('PORT_LIST', [('name', string(1, 128))], {
        'core_id': Leaf(string(1, 16)), 'core_port_id': Leaf(string(1, 16)), 'num_voq': Leaf(string(1, 16)),
        'alias': Leaf(string(1, 128)), 'lanes': Leaf(string(1, 128), mandatory=True),
        'mode': Leaf(pattern(r'routed|access|trunk')), 'description': Leaf(string(0, 255)),
        'speed': Leaf(uint(1, 1600000), mandatory=True), 'dhcp_rate_limit': Leaf(uint(0, 4294967295)),
        'link_training': Leaf(pattern(r'on|off')), 'autoneg': Leaf(pattern(r'on|off')), 'adv_speeds': Leaf(many=True),
        'interface_type': Leaf(), 'adv_interface_types': Leaf(many=True), 'mtu': Leaf(uint(68, 9216, 16)),
        'subport': Leaf(uint(0, 8, 8)), 'index': Leaf(uint(0, 65535, 16)), 'asic_port_name': Leaf(),
        'role': Leaf(pattern(r'Ext|Int|Inb|Rec|Dpc')), 'admin_status': Leaf(ADMIN_STATUS),
        'fec': Leaf(pattern(r'rs|fc|none|auto')), 'dom_polling': Leaf(ADMIN_MODE), 'pfc_asym': Leaf(pattern(r'on|off')),
        'tpid': Leaf(pattern(r'0x8100|0x9100|0x9200|0x88a8|0x88A8')), 'mux_cable': Leaf(BOOLEAN),
        'macsec': Leaf(ref='MACSEC_PROFILE'), 'tx_power': Leaf(), 'laser_freq': Leaf(integer(-2 ** 31, 2 ** 31 - 1)),
        'fast_linkup': Leaf(BOOLEAN)})},
    # sonic-interface.yang
    'INTERFACE': {
        1: List('INTERFACE_LIST', [('name', Leaf(ref='PORT'))], INTERFACE_LEAVES),
        2: List('INTERFACE_IPPREFIX_LIST', [('name', Leaf(ref='PORT')), ('ip-prefix', IP_PREFIX)], IPPREFIX_LEAVES,
                checks=(_in_own_list('INTERFACE', "Must condition not satisfied, Try adding PORT: {}, Example: "
                                                  "'Ethernet0': {}"), _family_matches))},
    # sonic-loopback-interface.yang
    'LOOPBACK_INTERFACE': {
        1: List('LOOPBACK_INTERFACE_LIST', [('name', string(1, 15))], {
            'vrf_name': Leaf(ref='VRF'), 'nat_zone': Leaf(uint(0, 3, 8)), 'admin_status': Leaf(ADMIN_STATUS)}),
        2: List('LOOPBACK_INTERFACE_IPPREFIX_LIST', [('name', Leaf(ref='LOOPBACK_INTERFACE')), ('ip-prefix', IP_PREFIX)],
                IPPREFIX_LEAVES, checks=(_family_matches,))},
    # sonic-vlan.yang
    'VLAN': {'list': List('VLAN_LIST', [
        ('name', pattern(r'Vlan(409[0-5]|40[0-8][0-9]|[1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[2-9])'))], {
        'vlanid': Leaf(uint(2, 4094, 16)), 'alias': Leaf(), 'description': Leaf(string(1, 255)),
        'dhcp_servers': Leaf(IP_ADDRESS, many=True), 'dhcpv6_servers': Leaf(many=True), 'mtu': Leaf(uint(1, 9216, 16)),
        'admin_status': Leaf(ADMIN_STATUS), 'mac': Leaf(MAC)}, checks=(_vlanid_matches,))},
    'VLAN_INTERFACE': {
        1: List('VLAN_INTERFACE_LIST', [('name', Leaf(ref='VLAN'))], dict(
            INTERFACE_LEAVES, grat_arp=Leaf(pattern(r'enabled|disabled')), proxy_arp=Leaf(pattern(r'enabled|disabled')),
            static_anycast_gateway=Leaf(BOOLEAN_TYPE))),
        2: List('VLAN_INTERFACE_IPPREFIX_LIST', [('name', Leaf(ref='VLAN')), ('ip-prefix', IP_PREFIX)],
                dict(IPPREFIX_LEAVES, secondary=Leaf(BOOLEAN)),
                checks=(_in_own_list('VLAN_INTERFACE', "Must condition not satisfied, Try adding Vlan<vlanid>: {}, "
                                                       "Example: 'Vlan100': {}"), _family_matches))},
    'VLAN_MEMBER': {'list': List('VLAN_MEMBER_LIST', [('name', Leaf(ref='VLAN')),
                                                      ('port', Leaf(ref='PORT', refs=('PORTCHANNEL',)))], {
        'tagging_mode': Leaf(enum('tagged', 'untagged', 'priority_tagged'), mandatory=True)}, checks=(_vlan_member,))},
    # sonic-vrf.yang
    'VRF': {'list': List('VRF_LIST', [('name', pattern(r'Vrf[a-zA-Z0-9_-]+', 1, 15))], {
        'fallback': Leaf(BOOLEAN), 'vni': Leaf(uint(0, 16777215))})},
    # sonic-vxlan.yang (VXLAN_TUNNEL_MAP.vlan is a pattern, its leafref to VLAN is commented out in the model)
    'VXLAN_TUNNEL': {'list': List('VXLAN_TUNNEL_LIST', [('name', string())], {
        'src_ip': Leaf(IP_ADDRESS), 'dst_ip': Leaf(IP_ADDRESS), 'ttl_mode': Leaf(pattern(r'uniform|pipe'))})},
    'VXLAN_TUNNEL_MAP': {'list': List('VXLAN_TUNNEL_MAP_LIST', [('name', Leaf(ref='VXLAN_TUNNEL')), ('mapname', string())], {
        'vlan': Leaf(pattern(r'Vlan([0-9]{1,3}|[1-3][0-9]{3}|[4][0][0-8][0-9]|[4][0][9][0-4])'), mandatory=True),
        'vni': Leaf(uint(1, 16777215), mandatory=True)})},
    'VXLAN_EVPN_NVO': {'list': List('VXLAN_EVPN_NVO_LIST', [('name', string())], {
        'source_vtep': Leaf(ref='VXLAN_TUNNEL', mandatory=True)})},
    # sonic-device_metadata.yang, sonic-device_neighbor.yang (the DEVICE_NEIGHBOR key is a plain string)
    'DEVICE_METADATA': {'localhost': Container(METADATA_LEAVES, checks=(_metadata,)),
                        'bmc': Container({'bmc_if_name': Leaf(string(1, 64)), 'bmc_if_addr': Leaf(IPV4_ADDRESS),
                                          'bmc_addr': Leaf(IPV4_ADDRESS), 'bmc_net_mask': Leaf(IPV4_ADDRESS)})},
    'DEVICE_NEIGHBOR': {'list': List('DEVICE_NEIGHBOR_LIST', [('peer_name', string(1, 255))], {
        'name': Leaf(string(1, 255)), 'mgmt_addr': Leaf(IP_ADDRESS), 'local_port': Leaf(ref='PORT'),
        'port': Leaf(string(1, 255)), 'type': Leaf(string(1, 255))})},
    # sonic-mgmt_port.yang, sonic-mgmt_interface.yang, sonic-mgmt_vrf.yang
    'MGMT_PORT': {'list': List('MGMT_PORT_LIST', [('name', pattern(r'eth([1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[0-9])'))], {
        'speed': Leaf(one_of(10, 100, 1000)), 'autoneg': Leaf(pattern(r'on|off')), 'alias': Leaf(), 'description': Leaf(),
        'mtu': Leaf(uint(1500, 9216, 16)), 'admin_status': Leaf(ADMIN_STATUS)})},
    'MGMT_INTERFACE': {'list': List('MGMT_INTERFACE_LIST', [('name', Leaf(ref='MGMT_PORT')), ('ip_prefix', IP_PREFIX)], {
        'gwaddr': Leaf(IP_ADDRESS), 'forced_mgmt_routes': Leaf(many=True)}, checks=(_mgmt_family,))},
    'MGMT_VRF_CONFIG': {'vrf_global': Container({'mgmtVrfEnabled': Leaf(BOOLEAN)})},
    # sonic-ntp.yang
    'NTP': {'global': Container({
        'src_intf': Leaf(many=True, ref='PORT', refs=('PORTCHANNEL', 'LOOPBACK_INTERFACE', 'MGMT_PORT', 'eth0')),
        'vrf': Leaf(pattern(r'mgmt|default')), 'authentication': Leaf(ADMIN_MODE), 'dhcp': Leaf(ADMIN_MODE),
        'server_role': Leaf(ADMIN_MODE), 'admin_state': Leaf(ADMIN_MODE)}, checks=(_ntp_vrf,))},
    'NTP_SERVER': {'list': List('NTP_SERVER_LIST', [('server_address', HOST)], {
        'association_type': Leaf(enum('server', 'pool')), 'iburst': Leaf(ON_OFF), 'key': Leaf(ref='NTP_KEY'),
        'resolve_as': Leaf(HOST), 'admin_state': Leaf(ADMIN_MODE), 'trusted': Leaf(enum('yes', 'no')),
        'version': Leaf(uint(3, 4, 8))})},
    # sonic-syslog.yang, sonic-dns.yang, sonic-system-tacacs.yang, sonic-system-aaa.yang
    'SYSLOG_SERVER': {'list': List('SYSLOG_SERVER_LIST', [('server_address', HOST)], {
        'source': Leaf(IP_ADDRESS), 'port': Leaf(PORT_NUMBER), 'vrf': Leaf(ref='VRF', refs=('default', 'mgmt')),
        'filter': Leaf(enum('include', 'exclude')), 'filter_regex': Leaf(pattern(r'[^\n\r]+')),
        'protocol': Leaf(enum('tcp', 'udp')),
        'severity': Leaf(enum('none', 'debug', 'info', 'notice', 'warn', 'error', 'crit'))}, checks=(_syslog_server,))},
    'DNS_NAMESERVER': {'list': List('DNS_NAMESERVER_LIST', [('ip', IP_ADDRESS)], {})},
    'TACPLUS_SERVER': {'list': List('TACPLUS_SERVER_LIST', [('ipaddress', HOST)], {
        'priority': Leaf(uint(1, 64, 8)), 'tcp_port': Leaf(PORT_NUMBER), 'timeout': Leaf(uint(1, 60, 16)),
        'auth_type': Leaf(enum('pap', 'chap', 'mschap', 'login')), 'key_encrypt': Leaf(BOOLEAN),
        'passkey': Leaf(pattern(r'[^ #,]*', 1, 256)), 'vrf': Leaf(pattern(r'mgmt|default'))})},
    'TACPLUS': {'global': Container({
        'auth_type': Leaf(enum('pap', 'chap', 'mschap', 'login')), 'timeout': Leaf(uint(1, 60, 16)),
        'key_encrypt': Leaf(BOOLEAN), 'passkey': Leaf(pattern(r'[^ #,]*', 1, 256)), 'src_intf': Leaf()})},
    'AAA': {'list': List('AAA_LIST', [('type', enum('authentication', 'authorization', 'accounting'))], {
        'login': Leaf(pattern(r'((ldap|tacacs\+|local|radius|default),)*(ldap|tacacs\+|local|radius|default)')),
        'failthrough': Leaf(BOOLEAN_TYPE), 'fallback': Leaf(BOOLEAN_TYPE), 'debug': Leaf(BOOLEAN_TYPE),
        'trace': Leaf(BOOLEAN_TYPE)}, checks=(_aaa_tacacs_passkey,))},
    # sonic-dscp-tc-map.yang, sonic-tc-priority-group-map.yang, sonic-tc-queue-map.yang,
    # sonic-pfc-priority-queue-map.yang, sonic-pfc-priority-priority-group-map.yang
    'DSCP_TO_TC_MAP': _map('DSCP_TO_TC_MAP', pattern(r'6[0-3]|[1-5][0-9]?|[0-9]?'), uint(0, 15, 8), 'dscp', 'tc'),
    'TC_TO_PRIORITY_GROUP_MAP': _map('TC_TO_PRIORITY_GROUP_MAP', uint(0, 15, 8), PG_OR_PRIORITY, 'tc', 'pg'),
    'TC_TO_QUEUE_MAP': _map('TC_TO_QUEUE_MAP', uint(0, 15, 8), pattern(r'[0-9]?'), 'tc', 'qindex'),
    'MAP_PFC_PRIORITY_TO_QUEUE': _map('MAP_PFC_PRIORITY_TO_QUEUE', PG_OR_PRIORITY, PG_OR_PRIORITY, 'pfc_priority', 'qindex'),
    'PFC_PRIORITY_TO_PRIORITY_GROUP_MAP': _map('PFC_PRIORITY_TO_PRIORITY_GROUP_MAP', PG_OR_PRIORITY, PG_OR_PRIORITY,
                                               'pfc_priority', 'pg'),
    # sonic-port-qos-map.yang (key: a PORT or "global")
    'PORT_QOS_MAP': {'list': List('PORT_QOS_MAP_LIST', [('ifname', Leaf(ref='PORT', refs=('global',)))], {
        'tc_to_pg_map': Leaf(ref='TC_TO_PRIORITY_GROUP_MAP'), 'tc_to_queue_map': Leaf(ref='TC_TO_QUEUE_MAP'),
        'pfc_enable': Leaf(pattern(r'([0-7](,[0-7])*)?')), 'pfcwd_sw_enable': Leaf(pattern(r'([0-7](,[0-7])*)?')),
        'pfc_to_queue_map': Leaf(ref='MAP_PFC_PRIORITY_TO_QUEUE'),
        'pfc_to_pg_map': Leaf(ref='PFC_PRIORITY_TO_PRIORITY_GROUP_MAP'), 'dscp_to_tc_map': Leaf(ref='DSCP_TO_TC_MAP'),
        'tc_to_dscp_map': Leaf(ref='TC_TO_DSCP_MAP'), 'dot1p_to_tc_map': Leaf(ref='DOT1P_TO_TC_MAP'),
        'scheduler': Leaf(ref='SCHEDULER')})},
    # sonic-scheduler.yang, sonic-wred-profile.yang, sonic-queue.yang (QUEUE: a PORT or "CPU", qindex a string)
    'SCHEDULER': {'list': List('SCHEDULER_LIST', [('name', string())], {
        'type': Leaf(enum('DWRR', 'WRR', 'STRICT')), 'weight': Leaf(uint(1, 100, 8)), 'priority': Leaf(uint(0, 9, 8)),
        'meter_type': Leaf(enum('packets', 'bytes')), 'cir': Leaf(uint(0, 2 ** 64 - 1, 64)),
        'pir': Leaf(uint(0, 2 ** 64 - 1, 64)), 'cbs': Leaf(uint(0, 4294967295)), 'pbs': Leaf(uint(0, 4294967295))},
        checks=(_scheduler_meter,))},
    'WRED_PROFILE': {'list': List('WRED_PROFILE_LIST', [('name', MAP_NAME)], dict(
        {'%s_%s_threshold' % (colour, end): Leaf(uint(0, 2 ** 64 - 1, 64))
         for colour in ('green', 'yellow', 'red') for end in ('min', 'max')},
        **{'wred_%s_enable' % colour: Leaf(BOOLEAN) for colour in ('green', 'yellow', 'red')},
        **{'%s_drop_probability' % colour: Leaf(uint(0, 100, 64)) for colour in ('green', 'yellow', 'red')},
        ecn=Leaf(enum('ecn_none', 'ecn_green', 'ecn_yellow', 'ecn_red', 'ecn_green_yellow', 'ecn_green_red',
                      'ecn_yellow_red', 'ecn_all'))), checks=(_wred_thresholds,))},
    'QUEUE': {'list': List('QUEUE_LIST', [('ifname', Leaf(ref='PORT', refs=('CPU',))), ('qindex', string())], {
        'scheduler': Leaf(ref='SCHEDULER'), 'wred_profile': Leaf(ref='WRED_PROFILE')})},
    # sonic-pfcwd.yang
    'PFC_WD': {'list': List('PFC_WD_LIST', [('ifname', Leaf(ref='PORT', refs=('GLOBAL',)))], {
        'action': Leaf(enum('drop', 'forward', 'alert')), 'detection_time': Leaf(uint(100, 5000)),
        'restoration_time': Leaf(uint(100, 60000)), 'pfc_stat_history': Leaf(pattern(r'enable|disable')),
        'POLL_INTERVAL': Leaf(uint(100, 1000))}, checks=(_pfcwd,))},
    # sonic-buffer-pool.yang, sonic-buffer-profile.yang, sonic-buffer-pg.yang, sonic-buffer-queue.yang,
    # sonic-buffer-port-ingress-profile-list.yang, sonic-buffer-port-egress-profile-list.yang, sonic-cable-length.yang
    'BUFFER_POOL': {'list': List('BUFFER_POOL_LIST', [('name', string())], {
        'type': Leaf(enum('ingress', 'egress', 'both'), mandatory=True), 'mode': Leaf(enum('static', 'dynamic'), mandatory=True),
        'size': Leaf(uint(0, 2 ** 64 - 1, 64)), 'xoff': Leaf(uint(0, 2 ** 64 - 1, 64)), 'percentage': Leaf(uint(0, 255, 8))},
        checks=(_buffer_pool,))},
    'BUFFER_PROFILE': {'list': List('BUFFER_PROFILE_LIST', [('name', string())], {
        'static_th': Leaf(uint(0, 2 ** 64 - 1, 64)), 'dynamic_th': Leaf(integer(-8, 7)),
        'size': Leaf(uint(0, 2 ** 64 - 1, 64), mandatory=True), 'pool': Leaf(ref='BUFFER_POOL', mandatory=True),
        'xon_offset': Leaf(uint(0, 2 ** 64 - 1, 64)), 'xon': Leaf(uint(0, 2 ** 64 - 1, 64)),
        'xoff': Leaf(uint(0, 2 ** 64 - 1, 64)), 'headroom_type': Leaf(enum('static', 'dynamic')),
        'packet_discard_action': Leaf(enum('drop', 'trim'))})},
    'BUFFER_PG': {'list': List('BUFFER_PG_LIST', [('port', Leaf(ref='PORT')), ('pg_num', pattern(r'[0-7]((-)[0-7])?'))], {
        'profile': Leaf(ref='BUFFER_PROFILE', refs=('NULL',))})},
    'BUFFER_QUEUE': {'list': List('BUFFER_QUEUE_LIST', [
        ('port', Leaf(ref='PORT')), ('qindex', pattern(r'(1[0-5]|[0-9])((-)(1[0-5]|[0-9]))?'))], {
        'profile': Leaf(ref='BUFFER_PROFILE')})},
    'BUFFER_PORT_INGRESS_PROFILE_LIST': {'list': List('BUFFER_PORT_INGRESS_PROFILE_LIST_LIST', [('port', Leaf(ref='PORT'))], {
        'profile_list': Leaf(ref='BUFFER_PROFILE', many=True)})},
    'BUFFER_PORT_EGRESS_PROFILE_LIST': {'list': List('BUFFER_PORT_EGRESS_PROFILE_LIST_LIST', [('port', Leaf(ref='PORT'))], {
        'profile_list': Leaf(ref='BUFFER_PROFILE', many=True)})},
    # sonic-default-lossless-buffer-parameter.yang, sonic-lossless-traffic-pattern.yang (the dynamic buffer model)
    'DEFAULT_LOSSLESS_BUFFER_PARAMETER': {'list': List('DEFAULT_LOSSLESS_BUFFER_PARAMETER_LIST', [('name', MAP_NAME)], {
        'default_dynamic_th': Leaf(integer(-8, 7)), 'over_subscribe_ratio': Leaf(uint(0, 65535, 16))})},
    'LOSSLESS_TRAFFIC_PATTERN': {'list': List('LOSSLESS_TRAFFIC_PATTERN_LIST', [('name', MAP_NAME)], {
        'mtu': Leaf(uint(1, 9216, 16)), 'small_packet_percentage': Leaf(uint(0, 100, 8))})},
    'CABLE_LENGTH': {'list': List('CABLE_LENGTH_LIST', [('name', MAP_NAME)],
                                  inner=(Leaf(ref='PORT'), pattern(r'[0-9]+m'), 'port', 'length'))},
    # sonic-hash.yang, sonic-flex_counter.yang, sonic-breakout_cfg.yang (port: a string, deliberately no leafref)
    'SWITCH_HASH': {'GLOBAL': Container({'ecmp_hash': Leaf(enum(*HASH_FIELDS), many=True),
                                         'lag_hash': Leaf(enum(*HASH_FIELDS), many=True),
                                         'ecmp_hash_algorithm': Leaf(enum(*HASH_ALGORITHMS)),
                                         'lag_hash_algorithm': Leaf(enum(*HASH_ALGORITHMS))})},
    'FLEX_COUNTER_TABLE': {group: Container(FLEX_LEAVES) for group in FLEX_GROUPS},
    'BREAKOUT_CFG': {'list': List('BREAKOUT_CFG_LIST', [('port', string(1, 255))], {'brkout_mode': Leaf(string(1, 64))})},
}


def _values(value, many):
    """A leaf-list is a JSON list or, as ConfigDB stores it, one comma-separated string."""
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value).split(',') if many else [str(value)]


def _check_leaf(name, leaf, value, config, stage):
    """Stage 'types': the value's type (libyang parses it); stage 'refs': its leafref (libyang validates the tree)."""
    for item in _values(value, leaf.many):
        tables = [ref for ref in leaf.refs if ref in REF_PATH]
        literals = [ref for ref in leaf.refs if ref not in REF_PATH]
        if stage == 'types':
            referenced = any(item in config.get(table, {}) for table in tables)
            if leaf.kind is not None and not (leaf.refs and (item in literals or referenced)):
                leaf.kind.check(item, name)
        elif tables and leaf.kind is None and item not in literals and not any(item in config.get(table, {})
                                                                               for table in tables):
            raise Invalid(PARSE + 'Invalid leafref value "%s" - no target instance "%s" with the same value.'
                          % (item, REF_PATH[tables[0]]))


def _check_row(table, model, row, key_values, config, stage):
    if not isinstance(row, dict):
        raise Invalid(PARSE + 'Node "%s" not found as a child of "%s" node.' % (row, table))
    for (name, kind), value in zip(model.keys, key_values):
        _check_leaf(name, kind if isinstance(kind, Leaf) else Leaf(kind), value, config, stage)
    if model.inner:  # a list of lists: every field of the row is an inner key with its value
        key_kind, value_kind, key_name, value_name = model.inner
        for field, value in row.items():
            _check_leaf(key_name, key_kind if isinstance(key_kind, Leaf) else Leaf(key_kind), field, config, stage)
            if stage == 'types':
                value_kind.check(value, value_name)
        return
    for field, value in row.items():
        if field not in model.leaves:
            raise Invalid(PARSE + 'Node "%s" not found as a child of "%s" node.' % (field, model.name))
        _check_leaf(field, model.leaves[field], value, config, stage)
    if stage == 'refs':
        for field, leaf in model.leaves.items():
            if leaf.mandatory and field not in row:
                raise Invalid(PARSE + 'Mandatory node "%s" instance does not exist.' % field)
        for check in model.checks:
            check(row, key_values, config)


def _rows(config):
    """(table, model, row, key values) of every row of a modelled table."""
    for table in sorted(config):
        spec = TABLES.get(table)
        rows = config[table]
        if spec is None or not isinstance(rows, dict):
            continue
        for key in sorted(rows):
            if 'list' in spec or 1 in spec:
                parts = key.split('|')
                model = spec.get('list') or spec.get(len(parts))
                if model is None or len(parts) != len(model.keys):
                    raise Invalid(PARSE + 'List instance is missing its key "%s".' % (
                        model.keys[min(len(parts), len(model.keys) - 1)][0] if model else key))
                yield table, model, rows[key], parts
            else:
                if key not in spec:
                    raise Invalid(PARSE + 'Node "%s" not found as a child of "%s" node.' % (key, table))
                yield table, List(key, [], spec[key].leaves, spec[key].checks), rows[key], [key]


def validate(config):
    """Raise Invalid (libyang's message) for the first problem YANG finds: the values' types as the data is parsed,
    then leafrefs, mandatory leaves and must conditions as the tree is validated."""
    for stage in ('types', 'refs'):
        for table, model, row, key_values in _rows(config):
            _check_row(table, model, row, key_values, config, stage)


def validate_lanes(config):
    """GCU's supplemental check (gu_common.py ConfigWrapper.validate_lanes): every lane a number, each lane used by one
    port only (except on the few platforms listed there). Returns the error text or None."""
    seen = {}
    platform = config.get('DEVICE_METADATA', {}).get('localhost', {}).get('platform')
    shared_lanes = platform in ('x86_64-arista_7050cx3_32c', 'x86_64-arista_7050cx3_32s', 'x86_64-dellemc_s5232f_c3538-r0')
    for port, fields in config.get('PORT', {}).items():
        if 'lanes' not in fields:
            continue
        for lane in (item.strip() for item in str(fields['lanes']).split(',')):
            if not lane:
                return "PORT '%s' has an empty lane" % port
            if not lane.isdigit():
                return "PORT '%s' has an invalid lane '%s'" % (port, lane)
            if not shared_lanes:
                if lane in seen:
                    return "'%s' lane is used multiple times in PORT: %s" % (lane, {port, seen[lane]})
                seen[lane] = port
    return None
