"""SONiC's generic config updater (GCU) as `config replace`, `config apply-patch` and `config rollback` run it, in the
order sonic-utilities does (generic_config_updater/generic_updater.py PatchApplier.apply and ConfigReplacer.replace,
patch_sorter.py StrictPatchSorter.sort, gu_common.py ConfigWrapper):

 1. the patch is the JSON diff of the running and the target config, made with the library GCU uses for it
    (python-json-patch `JsonPatch.from_diff`: add, remove, replace, and `move` for a value removed in one place and
    added in another);
 2. field-operation validation (gu_common.py validate_field_operation): removing /PFC_WD/GLOBAL,
    /PFC_WD/GLOBAL/POLL_INTERVAL or /LOOPBACK_INTERFACE/Loopback0 is illegal; each patch element touching PFC_WD,
    BUFFER_POOL, BUFFER_PROFILE or PORT goes through that table's validators
    (gcu_field_operation_validators.conf.json, field_operation_validators.py);
 3. no table of the target may be empty;
 4. a patch may change only tables that have a YANG model;
 5. the target must load against the YANG models (sonic_yang.validate) and pass validate_lanes.

Our own implementation of those rules; the data tables (which HwSKU is which ASIC, from which release a validator
allows a change) are the entries of gcu_field_operation_validators.conf.json for the switch models this project ships
and their siblings (sonic-utilities @ 691b1bbc4f).
"""

from __future__ import annotations

import re

import jsonpatch
import jsonpointer

from tests.unit.platforms.sonic.double import yang as sonic_yang

# helper_data.rdma_config_update_validator: HwSKU -> ASIC (Mellanox: exact name, Broadcom: the name is contained in the
# switch's HwSKU; field_operation_validators.py get_asic_name).
MELLANOX_ASICS = {
    'spc3': ('ACS-MSN4700', 'ACS-MSN4600', 'ACS-MSN4600C', 'ACS-MSN4410', 'Mellanox-SN4700-O8C48', 'Mellanox-SN4700-O32',
             'Mellanox-SN4700-V64', 'Mellanox-SN4700-C128'),
    'spc4': ('ACS-SN5600', 'Mellanox-SN5600-O128', 'Mellanox-SN5600-V256', 'Mellanox-SN5600-C256S1', 'ACS-SN5400',
             'Mellanox-SN5600-C224O8'),
    'spc5': ('ACS-SN5640', 'Mellanox-SN5640-C512S2'),
}
BROADCOM_ASICS = {
    'th4': ('Nokia-IXR7220-H4-64D', 'Nokia-IXR7220-H4-32D'),
    'th5': ('Nokia-IXR7220-H5-64D', 'Arista-7060X6-64DE', 'Arista-7060X6-64PE', 'Nokia-IXR7220-H5-64O',
            'Nokia-IXR7220-H5-32D'),
    'td3': ('Arista-7050CX3-32C-C32', 'Arista-7050CX3-32S-C32'),
}
# tables.<TABLE>.validator_data.rdma_config_update_validator: scenario -> fields, operations, first release per ASIC.
PFCWD_RELEASES = {'spc3': '20220500', 'spc4': '20221100', 'spc5': '20241200', 'th4': '20240500', 'th5': '20240500',
                  'td3': '20201200'}
RDMA_SCENARIOS = {
    'PFC_WD': [(('restoration_time', 'detection_time', 'action', 'global/poll_interval', 'pfc_stat_history', ''),
                ('remove', 'add', 'replace'), PFCWD_RELEASES)],
    'BUFFER_POOL': [((), (), {})],  # "Shared/headroom pool size changes": no field, no operation, no platform
    'BUFFER_PROFILE': [(('dynamic_th',), ('replace',), PFCWD_RELEASES),
                       (('xoff',), ('replace',), PFCWD_RELEASES),
                       (('packet_discard_action',), ('add', 'replace'),
                        {'spc4': '20241200', 'spc5': '20241200', 'th5': '20241200'})],
}
ILLEGAL_REMOVALS = ('/PFC_WD/GLOBAL/POLL_INTERVAL', '/PFC_WD/GLOBAL', '/LOOPBACK_INTERFACE/Loopback0')
VALIDATOR = 'generic_config_updater.field_operation_validators.%s'


class Refused(ValueError):
    """What GCU raises; the message is GCU's."""


def asic_of(facts, running):
    """field_operation_validators.py get_asic_name: from the image's asic_type and CONFIG_DB's hwsku."""
    asic_type = facts.get('asic_type', 'broadcom')
    hwsku = str(running.get('DEVICE_METADATA', {}).get('localhost', {}).get('hwsku', '')).lower()
    if asic_type in ('mellanox', 'vs'):
        for asic, skus in MELLANOX_ASICS.items():
            if hwsku in (sku.lower() for sku in skus):
                return asic
    if asic_type in ('broadcom', 'vs'):
        for asic, skus in BROADCOM_ASICS.items():
            if any(sku.lower() in hwsku for sku in skus):
                return asic
    return 'unknown'


def branch_version(facts):
    """The 8-digit part of sonic_version.yml build_version (e.g. 20231110 of 20231110.22), None on a community build."""
    parts = [part for part in str(facts.get('build_version', '')).split('.') if re.fullmatch(r'\d{8}', part)]
    return parts[-1] if parts else None


