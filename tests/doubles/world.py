"""What a double knows of the rest of the fabric (its `world`, written by the fleet launcher): LLDP neighbours per
port, its own VTEP address, and the remote VTEPs per VNI."""


def remote_vteps(world, vni):
    """The VTEPs that flood for `vni` (the fleet knows which switches share it), else every remote VTEP."""
    by_vni = world.get('remote_vteps_by_vni')
    if by_vni is not None:
        return list(by_vni.get(str(vni), []))
    return list(world.get('remote_vteps', []))


def flooding_vteps(world):
    """Every remote VTEP this switch shares a VNI with (EOS `show vxlan vtep`)."""
    by_vni = world.get('remote_vteps_by_vni')
    if by_vni is not None:
        return sorted({vtep for vteps in by_vni.values() for vtep in vteps})
    return list(world.get('remote_vteps', []))
