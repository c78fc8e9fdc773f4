# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write NetBox's bulk import forms as data: for each object type of the NetBox bundle, its import view's path and
every field its import form takes (required or not, the most characters, the range, the choice values, the object
type a related field names and by which attribute). The unit tests hold the bundle's files against this
(tests/unit/fixtures/netbox/import-forms.json), so that CI, which has no NetBox, checks the files as NetBox would.

Run with a configured NetBox's Python and environment (scripts/netbox-import-check.sh does, with FORMS=<file>):

    cd <netbox checkout>/netbox && python <collection>/scripts/netbox-import-forms.py <commit> > import-forms.json

It asks the running NetBox (its URL resolver, its forms, its content types); nothing of NetBox's code is copied.
"""

from __future__ import annotations

import json
import os
import sys

# The object types of the bundle (plugins/plugin_utils/fabric/netbox.py FILES) and the import view of each.
VIEWS = {
    'dcim.site': 'dcim:site_bulk_import', 'dcim.manufacturer': 'dcim:manufacturer_bulk_import',
    'dcim.platform': 'dcim:platform_bulk_import', 'dcim.devicetype': 'dcim:devicetype_bulk_import',
    'dcim.devicerole': 'dcim:devicerole_bulk_import', 'ipam.rir': 'ipam:rir_bulk_import',
    'ipam.asn': 'ipam:asn_bulk_import', 'ipam.routetarget': 'ipam:routetarget_bulk_import',
    'ipam.vrf': 'ipam:vrf_bulk_import', 'ipam.vlangroup': 'ipam:vlangroup_bulk_import',
    'ipam.vlan': 'ipam:vlan_bulk_import', 'ipam.prefix': 'ipam:prefix_bulk_import',
    'dcim.device': 'dcim:device_bulk_import', 'dcim.interface': 'dcim:interface_bulk_import',
    'dcim.cable': 'dcim:cable_bulk_import', 'ipam.ipaddress': 'ipam:ipaddress_bulk_import',
}


def _values(choices):
    """Choice values, groups flattened, without the empty choice."""
    values = []
    for value, label in choices:
        if isinstance(label, (list, tuple)):
            values.extend(_values(label))
        elif value not in ('', None):
            values.append(str(value))
    return values


def _number(value):
    return int(value) if int(value) == value else float(value)


def describe(field, model_field=None):
    """The form field as data; `model_field`: the model's field of the same name, whose validators the model
    applies when the import saves (an interface's MTU 1..65536, a VLAN ID 1..4094) beyond the form's own range."""
    from django import forms
    from django.contrib.contenttypes.models import ContentType
    from django.core import validators
    entry = {'required': bool(field.required), 'kind': type(field).__name__}
    limits = {'max_length': getattr(field, 'max_length', None), 'min_value': getattr(field, 'min_value', None),
              'max_value': getattr(field, 'max_value', None)}
    for validator in getattr(model_field, 'validators', ()):
        for kind, key, tighter in ((validators.MinValueValidator, 'min_value', max),
                                   (validators.MaxValueValidator, 'max_value', min),
                                   (validators.MaxLengthValidator, 'max_length', min)):
            if isinstance(validator, kind) and not callable(validator.limit_value):
                current = limits[key]
                limits[key] = validator.limit_value if current is None else tighter(current, validator.limit_value)
    entry.update((key, _number(value)) for key, value in limits.items() if value is not None)
    queryset = getattr(field, 'queryset', None)
    if queryset is not None and queryset.model is ContentType:
        entry['choices'] = sorted('%s.%s' % (item.app_label, item.model) for item in queryset)
    elif queryset is not None:
        model = queryset.model
        entry['related'] = {'model': model._meta.label_lower, 'to_field': getattr(field, 'to_field_name', None) or 'pk',
                            'attributes': sorted(item.name for item in model._meta.get_fields() if item.concrete)}
    elif isinstance(field, forms.ChoiceField):
        entry['choices'] = _values(field.choices)
    return entry


def main():
    import django
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    django.setup()
    from django.conf import settings
    from django.urls import resolve, reverse
    forms = {}
    for model, name in VIEWS.items():
        path = reverse(name)
        view = resolve(path).func.view_class
        form = view.model_form()
        model_fields = {item.name: item for item in form._meta.model._meta.get_fields() if item.concrete}
        forms[model] = {'view': path, 'form': '%s.%s' % (view.model_form.__module__, view.model_form.__name__),
                        'fields': {name: describe(field, model_fields.get(name)) for name, field in form.fields.items()}}
    json.dump({'netbox': settings.RELEASE.version, 'commit': sys.argv[1] if len(sys.argv) > 1 else None,
               'made_by': 'scripts/netbox-import-forms.py', 'forms': forms}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