def _fields(element, remove_port):
    """The fields a patch element touches, as rdma_config_update_validator_common names them."""
    parts = jsonpointer.JsonPointer(element['path']).parts[1:]
    if remove_port:
        parts = [part for part in parts if not any(char.isdigit() for char in part)]
    base = '/'.join(parts).lower()
    value = element.get('value')
    if isinstance(value, dict):
        return [base + '/' + key if base else key for key in value]
    return [base]


def _rdma_allowed(table, element, asic, branch, exact, remove_port):
    if asic == 'unknown':
        return False
    for field in _fields(element, remove_port):
        scenario = None
        for fields, operations, platforms in RDMA_SCENARIOS[table]:
            if any((field == known) if exact else (field.rsplit('/', maxsplit=1)[-1] == known) for known in fields):
                scenario = (operations, platforms)
                break
        if scenario is None or not scenario[1].get(asic) or element['op'] not in scenario[0]:
            return False
        if branch is not None and branch < scenario[1][asic]:
            return False
    return True


def _buffer_profile_allowed(element, asic, branch):
    if len(jsonpointer.JsonPointer(element['path']).parts) == 2:  # a whole profile: add, remove, replace
        return element['op'] in ('add', 'remove', 'replace')
    return _rdma_allowed('BUFFER_PROFILE', element, asic, branch, exact=False, remove_port=False)


def _port_allowed(element, facts):
    """port_config_update_validator: speed and fec only to values the port supports (STATE_DB supported_speeds /
    supported_fecs; the default FEC list when the port lists none)."""
    if element['op'] == 'remove':
        return True
    supported_fecs = facts.get('supported_fecs') or ['rs', 'fc', 'none', 'auto']
    value = element.get('value')
    rows = []
    if element['path'].endswith(('/fec', '/speed')):
        rows.append({element['path'].rsplit('/', 1)[1]: value})
    elif isinstance(value, dict):
        rows.extend([value] if {'fec', 'speed'} & set(value) else
                    [row for row in value.values() if isinstance(row, dict)])
    for row in rows:
        if 'fec' in row and str(row['fec']).strip() not in supported_fecs:
            return False
        speeds = facts.get('supported_speeds')
        if 'speed' in row and speeds and (not str(row['speed']).isdigit() or int(row['speed']) not in speeds):
            return False
    return True


def check_field_operations(running, target, facts):
    """gu_common.py ConfigWrapper.validate_field_operation. Raises Refused."""
    patch = list(jsonpatch.JsonPatch.from_diff(running, target))
    for path in ILLEGAL_REMOVALS:
        if any(element['op'] == 'remove' and element['path'] == path for element in patch):
            raise Refused('Given patch operation is invalid. Operation: remove is illegal on field: %s' % path)
    asic, branch = asic_of(facts, running), branch_version(facts)
    for element in patch:
        table = jsonpointer.JsonPointer(element['path']).parts[0]
        if table == 'PFC_WD':
            allowed, name = _rdma_allowed(table, element, asic, branch, exact=True, remove_port=True), 'rdma_config_update_validator'
        elif table == 'BUFFER_POOL':
            allowed, name = _rdma_allowed(table, element, asic, branch, exact=True, remove_port=True), 'rdma_config_update_validator'
        elif table == 'BUFFER_PROFILE':
            allowed, name = _buffer_profile_allowed(element, asic, branch), 'buffer_profile_config_update_validator'
        elif table == 'PORT':
            allowed, name = _port_allowed(element, facts), 'port_config_update_validator'
        else:
            continue
        if not allowed:
            raise Refused('Modification of %s table is illegal- validating function %s returned False'
                          % (table, VALIDATOR % name))
    return patch


def check_target(running, target, facts):
    """Everything `config replace TARGET` checks before it changes anything. Returns the patch; raises Refused."""
    patch = check_field_operations(running, target, facts)
    empty = sorted(table for table, rows in target.items() if isinstance(rows, dict) and not rows)
    if empty:
        raise Refused('localhost: given patch is not valid because it will result in empty tables which is not allowed '
                      'in ConfigDb. Table%s: %s' % ('s' if len(empty) != 1 else '', ', '.join(empty)))
    changed = {jsonpointer.JsonPointer(element['path']).parts[0] for element in patch if element['path'] != ''}
    changed |= {jsonpointer.JsonPointer(element['from']).parts[0] for element in patch if 'from' in element}
    if changed - sonic_yang.YANG_TABLES:
        raise Refused('Given patch is not valid because it has changes to tables without YANG models')
    cropped = {table: rows for table, rows in target.items() if table in sonic_yang.YANG_TABLES}
    try:
        sonic_yang.validate(cropped)
    except sonic_yang.Invalid as error:
        raise Refused('Given patch will produce invalid config. Error: Data Loading Failed\n%s' % error) from None
    lanes = sonic_yang.validate_lanes(cropped)
    if lanes:
        raise Refused('Given patch will produce invalid config. Error: %s' % lanes)
    return patch


def apply_patch(document, operations):
    """`config apply-patch`: the RFC 6902 patch applied to the running config (python-json-patch, as GCU's
    PatchWrapper.simulate_patch does)."""
    try:
        return jsonpatch.JsonPatch(operations).apply(document)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as error:
        raise Refused(str(error)) from None
