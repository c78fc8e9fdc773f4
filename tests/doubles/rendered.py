"""Put each double in the state of a switch running its rendered configuration, the way the NOS takes one: EOS the
saved startup-config it boots from (before the fleet starts), SONiC FRR in /etc/sonic/frr and `config reload` of the
CONFIG_DB, NVUE `nv config replace` + `nv config apply` (over SSH, after it starts)."""

from __future__ import annotations

import getpass
import os
import subprocess

from tests.doubles.fleet import TEST_PASSWORD_HASH


def render(design, name):
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.render import render_device
    return render_device(design, name, {user['name']: TEST_PASSWORD_HASH for user in design.intent['management']['users']})


def ssh(fleet, key, name, command, data=None):
    double = fleet.devices[name]
    argv = ['ssh', '-i', key, '-p', str(double.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
            '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes', '%s@%s' % (getpass.getuser(), double.host), command]
    result = subprocess.run(argv, input=data, capture_output=True, text=True, timeout=60, check=False)
    if result.returncode != 0:
        raise RuntimeError('%s: %s -> %s %s' % (name, command, result.stdout, result.stderr))
    return result.stdout


def stage(fleet, design):
    """Before fleet.start(): the EOS doubles boot from their rendered startup-config."""
    for entry in fleet.entries:
        if entry['kind'] == 'eos':
            os.makedirs(fleet.state_dir_of(entry['name']), exist_ok=True)
            with open(os.path.join(fleet.state_dir_of(entry['name']), 'startup-config'), 'w', encoding='utf-8') as handle:
                handle.write(render(design, entry['name'])['startup-config.cfg'])


def apply(fleet, design):
    """After fleet.start(): SONiC and NVUE doubles take their rendered configuration over SSH."""
    key = os.path.join(fleet.state_dir, 'secrets', 'id_ed25519')
    for entry in fleet.entries:
        name, kind = entry['name'], entry['kind']
        if kind == 'sonic':
            files = render(design, name)
            ssh(fleet, key, name, 'cat > /tmp/config_db.json', files['config_db.json'])
            ssh(fleet, key, name, 'cat > /tmp/frr.conf', files['frr.conf'])
            # a whole rendered CONFIG_DB is loaded the way SONiC loads one: config reload restarts the bgp container,
            # which then reads frr.conf (GCU's config replace takes only what the deploy's deploy_target makes)
            ssh(fleet, key, name, 'sudo cp /tmp/frr.conf /etc/sonic/frr/frr.conf && sudo config reload -y /tmp/config_db.json')
        elif kind == 'nvue':
            ssh(fleet, key, name, 'cat > /tmp/startup.yaml', render(design, name)['startup.yaml'])
            ssh(fleet, key, name, 'nv config replace /tmp/startup.yaml && nv config apply -y')
