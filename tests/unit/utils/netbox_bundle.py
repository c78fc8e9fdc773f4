# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A NetBox import bundle checked as NetBox would take it, without NetBox: problems(files) -> list of sentences.

The forms are tests/unit/fixtures/netbox/import-forms.json, what scripts/netbox-import-forms.py read from a running
NetBox 4.6.8 (commit 43fe81f9e833228c9869f7ddadb67e6c5f145060). The rules beyond the forms are NetBox's own, each
named with the file that holds it at that commit:
- CSV: the first row names the columns, a `field.attribute` header names a related object by another attribute, every
  row has as many cells as the header, cells are stripped (netbox/utilities/forms/utils.py parse_csv, validate_csv);
  a column the form lacks or a required column left out fails the whole file.
- Related objects are looked up by the form's to_field_name, within the device of an interface, the manufacturer of a
  device type and the VLAN group of a VLAN (the import forms' __init__), and must exist when the file is imported.
- Unique: names and slugs of sites, manufacturers, platforms, roles, RIRs, VLAN groups; (manufacturer, model) and
  (manufacturer, slug) of device types; ASNs; route target names; (group, vid) and (group, name) of VLANs; (site,
  name) of devices; (device, name) of interfaces (their models' Meta constraints); an interface has one cable
  (netbox/dcim/forms/bulk_import.py CableImportForm: "already connected"); a prefix once per VRF and an address once
  per VRF unless every copy has a role that may repeat (anycast, vip, vrrp, hsrp, glbp, carp: IPADDRESS_ROLES_NONUNIQUE
  in netbox/ipam/constants.py; Prefix.clean and IPAddress.clean in netbox/ipam/models/ip.py).
- An address on an interface is neither the network nor the broadcast address of its prefix length unless it is a
  /31 or /32 (IPAddress.clean); is_primary needs the device and the interface (IPAddressImportForm.clean).
- An untagged VLAN needs an interface mode (Interface.clean in netbox/dcim/models/device_components.py).
Beyond NetBox: every address lies in a prefix of the bundle in its own VRF, except the addresses `outside` names.
"""

from __future__ import annotations

import csv
import io
import ipaddress
import json
import os

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'netbox',
                       'import-forms.json')
NONUNIQUE_ROLES = {'anycast', 'vip', 'vrrp', 'hsrp', 'glbp', 'carp'}
# Related objects the import forms look up within another column of the row (their __init__ narrows the queryset):
# (referring model, referred model) -> [(column of the referring row, column of the referred row)].
SCOPES = {('ipam.ipaddress', 'dcim.interface'): [('device', 'device')],
          ('dcim.device', 'dcim.devicetype'): [('manufacturer', 'manufacturer')],
          ('ipam.prefix', 'ipam.vlan'): [('vlan_group', 'group')],
          ('dcim.interface', 'ipam.vlan'): [('vlan_group', 'group')]}
# (model, key columns) NetBox holds unique.
UNIQUE = [('dcim.site', ('name',)), ('dcim.site', ('slug',)), ('dcim.manufacturer', ('name',)),
          ('dcim.manufacturer', ('slug',)), ('dcim.platform', ('name',)), ('dcim.platform', ('slug',)),
          ('dcim.devicetype', ('manufacturer', 'model')), ('dcim.devicetype', ('manufacturer', 'slug')),
          ('dcim.devicerole', ('name',)), ('dcim.devicerole', ('slug',)), ('ipam.rir', ('name',)),
          ('ipam.rir', ('slug',)), ('ipam.asn', ('asn',)), ('ipam.routetarget', ('name',)),
          ('ipam.vrf', ('name',)), ('ipam.vlangroup', ('name',)), ('ipam.vlangroup', ('slug',)),
          ('ipam.vlan', ('group', 'vid')), ('ipam.vlan', ('group', 'name')), ('dcim.device', ('site', 'name')),
          ('dcim.interface', ('device', 'name'))]


def import_forms() -> dict:
    with open(FIXTURE, encoding='utf-8') as stream:
        return json.load(stream)


def parse(text):
    """(header {field: attribute or None}, rows [{field: cell}]) as NetBox's parse_csv makes them; problems."""
    reader = csv.reader(io.StringIO(text.strip()))
    header, problems = {}, []
    for column in next(reader, []):
        field, _dot, attribute = column.strip().partition('.')
        if field in header:
            problems.append('column %s twice' % field)
        header[field] = attribute or None
    rows = []
    for number, row in enumerate(reader, start=1):
        if len(row) != len(header):
            problems.append('row %d has %d cells, the header %d' % (number, len(row), len(header)))
            continue
        if any(cell != cell.strip() for cell in row):
            problems.append('row %d has a cell NetBox would strip' % number)
        rows.append(dict(zip(header, (cell.strip() for cell in row))))
    return header, rows, problems


NUMBERS = ('IntegerField', 'DecimalField')


def _value_problem(spec, cell):
    if cell == '':
        return 'is required' if spec['required'] else None
    if 'choices' in spec and cell not in spec['choices']:
        return '%r is not one of its choices' % cell
    if spec['kind'] == 'BooleanField' and cell not in ('true', 'false'):
        return '%r is not true or false' % cell
    if spec['kind'] in NUMBERS:
        try:
            number = float(cell)
        except ValueError:
            return '%r is not a number' % cell
        if number < spec.get('min_value', number) or number > spec.get('max_value', number):
            return '%r is outside %s..%s' % (cell, spec.get('min_value', ''), spec.get('max_value', ''))
    if len(cell) > spec.get('max_length', len(cell)):
        return 'has %d characters, at most %d' % (len(cell), spec['max_length'])
    return None


def check_form(model, header, rows, form, problems):
    """The columns and cells of one file against its model's import form."""
    fields = form['fields']
    for field, attribute in header.items():
        spec = fields.get(field)
        if spec is None:
            problems.append('%s: column %s is not a field of its import form' % (model, field))
        elif attribute and attribute not in spec.get('related', {}).get('attributes', ()):
            problems.append('%s: column %s.%s names no attribute of %s' % (
                model, field, attribute, spec.get('related', {}).get('model', 'a related object')))
    for field, spec in fields.items():
        if spec['required'] and field not in header:
            problems.append('%s: required column %s is missing' % (model, field))
    for number, row in enumerate(rows, start=1):
        for field, cell in row.items():
            if field in fields:
                problem = _value_problem(fields[field], cell)
                if problem:
                    problems.append('%s row %d: %s %s' % (model, number, field, problem))


def _key(row, columns):
    return tuple(row[column] for column in columns)


def check_references(files, forms, problems):
    """Every related cell names an object of an earlier file of the bundle (by the form's to_field, within its scope)."""
    seen = {}  # model -> rows of the files read so far
    indexes = {}  # (model, attribute) -> {value: rows of the files read so far}

    def named(target, attribute, value):
        if (target, attribute) not in indexes:
            index = indexes[(target, attribute)] = {}
            for other in seen.get(target, ()):
                index.setdefault(other.get(attribute), []).append(other)
        return indexes[(target, attribute)].get(value, ())
    for name, model, header, rows in files:
        fields = forms[model]['fields']
        for field, attribute in header.items():
            related = fields.get(field, {}).get('related')
            if not related:
                continue
            target = related['model']
            to_field = attribute or related['to_field']
            scope = SCOPES.get((model, target), ())
            multiple = fields[field]['kind'].startswith('CSVModelMultiple')
            for number, row in enumerate(rows, start=1):
                if row[field] == '':
                    continue
                values = row[field].split(',') if multiple else [row[field]]
                for value in values:
                    matches = [other for other in named(target, to_field, value)
                               if all(other.get(theirs) == row.get(mine) for mine, theirs in scope)]
                    if len(matches) != 1:
                        problems.append('%s row %d: %s %r names %s %s of the files before %s' % (
                            name, number, field, value, 'no' if not matches else 'more than one', target, name))
        seen.setdefault(model, []).extend(rows)
        indexes = {key: index for key, index in indexes.items() if key[0] != model}
    return seen


def check_unique(objects, problems):
    for model, columns in UNIQUE:
        counted = {}
        for row in objects.get(model, ()):
            key = _key(row, columns)
            counted[key] = counted.get(key, 0) + 1
        for key, count in counted.items():
            if count > 1:
                problems.append('%s: %s %s appears %d times' % (model, '/'.join(columns), '/'.join(key), count))


def check_cables(objects, problems):
    interfaces = {(row['device'], row['name']) for row in objects.get('dcim.interface', ())}
    cabled = {}
    for number, row in enumerate(objects.get('dcim.cable', ()), start=1):
        for side in ('a', 'b'):
            end = (row['side_%s_device' % side], row['side_%s_name' % side])
            if row['side_%s_type' % side] != 'dcim.interface' or end not in interfaces:
                problems.append('cable %d: end %s %s is not an interface of the bundle' % (number, side.upper(), end))
            if end in cabled:
                problems.append('cable %d: %s %s already has cable %d' % (number, end[0], end[1], cabled[end]))
            cabled[end] = number


def check_addresses(objects, problems, outside=()):
    """NetBox's address rules, and every address inside a prefix of its VRF (but those of `outside`)."""
    prefixes = {}
    seen_prefixes = set()
    for row in objects.get('ipam.prefix', ()):
        network = ipaddress.ip_network(row['prefix'])
        if (row['vrf'], network) in seen_prefixes:
            problems.append('prefix %s twice in VRF %r' % (network, row['vrf']))
        seen_prefixes.add((row['vrf'], network))
        prefixes.setdefault(row['vrf'], []).append(network)
    interfaces = {(row['device'], row['name']) for row in objects.get('dcim.interface', ())}
    owners = {}
    for number, row in enumerate(objects.get('ipam.ipaddress', ()), start=1):
        address = ipaddress.ip_interface(row['address'])
        where = 'address %d (%s)' % (number, address)
        if row['interface'] and (row['device'], row['interface']) not in interfaces:
            problems.append('%s: interface %s %s is not in the bundle' % (where, row['device'], row['interface']))
        if row['is_primary'] == 'true' and not (row['device'] and row['interface']):
            problems.append('%s: is_primary without a device and an interface' % where)
        if row['interface'] and address.network.prefixlen < 31 and \
                address.ip in (address.network.network_address, address.network.broadcast_address):
            problems.append('%s: the network or broadcast address of its prefix on an interface' % where)
        owners.setdefault((row['vrf'], address.ip), []).append(row['role'])
        if str(address.ip) not in outside and not any(address.ip in network for network in prefixes.get(row['vrf'], ())):
            problems.append('%s: in no prefix of the bundle in VRF %r' % (where, row['vrf'] or 'global'))
    for (vrf, address), roles in owners.items():
        if len(roles) > 1 and not all(role in NONUNIQUE_ROLES for role in roles):
            problems.append('address %s appears %d times in VRF %r' % (address, len(roles), vrf or 'global'))


def check_interfaces(objects, problems):
    for number, row in enumerate(objects.get('dcim.interface', ()), start=1):
        if row.get('untagged_vlan') and not row.get('mode'):
            problems.append('interface %d (%s %s): an untagged VLAN without a mode' % (number, row['device'], row['name']))


def problems(files, index, outside=()) -> list:
    """files: {relative name: text} of one bundle (bundle.json among them); the problems NetBox would have with it."""
    forms = import_forms()['forms']
    found = []
    parsed = []
    for item in index['files']:
        model = item['model']
        if model not in forms:
            found.append('%s: NetBox object type %s has no import form in the fixture' % (item['file'], model))
            continue
        if item['import_view'] != forms[model]['view']:
            found.append('%s: import view %s, NetBox has %s' % (item['file'], item['import_view'], forms[model]['view']))
        header, rows, csv_problems = parse(files[item['file']])
        found.extend('%s: %s' % (item['file'], problem) for problem in csv_problems)
        check_form(model, header, rows, forms[model], found)
        parsed.append((item['file'], model, header, rows))
    objects = check_references(parsed, forms, found)
    check_unique(objects, found)
    check_cables(objects, found)
    check_addresses(objects, found, outside)
    check_interfaces(objects, found)
    return found


def read(directory) -> tuple:
    """({file: text}, bundle.json) of a bundle directory."""
    files = {}
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), encoding='utf-8') as stream:
            files[name] = stream.read()
    return files, json.loads(files['bundle.json'])


def tables(files, index) -> dict:
    """{model: rows} of a bundle."""
    return {item['model']: parse(files[item['file']])[1] for item in index['files']}
