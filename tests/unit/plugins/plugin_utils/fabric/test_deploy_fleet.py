"""deploy/fleet.py: many switches' check at once. Each switch's outcome is its own driver's, a switch past its deadline
is an error naming it and the step it was in (its connection dropped, the others checked all the same), and a
driver's bug on one switch is that switch's error, not the run's."""

import contextlib
import threading
import time

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.deploy import contract, fleet
from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.transport import TransportError


class StubShell:
    def __init__(self):
        self.closed = threading.Event()

    def close(self):
        self.closed.set()


class StubDriver(contract.Driver):
    """A switch whose running configuration differs from the candidate by `diff`; `behaviour` says what goes wrong."""

    platform = 'stub'

    def __init__(self, device, diff='', behaviour=None):
        super().__init__(device, {})
        self.diff, self.behaviour = diff, behaviour
        self.shell = StubShell()
        self.discarded = False

    @contextlib.contextmanager
    def session(self):
        yield self

    def preflight(self):
        if self.behaviour == 'refuses':
            raise TransportError(self.device, 'preflight', 'the switch says no')

    def prepare(self, files):
        if self.behaviour == 'frozen':  # answers nothing until its connection is dropped
            self.shell.closed.wait(30)
            raise TransportError(self.device, 'load candidate', 'the SSH session was lost')
        if self.behaviour == 'bug':
            raise KeyError('interfaces')
        return self.diff

    def discard(self):
        self.discarded = True


def test_each_switch_gets_its_own_outcome_and_a_frozen_one_ends_at_its_deadline():
    drivers = {'leaf001': StubDriver('leaf001'), 'leaf002': StubDriver('leaf002', diff='-a\n+b\n'),
               'leaf003': StubDriver('leaf003', behaviour='frozen'), 'leaf004': StubDriver('leaf004', behaviour='refuses'),
               'leaf005': StubDriver('leaf005', behaviour='bug')}
    ended = []
    started = time.monotonic()
    found = fleet.check([(name, driver, {}) for name, driver in drivers.items()], concurrency=5, timeout=2,
                        done=lambda device, result: ended.append(device))
    assert time.monotonic() - started < 10
    assert {name: result['outcome'] for name, result in found.items()} == {
        'leaf001': 'unchanged', 'leaf002': 'would_change', 'leaf003': 'failed', 'leaf004': 'failed', 'leaf005': 'failed'}
    assert found['leaf002']['diff'] == '-a\n+b\n' and drivers['leaf002'].discarded
    assert str(found['leaf003']['error']) == ('leaf003: load candidate failed: no answer within 2 s (the per-switch '
                                              'deadline, option timeout)')
    assert drivers['leaf003'].shell.closed.is_set(), 'its connection is dropped'
    assert str(found['leaf004']['error']) == 'leaf004: preflight failed: the switch says no'
    assert str(found['leaf005']['error']) == "leaf005: load candidate failed: KeyError: 'interfaces'"
    assert sorted(ended) == sorted(drivers) and ended[-1] == 'leaf003'


def test_a_switch_waits_for_its_turn_without_its_deadline_running():
    """With one switch at a time, the second one's deadline starts when its turn comes, not when the run does."""
    slow = StubDriver('leaf001', behaviour='frozen')
    found = fleet.check([('leaf001', slow, {}), ('leaf002', StubDriver('leaf002'), {})], concurrency=1, timeout=1)
    assert found['leaf001']['outcome'] == 'failed' and found['leaf002']['outcome'] == 'unchanged'
