"""Local Linux accounts of a SONiC double: `useradd`, `chpasswd -e`, `getent passwd|shadow`, `id [-u] NAME`, kept
in D/accounts.json instead of the machine's /etc/passwd (the tests run as root: the real commands would create
home directories on the machine).

A fresh SONiC has one account, `admin` in the sudo and docker groups, with the image's default password
(sonic-buildimage build_debian.sh `useradd -G sudo,docker $USERNAME`, rules/config DEFAULT_USERNAME = admin,
DEFAULT_PASSWORD = YourPaSsWoRd); the double stores that password as FACTORY_PASSWORD. Behaviour and messages
follow shadow-utils (useradd(8): exit 9 "user 'x' already exists"; chpasswd(8) -e: "user:hash" lines, an unknown
user fails its line) and getent(1) (exit 2 when a key is not found).
"""

from __future__ import annotations

import os
import sys

from tests.doubles.ssh import state

FACTORY_PASSWORD = 'default password YourPaSsWoRd (sonic-buildimage rules/config)'
FACTORY = {'admin': {'hash': FACTORY_PASSWORD, 'groups': ['sudo', 'docker'], 'shell': '/bin/bash'}}


def _file(directory):
    return state.path(directory, 'accounts.json')


def load(directory):
    return state.read_json(_file(directory), FACTORY)


def factory(directory):
    state.write_json(_file(directory), FACTORY)


def _privileged():
    return os.environ.get('DOUBLE_PRIVILEGED') == '1'


def useradd(directory, args):
    groups, rest = [], list(args)
    name = None
    while rest:
        item = rest.pop(0)
        if item in ('-G', '--groups', '-s', '--shell', '-c', '--comment', '-d', '--home-dir') and rest:
            value = rest.pop(0)
            if item in ('-G', '--groups'):
                groups = [group for group in value.split(',') if group]
        elif item.startswith('-'):
            continue
        else:
            name = item
    if not _privileged():
        sys.stderr.write('useradd: Permission denied.\nuseradd: cannot lock /etc/passwd; try again later.\n')
        return 1
    if not name:
        sys.stderr.write('Usage: useradd [options] LOGIN\n')
        return 2
    with state.locked(directory):
        accounts = load(directory)
        if name in accounts:
            sys.stderr.write("useradd: user '%s' already exists\n" % name)
            return 9
        accounts[name] = {'hash': '!', 'groups': groups, 'shell': '/bin/bash'}
        state.write_json(_file(directory), accounts)
    return 0


def chpasswd(directory, args):
    if not _privileged():
        sys.stderr.write('chpasswd: Permission denied.\n')
        return 1
    encrypted = bool(set(args) & {'-e', '--encrypted'})
    failed = False
    with state.locked(directory):
        accounts = load(directory)
        for number, line in enumerate(sys.stdin.read().splitlines(), 1):
            if not line.strip():
                continue
            name, _colon, secret = line.partition(':')
            if name not in accounts:
                sys.stderr.write('chpasswd: (line %d, user %s) password not changed\n' % (number, name))
                failed = True
                continue
            accounts[name]['hash'] = secret if encrypted else 'clear text %s' % secret
        state.write_json(_file(directory), accounts)
    return 1 if failed else 0


def getent(directory, args):
    if len(args) < 1 or args[0] not in ('passwd', 'shadow'):
        os.execv('/usr/bin/getent', ['getent'] + list(args))
    if args[0] == 'shadow' and not _privileged():
        return 2  # an ordinary user cannot read /etc/shadow
    accounts = load(directory)
    names = args[1:] or sorted(accounts)
    missing = False
    for uid, name in enumerate(names, 1000):
        if name not in accounts:
            missing = True
            continue
        if args[0] == 'shadow':
            sys.stdout.write('%s:%s:19000:0:99999:7:::\n' % (name, accounts[name]['hash']))
        else:
            sys.stdout.write('%s:x:%d:%d::/home/%s:%s\n' % (name, uid, uid, name, accounts[name]['shell']))
    return 2 if missing else 0


def id_command(directory, args):
    names = [item for item in args if not item.startswith('-')]
    if len(names) != 1:
        os.execv('/usr/bin/id', ['id'] + list(args))
    accounts = load(directory)
    if names[0] not in accounts:
        sys.stderr.write("id: '%s': no such user\n" % names[0])
        return 1
    uid = 1000 + sorted(accounts).index(names[0])
    sys.stdout.write('%d\n' % uid if '-u' in args else 'uid=%d(%s) gid=%d(%s) groups=%d(%s)%s\n' % (
        uid, names[0], uid, names[0], uid, names[0], ''.join(',%s' % group for group in accounts[names[0]]['groups'])))
    return 0


COMMANDS = {'useradd': useradd, 'chpasswd': chpasswd, 'getent': getent, 'id': id_command}
