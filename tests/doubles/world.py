"""What a double knows of the rest of the fabric (its `world`, written by the fleet launcher): LLDP neighbours per
port, its own VTEP address, and the remote VTEPs per VNI and per tenant VRF."""


def remote_vteps(world, vni):
    """The VTEPs that flood for `vni` (the fleet knows which switches share it), else every remote VTEP."""
    by_vni = world.get('remote_vteps_by_vni')
    if by_vni is not None:
        return list(by_vni.get(str(vni), []))
    return list(world.get('remote_vteps', []))


def flooding_vteps(world):
    """Every remote VTEP this switch has a tunnel to (EOS `show vxlan vtep`): those it shares an L2VNI with, and with a
    tenant VRF every other VTEP of that VRF (its L3VNI carries their EVPN type-2/type-5 routes: symmetric IRB)."""
    by_vni = world.get('remote_vteps_by_vni')
    if by_vni is not None:
        by_vrf = world.get('remote_vteps_by_vrf') or {}
        return sorted({vtep for vteps in list(by_vni.values()) + list(by_vrf.values()) for vtep in vteps})
    return list(world.get('remote_vteps', []))
