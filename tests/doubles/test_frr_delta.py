"""The SONiC driver's FRR change (platforms/sonic/frr_delta.py) judged by real FRR: between rendered frr.conf files of
different switches, fabrics and numbering (numbered/unnumbered, leaf/spine, EVPN VRFs or none), the vtysh script
from one running configuration to the other takes FRR exactly there, and the script back returns it byte for byte.
The daemons are the machine's FRR in namespaces of their own (tests/doubles/ssh/frr_daemons.py: Debian's 8.4; the
image runs 10.5.4, docs/platform-sonic.md "What stays unverified")."""

import os
import re

import pytest

from tests.doubles.ssh import frr_daemons
from tests.unit.utils.platforms import golden

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.platforms.sonic import frr_delta

PAIRS = [  # SONiC's golden files
    ('sonicsmall/leaf001', 'sonicsmall/leaf002'),      # another leaf: addresses, ASN, VNIs' RDs
    ('sonicsmall/leaf001', 'sonicsmall/spine001'),     # a leaf becomes a spine: the VRFs and EVPN VNIs go
    ('sonicsmall/spine001', 'sonicunnum/leaf001'),     # numbered to unnumbered neighbours, VRFs come
    ('sonicunnum/sspine001', 'shape2/leaf001'),        # another fabric
]


def _read(relative):
    with open(golden('sonic', relative, 'frr.conf'), encoding='utf-8') as handle:
        return handle.read()


def _boot_and_apply(directory, boot, script):
    path = os.path.join(str(directory), 'change.conf')
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(script)
    return frr_daemons.run(str(directory), 'switch', boot, actions=[['-f', path]])


def _named(text):
    """The file as a switch named `switch` has it (FRR prints the system's host name; a switch keeps its name)."""
    return re.sub(r'^hostname \S+$', 'hostname switch', text, count=1, flags=re.M)


@pytest.mark.parametrize('before, after', PAIRS, ids=['%s-to-%s' % (a.replace('/', '.'), b.replace('/', '.'))
                                                      for a, b in PAIRS])
def test_the_script_takes_real_frr_to_the_target_and_back(tmp_path, before, after):
    source, target = _named(_read(before)), _named(_read(after))
    running = frr_daemons.run(str(tmp_path), 'switch', ('integrated', source)).running
    assert frr_delta.equal(running, source), frr_delta.diff(running, source)
    assert not frr_delta.equal(running, target)
    changed = _boot_and_apply(tmp_path, ('replay', running), frr_delta.script(running, target)).running
    assert frr_delta.equal(changed, target), frr_delta.diff(changed, target)
    # the way back, as the switch's revert script applies it (computed before the change, from the rendered file)
    back = _boot_and_apply(tmp_path, ('replay', changed), frr_delta.script(target, running)).running
    assert back == running, frr_delta.diff(back, running)
