"""Put a fleet device in the state of a switch running its rendered configuration, without a session: the way the
NOS takes a whole configuration, run in-process by the device's server before it listens (what tests/doubles/
rendered.py does over SSH for the single doubles). EOS boots from the startup-config in its directory (eapid.py);
SONiC gets its factory CONFIG_DB, then frr.conf in /etc/sonic/frr and `config reload -y` of the rendered CONFIG_DB;
NVUE `nv config replace` + `nv config apply -y`. A device whose rendered files and facts did not change since it
last booted keeps its state (a restarted fleet does not redo thousands of reloads)."""

from __future__ import annotations

import hashlib
import json
import os

from tests.doubles.fleetd.devices import VendorDevice

MARK = 'booted.sha256'


def _deploy_target():
    """The collection's SONiC deploy_target (imported through Ansible's collection loader, as the tests import it)."""
    import tests.conftest  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import (  # pylint: disable=import-outside-toplevel
        deploy_target)
    return deploy_target


def _digest(directory, facts):
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode())
    rendered = os.path.join(directory, 'rendered')
    for name in sorted(os.listdir(rendered)) if os.path.isdir(rendered) else ():
        with open(os.path.join(rendered, name), 'rb') as handle:
            digest.update(name.encode() + b'\0' + handle.read())
    return digest.hexdigest()


def _user_steps(rendered):
    """The local users of rendered/local-users.json as a confirmed SONiC deploy leaves them (the driver's confirm:
    useradd with the groups of the user's role, then chpasswd -e of every hash): [(argv, stdin)]."""
    path = os.path.join(rendered, 'local-users.json')
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as handle:
        users = json.load(handle)
    import tests.conftest  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.deploy import (  # pylint: disable=import-outside-toplevel
        USER_GROUPS)
    from tests.unit.platforms.sonic.double import accounts  # pylint: disable=import-outside-toplevel
    have = accounts.load(os.path.dirname(rendered))
    steps = []
    for name, user in sorted(users.items()):
        if name not in have:
            groups = USER_GROUPS.get(user['role'], '')
            steps.append((['sudo', 'useradd', '-m', '-s', '/bin/bash'] + (['-G', groups] if groups else []) + [name],))
    lines = ''.join('%s:%s\n' % (name, user['hash']) for name, user in sorted(users.items()))
    return steps + [(['sudo', 'chpasswd', '-e'], lines)]


def boot(kind, name, directory, facts):
    """Boot one SONiC or NVUE device from <directory>/rendered (the launcher writes it); returns whether it booted
    anew. Raises RuntimeError naming the device and the command when the double refuses its configuration."""
    from tests.doubles.ssh import state  # pylint: disable=import-outside-toplevel
    digest = _digest(directory, facts)
    mark = os.path.join(directory, MARK)
    if os.path.exists(mark):
        with open(mark, encoding='utf-8') as handle:
            if handle.read().strip() == digest:
                return False
    for stale in ('db', 'nvue', 'etc', 'frr', 'jobs', 'device.json', 'faults.json', 'bgp_first_seen.json'):
        path = os.path.join(directory, stale)
        if os.path.isdir(path):
            import shutil  # pylint: disable=import-outside-toplevel
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    state.init_device(directory, dict(facts, name=name, kind=kind))
    device = VendorDevice(name, kind, directory)
    rendered = os.path.join(directory, 'rendered')
    if kind == 'sonic':
        with open(os.path.join(rendered, 'frr.conf'), encoding='utf-8') as source:
            text = source.read()
        os.makedirs(os.path.join(directory, 'etc', 'sonic', 'frr'), exist_ok=True)
        with open(os.path.join(directory, 'etc', 'sonic', 'frr', 'frr.conf'), 'w', encoding='utf-8') as handle:
            handle.write(text)
        # The rendered tables in the switch's running CONFIG_DB, as a first deploy loads them (the switch keeps its
        # MAC, its TACACS+ key set out of band, ...): the deploy's own deploy_target, as tests/doubles/rendered.py
        # applies it over SSH, so that a switch of the fleet runs what a deploy of its rendered files leaves.
        rc, out, err = device.command(['sonic-cfggen', '-d', '--print-data'], '', host_paths=True)
        if rc != 0:
            raise RuntimeError('%s: sonic-cfggen -d --print-data failed (rc %s): %s' % (name, rc, (err or out)[-500:]))
        with open(os.path.join(rendered, 'config_db.json'), encoding='utf-8') as source:
            target = _deploy_target()(json.loads(out), json.load(source))
        loaded = os.path.join(rendered, 'config_db.loaded.json')
        with open(loaded, 'w', encoding='utf-8') as handle:
            json.dump(target, handle, indent=2, sort_keys=True)
        steps = [(['sudo', 'config', 'reload', '-y', loaded],)]
        steps += _user_steps(rendered)
    else:
        steps = [(['nv', 'config', 'replace', os.path.join(rendered, 'startup.yaml')],), (['nv', 'config', 'apply', '-y'],)]
    for argv, *stdin in steps:
        rc, out, err = device.command(argv, stdin[0] if stdin else '', host_paths=True)
        if rc != 0:
            raise RuntimeError('%s: %s failed (rc %s): %s' % (name, ' '.join(argv[:4]), rc, (err or out).strip()[-500:]))
    with open(mark, 'w', encoding='utf-8') as handle:
        handle.write(digest + '\n')
    return True
