"""The fault knobs of a double (tests/doubles/faults.py) as its two kinds of reader see them."""

from tests.doubles import faults


def test_a_command_reads_the_fault_knobs_once_and_again_after_its_own_commit(tmp_path):
    """A vendor command's process (Faults(reread=False)) keeps its first reading for its whole output, also when
    the knobs change under it; its own commit makes the `after_commit` knobs take effect for it too. A long-lived
    server's view (the default) follows every change."""
    state_dir = str(tmp_path)
    command, server = faults.Faults(state_dir, reread=False), faults.Faults(state_dir)
    assert command.get('bgp_stuck') is None and server.get('bgp_stuck') is None
    faults.write(state_dir, bgp_stuck=['*'], after_commit={'drop_after_commit': True})
    assert command.get('bgp_stuck') is None, 'a command keeps its first reading (no file then)'
    assert server.get('bgp_stuck') == ['*']
    command.committed()
    assert command.get('drop_after_commit') is True and command.get('bgp_stuck') == ['*']
    faults.write(state_dir)
    assert command.get('drop_after_commit') is True, 'read once again after the commit, then kept'
    assert server.get('drop_after_commit') is None
