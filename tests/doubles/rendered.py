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


def ssh(fleet, key, name, command, data=None, cut=False):
    """`command` on switch `name` over SSH; with `cut`, the switch may end the session once the command has done its
    work (a SONiC `config reload` restarts eth0 and every session ends: the reload itself completes)."""
    double = fleet.devices[name]
    argv = ['ssh', '-i', key, '-p', str(double.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
            '-o', 'LogLevel=ERROR', '-o', 'BatchMode=yes', '%s@%s' % (getpass.getuser(), double.host), command]
    result = subprocess.run(argv, input=data, capture_output=True, text=True, timeout=60, check=False)
    if result.returncode != 0 and not (cut and result.returncode == 255 and 'closed by remote host' in result.stderr):
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
            import json  # pylint: disable=import-outside-toplevel
            from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic.render import deploy_target
            files = render(design, name)
            # the rendered tables in the switch's running CONFIG_DB (what a first deploy loads: the switch keeps its
            # MAC, its TACACS+ key set out of band, ...), loaded the way SONiC loads a whole configuration: config
            # reload checks it against the YANG models and restarts the bgp container, which then reads frr.conf
            running = json.loads(ssh(fleet, key, name, 'sonic-cfggen -d --print-data'))
            target = deploy_target(running, json.loads(files['config_db.json']))
            ssh(fleet, key, name, 'cat > /tmp/config_db.json', json.dumps(target, indent=2, sort_keys=True) + '\n')
            ssh(fleet, key, name, 'cat > /tmp/frr.conf', files['frr.conf'])
            ssh(fleet, key, name, 'sudo cp /tmp/frr.conf /etc/sonic/frr/frr.conf && sudo config reload -y /tmp/config_db.json',
                cut=True)
        elif kind == 'nvue':
            ssh(fleet, key, name, 'cat > /tmp/startup.yaml', render(design, name)['startup.yaml'])
            ssh(fleet, key, name, 'nv config replace /tmp/startup.yaml && nv config apply -y')
