# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Import a rendered NetBox bundle (<render output>/netbox/) into a running NetBox through its bulk import views, as a
person does with Import > Upload file on each object list, then count what NetBox holds.

Run by scripts/netbox-import-check.sh with the NetBox's own Python (its venv) and environment (NETBOX_CONFIGURATION,
the working directory netbox/ of the checkout), so that the counts come from NetBox's models after the import:

    netbox-import-bundle.py --url http://127.0.0.1:8001 --user admin --password ... <bundle dir> [<report.json>]

Each file of bundle.json is uploaded in its order (format and CSV delimiter left on "auto", as the import page
offers them); a file without rows is skipped. The import of a file is one transaction in NetBox: it either creates
every row or nothing, and its error messages ("Record 12 interface: ...") are printed. Exit status 1 when a file
fails, when NetBox holds another number of objects than the bundle has rows, or when a check of the imported
fabric fails (every cable joins two interfaces, every address is on an interface, and as many devices have a primary
IP and a platform, interfaces an untagged VLAN, a VRF or management only, addresses a VRF, prefixes a VLAN and cables a
length as the files say).
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import os
import re
import sys
import time

import requests

ERROR = re.compile(r'Record [0-9]+[^<]*|Required column[^<]*|Unexpected column[^<]*|Invalid[^<]*', re.IGNORECASE)


def rows_of(path) -> int:
    with open(path, newline='', encoding='utf-8') as stream:
        return max(sum(1 for _row in csv.reader(stream)) - 1, 0)


def login(session, url, user, password):
    page = session.get(url + '/login/', timeout=60)
    page.raise_for_status()
    answer = session.post(url + '/login/', data={'username': user, 'password': password, 'next': '/',
                                                 'csrfmiddlewaretoken': session.cookies['csrftoken']},
                          headers={'Referer': url + '/login/'}, allow_redirects=False, timeout=60)
    if answer.status_code != 302:
        raise SystemExit('login to %s failed (HTTP %d)' % (url, answer.status_code))


def upload(session, url, view, path):
    """POST the file to the import view; (ok, seconds, messages)."""
    session.get(url + view, timeout=60).raise_for_status()
    started = time.monotonic()
    with open(path, 'rb') as stream:
        answer = session.post(url + view, data={
            'csrfmiddlewaretoken': session.cookies['csrftoken'], 'import_method': 'upload', 'format': 'auto',
            'csv_delimiter': 'auto'}, files={'upload_file': (os.path.basename(path), stream, 'text/csv')},
            headers={'Referer': url + view}, allow_redirects=False, timeout=7200)
    seconds = time.monotonic() - started
    if answer.status_code == 302:
        return True, seconds, []
    found = sorted({html.unescape(match.strip()) for match in ERROR.findall(answer.text)})
    return False, seconds, found or ['HTTP %d without a message NetBox printed' % answer.status_code]


def filled(path, column) -> int:
    """Rows of a bundle file whose `column` is filled (a boolean column: true)."""
    with open(path, newline='', encoding='utf-8') as stream:
        return sum(1 for row in csv.DictReader(stream) if row.get(column) not in (None, '', 'false'))


def netbox_counts(bundle, files):
    """What NetBox's models hold, per object type of the bundle, and checks of the imported fabric: the links NetBox
    made from the named references (VLANs, VRFs, platforms, lengths, primary IPs) as many as the files name."""
    import django
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    django.setup()
    from django.apps import apps
    counts = {item['model']: apps.get_model(item['model']).objects.count() for item in files}
    path = {item['model']: os.path.join(bundle, item['file']) for item in files}
    model = apps.get_model
    interface, address, cable = model('dcim.interface'), model('ipam.ipaddress'), model('dcim.cable')
    checks = {
        'cabled interfaces = 2 x cables': interface.objects.exclude(cable=None).count() == 2 * cable.objects.count(),
        'every address is on an interface': not address.objects.filter(assigned_object_id=None).exists(),
    }
    linked = [
        ('devices with a primary IP', model('dcim.device').objects.exclude(primary_ip4=None),
         'ipam.ipaddress', 'is_primary'),
        ('devices with a platform', model('dcim.device').objects.exclude(platform=None), 'dcim.device', 'platform'),
        ('interfaces with an untagged VLAN', interface.objects.exclude(untagged_vlan=None), 'dcim.interface',
         'untagged_vlan'),
        ('interfaces in a VRF', interface.objects.exclude(vrf=None), 'dcim.interface', 'vrf.name'),
        ('management-only interfaces', interface.objects.filter(mgmt_only=True), 'dcim.interface', 'mgmt_only'),
        ('addresses in a VRF', address.objects.exclude(vrf=None), 'ipam.ipaddress', 'vrf'),
        ('prefixes with a VLAN', model('ipam.prefix').objects.exclude(vlan=None), 'ipam.prefix', 'vlan'),
        ('cables with a length', cable.objects.exclude(length=None), 'dcim.cable', 'length'),
    ]
    for name, queryset, source, column in linked:
        expected = filled(path[source], column)
        checks['%s: %d as in the files' % (name, expected)] = queryset.count() == expected
    return counts, checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--url', required=True)
    parser.add_argument('--user', required=True)
    parser.add_argument('--password', required=True)
    parser.add_argument('bundle')
    parser.add_argument('report', nargs='?')
    args = parser.parse_args()
    with open(os.path.join(args.bundle, 'bundle.json'), encoding='utf-8') as stream:
        index = json.load(stream)
    session = requests.Session()
    login(session, args.url.rstrip('/'), args.user, args.password)
    report = {'fabric': index['fabric'], 'files': [], 'ok': True}
    for item in index['files']:
        path = os.path.join(args.bundle, item['file'])
        rows = rows_of(path)
        entry = {'file': item['file'], 'model': item['model'], 'rows': rows, 'seconds': 0.0}
        report['files'].append(entry)
        if not rows:
            print('%-22s %7s rows  skipped (nothing to import)' % (item['file'], 0), flush=True)
            continue
        ok, seconds, messages = upload(session, args.url.rstrip('/'), item['import_view'], path)
        entry.update(ok=ok, seconds=round(seconds, 1), messages=messages[:20])
        print('%-22s %7d rows  %s in %.1f s' % (item['file'], rows, 'imported' if ok else 'FAILED', seconds), flush=True)
        for message in messages[:20]:
            print('    ' + message)
        if not ok:
            report['ok'] = False
            break
    counts, checks = netbox_counts(args.bundle, index['files'])
    for entry in report['files']:
        entry['netbox'] = counts[entry['model']]
        if entry['netbox'] != entry['rows']:
            report['ok'] = False
    report['checks'] = checks
    report['ok'] = report['ok'] and all(checks.values())
    print('\n%-22s %-18s %8s %8s' % ('file', 'NetBox model', 'rows', 'in NetBox'))
    for entry in report['files']:
        print('%-22s %-18s %8d %8d%s' % (entry['file'], entry['model'], entry['rows'], entry['netbox'],
                                         '' if entry['rows'] == entry['netbox'] else '  MISMATCH'))
    print('total %d objects' % sum(entry['netbox'] for entry in report['files']))
    for name, passed in checks.items():
        print('%s: %s' % ('ok' if passed else 'FAILED', name))
    if args.report:
        with open(args.report, 'w', encoding='utf-8') as stream:
            json.dump(report, stream, indent=1)
    return 0 if report['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
