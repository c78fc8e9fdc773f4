# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks: declared units (base.py) judging the design (intent) and gathered state, returning Results.

Each check is a `base.Check` registered with `register()`. `ctx` holds the design, the device models (computed
once) and every device's gathered state (parsed lazily, once); checks never talk to devices and never raise for
bad state: unreadable state becomes an `error` Result, state a platform or the lab cannot have becomes
`not_applicable` with the reason, so nothing passes silently. What each check expects comes from catalog.py,
i.e. from the design.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import marshal
import pickle  # nosec B403: answers of processes forked from this one (judge), never a file

from .base import (ERROR, FAIL, NOT_APPLICABLE, PASS, STATUSES, Check, NotApplicable, Outcome, Result, Subject,
                   Unexpected, failed, not_applicable_text, passed, state_problem, verdict)
from .judged import Judged, device_group_of
from ..forked import forked, processes_for, shares_of
from ..state import StateError
from ..state.counters import rates
from ..state.gatherer import SECOND, TIMES, UNREADABLE
from ..state.sources import gatherer_for

REGISTRY = {}


def register(check):
    """Register a check (a Check subclass, instantiated once, or an instance) under its id."""
    instance = check() if isinstance(check, type) else check
    if not instance.id or instance.id in REGISTRY:
        raise ValueError('check id %r is empty or registered twice' % instance.id)
    REGISTRY[instance.id] = instance
    return check


class Packed:
    """Parsed state kept as marshal bytes between uses (DeviceState.parse_all): plain data (dicts, lists, numbers,
    strings) takes a fifth of the memory this way, and a fleet's judging step holds the state of thousands of devices
    until the checks that read two devices have run."""

    __slots__ = ('data',)

    def __init__(self, data):
        self.data = data


class InUse:
    """The packed state unpacked for the checks running now, least recently used first, bounded by the packed bytes
    they came from: checks run device by device (and read the far end of a link now and then), so what they read
    stays unpacked while they read it and is let go once they have moved on."""

    LIMIT = 8 * 2 ** 20  # packed bytes (about five times as much unpacked)

    def __init__(self):
        self.entries = collections.OrderedDict()  # (id(state), key) -> (state, key, packed size)
        self.size = 0

    def note(self, state, key, size):
        self.entries[(id(state), key)] = (state, key, size)
        self.size += size
        while self.size > self.LIMIT and len(self.entries) > 1:
            _ident, (older, older_key, older_size) = self.entries.popitem(last=False)
            older.release(older_key)
            self.size -= older_size

    def touch(self, state, key):
        self.entries.move_to_end((id(state), key))

    def forget(self, state):
        for key in list(state.unpacked):
            entry = self.entries.pop((id(state), key), None)
            if entry is not None:
                self.size -= entry[2]
            state.release(key)


IN_USE = InUse()
# Neutral state whose parts are shared between devices (checks/views.py: a tier's port views are one object):
# packed per device, each would hold its own copy of them. Kept as objects.
SHARED_STATE = ('lossless',)


def _packed(value):
    """Packed(value), or the value itself where marshal cannot hold it (a type of its own, deep nesting)."""
    try:
        return Packed(marshal.dumps(value))
    except (ValueError, RecursionError):
        return value


class DeviceState:
    """Raw gathered state of one device ({key: command result}), parsed on first use by its platform's gatherer."""

    def __init__(self, name, raw=None, gatherer=None, parsed=None):
        self.name = name
        self.raw = dict(raw or {})
        self.gatherer = gatherer
        self.model = None
        self._parsed = {}
        self.unpacked = {}  # key -> the value of a Packed entry while it is in use (IN_USE)
        self.packing = False  # parse_all() has run: what is parsed from now on is kept packed too
        self.views = {}  # (key, what) -> a view built from the parsed value of key (derived())
        for key, value in (parsed or {}).items():  # state already parsed (a replay of what a device showed)
            self.raw.setdefault(key, None)
            self._parsed[key] = (False, value) if isinstance(value, StateError) else (True, value)

    def has(self, key) -> bool:
        return key in self.raw

    def describe(self, key) -> str:
        """The command that reads `key` on this device's platform (Result.source)."""
        if self.gatherer is None or self.model is None:
            return key
        return self.gatherer.describe(key, self.model)

    def provides(self, key) -> bool:
        """Whether the device's platform can show this state at all (else checks needing it are not applicable)."""
        return self.gatherer is None or self.gatherer.provides(key)

    def get(self, key):
        """Parsed, platform-neutral state; raises StateError (or DaemonDown) when it is missing or unreadable."""
        if key not in self._parsed:
            try:
                if self.raw.get(UNREADABLE) or not self.raw:
                    # the device could not be read at all (or was never read: it left the play)
                    exc = StateError(key, self.raw.get(UNREADABLE) or 'not gathered')
                    exc.whole_device = True
                    raise exc
                if key not in self.raw:
                    raise StateError(key, 'not gathered')
                if self.gatherer is None:
                    raise StateError(key, 'no gatherer for this device')
                self._parsed[key] = (True, self.gatherer.parse(key, self.raw[key]))
            except StateError as exc:
                exc.device = self.name  # whose state it was: a check may read another device's (the far end)
                # kept without its traceback: its frames would hold the raw output it failed on
                self._parsed[key] = (False, exc.with_traceback(None))
        return self._value(key)

    def _value(self, key):
        ok, value = self._parsed[key]
        if not ok:
            raise value.again()
        if type(value) is not Packed:  # pylint: disable=unidiomatic-typecheck
            return value
        if key in self.unpacked:
            IN_USE.touch(self, key)
            return self.unpacked[key]
        unpacked = self.unpacked[key] = marshal.loads(value.data)
        IN_USE.note(self, key, len(value.data))
        return unpacked

    def derived(self, key, what, build):
        """`build()`, a view of the parsed value of `key` (an index a check judges many subjects on), made once and
        kept as long as that value is (a packed value's views go with it when it is let go)."""
        if (key, what) not in self.views:
            self.views[(key, what)] = build()
        return self.views[(key, what)]

    def release(self, key):
        """Let go of the unpacked value of `key` and the views made from it (it stays packed)."""
        self.unpacked.pop(key, None)
        for view in [view for view in self.views if view[0] == key]:
            del self.views[view]

    def _pack(self, key, value, in_use):
        """Keep a parsed value packed (where marshal can hold it and no part of it is shared with other devices);
        with `in_use`, the value stays unpacked until IN_USE lets it go."""
        kept = value if key in SHARED_STATE else _packed(value)
        self._parsed[key] = (True, kept)
        if type(kept) is not Packed:  # pylint: disable=unidiomatic-typecheck
            return
        if in_use:
            self.unpacked[key] = value
            IN_USE.note(self, key, len(kept.data))
        else:
            self.release(key)  # views made of the value before it was packed go with it

    def parse_all(self):
        """Parse every output the gatherer reads now, then let the raw text go (the key stays, so has() still says it
        was read) and keep the parsed state packed between uses (Packed): the judging step of a fleet holds the
        parsed state of thousands of devices, packed, not their raw outputs."""
        if self.gatherer is None or not self.raw or self.raw.get(UNREADABLE):
            return self
        for key in list(self.raw):
            if self.raw[key] is not None and self.gatherer.parser(key) is not None:
                try:
                    self.get(key)
                except StateError:
                    pass  # kept, raised again to the check that reads it
                self.raw[key] = None
        self.packing = True
        for key, (ok, value) in list(self._parsed.items()):
            if ok and type(value) is not Packed:  # pylint: disable=unidiomatic-typecheck
                self._pack(key, value, in_use=False)
        IN_USE.forget(self)  # what a check read before the packing: let go until one reads it again
        return self

    def handed(self) -> tuple:
        """(raw, parsed) of this state after parse_all(): what a process that parsed it hands to the one that judges
        (DeviceState.taken)."""
        return self.raw, self._parsed

    @classmethod
    def taken(cls, name, handed) -> DeviceState:
        """The state another process parsed (handed()), as parse_all() left it there."""
        state = cls(name)
        state.raw, state._parsed = handed  # pylint: disable=protected-access
        state.packing = True
        return state

    def parsed_with(self, key, parse):
        """State that does not come from the gatherer (what a role task registered), parsed by `parse` once;
        raises StateError (NotApplicable passes through)."""
        if key not in self._parsed:
            try:
                self._parsed[key] = (True, parse(self.raw.get(key)))
            except StateError as exc:
                exc.device = self.name
                self._parsed[key] = (False, exc.with_traceback(None))
        ok, value = self._parsed[key]
        if not ok:
            raise value.again()
        return value

    def rates(self, key='counters'):
        """Per-second rates between the two readings of `key` (and `<key>.2`), taken `interval` seconds apart."""
        cache_key = key + '/rates'
        if cache_key not in self._parsed:
            try:
                first, second = self.get(key), self.get(key + SECOND)
                times = self.raw.get(TIMES) or {}
                if key not in times or key + SECOND not in times:
                    raise StateError(key, 'the time of the two readings was not recorded')
                value = rates(first, second, times[key + SECOND] - times[key])
                value['not_applicable'] = second.get('not_applicable')
                if self.packing:
                    self._pack(cache_key, value, in_use=True)
                else:
                    self._parsed[cache_key] = (True, value)
            except StateError as exc:
                self._parsed[cache_key] = (False, exc.with_traceback(None))
        return self._value(cache_key)


# Entries of Context.cache that depend on the design alone (shared between the contexts of a fleet reading).
DESIGN_MEMO = ('vni_vteps', 'rail_members', 'rail_order', 'marking_flows')


class Context:
    """The design, device models and states of one validation run."""

    def __init__(self, design, states=None, options=None, shared=None):
        """`shared`: a Context of the same design and options whose device models, cabling and design-level memo
        (DESIGN_MEMO, computed there first) this one reuses: a fleet reading judges each device on a context of its
        own, and a model or a fabric-wide map is made once for the fleet, not once per device."""
        self.design = design
        self.states = {name: (state if isinstance(state, DeviceState) else DeviceState(name, state))
                       for name, state in (states or {}).items()}
        self.options = dict(options or {})
        self._models = shared._models if shared is not None else {}
        self._links = shared.links() if shared is not None else None
        self.cache = {}  # catalog memo: fabric-wide maps computed once per run
        if shared is not None:
            self.cache.update((key, shared.cache[key]) for key in DESIGN_MEMO if key in shared.cache)

    def model(self, name) -> dict:
        if name not in self._models:
            self._models[name] = self.design.device(name)
        return self._models[name]

    def state(self, name) -> DeviceState:
        if name not in self.states:
            self.states[name] = DeviceState(name)
        state = self.states[name]
        if state.gatherer is None and name in self.design.nodes:
            state.model = self.model(name)
            state.gatherer = gatherer_for(state.model)
        return state

    def links(self):
        """The cabling: {(device, port): 'device port' of the lower end of its link} (made once)."""
        if self._links is None:
            self.link_of('', '')
        return self._links

    def link_of(self, device, port):
        """'device port' of the lower end of the cabled link at `device` `port` (None: not a cabled port)."""
        if self._links is None:
            table = {}
            for link in self.design.links:
                lower = '%s %s' % (link.lower.name, self.design.interface_name(link.lower, link))
                table[(link.lower.name, self.design.interface_name(link.lower, link))] = lower
                table[(link.upper.name, self.design.interface_name(link.upper, link))] = lower
            self._links = table
        return self._links.get((device, port))

    def gathered(self, name) -> bool:
        return name in self.states and bool(self.states[name].raw) and not self.states[name].raw.get(UNREADABLE)


def run(ctx, devices=None, check_ids=None, categories=None, local_only=False) -> list:
    """Run every applicable check on `devices` (default: every device of the design).

    `local_only` leaves out the checks that read other devices' state (what one device can judge by itself).
    """
    results = []
    _run_into(results, ctx, devices, check_ids, categories, local_only)
    return results


def judge(ctx, devices=None, check_ids=None, categories=None, processes=1) -> Judged:
    """run() for a whole validation: the results into a Judged, which counts the passes as they come (a fabric's
    millions of passes are never all held) and remembers the subjects the root-cause engine asks about. With
    `processes` > 1, the devices are judged in that many processes forked from this one, each a run of devices that
    follow each other (judge_processes()): the same results in the same order, on as many cores."""
    names = list(devices if devices is not None else ctx.design.device_names())
    processes = max(1, min(processes, len(names)))
    if processes == 1:
        judged = _judged_of(ctx)
        _run_into(judged, ctx, names, check_ids, categories, False)
        return judged
    shares = shares_of(names, processes)

    def judge_share(index):
        judged = _judged_of(ctx)
        try:
            _run_into(judged, ctx, shares[index], check_ids, categories, False)
            return pickle.dumps(judged, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as error:  # pylint: disable=broad-exception-caught
            return pickle.dumps(JudgingError('judging process %d (devices %s to %s): %s: %s' % (
                index, shares[index][0], shares[index][-1], type(error).__name__, error)))

    answers: dict[int, Judged] = {}
    for index, answer in forked(range(processes), judge_share):
        # nosec B301: from a process this one forked, on a pipe of its own; never a file
        share = pickle.loads(answer) if answer else JudgingError(  # nosec B301
            'judging process %d ended without an answer (killed?)' % index)
        if isinstance(share, JudgingError):
            raise share  # the other processes are stopped: their results are not wanted
        answers[index] = share
    joined = answers[0]
    joined.group_of = device_group_of(ctx.design)
    for index in range(1, processes):
        joined.join(answers[index])
    return joined


def take_in_processes(ctx, shares, take) -> dict:
    """{device: what take() returned for it} of take(share) run on each of `shares` (lists of devices) in a process
    forked from this one, each taking its devices' readings into its copy of `ctx` and parsing them there
    (DeviceState.parse_all): their parsed states come back into `ctx`. A fleet's readings are parsed on as many cores
    as there are shares, as its judging is. An exception take() raised is raised here (the other processes are
    stopped)."""
    def take_share(index):
        try:
            taken = take(shares[index])
            answer = (taken, {name: ctx.states[name].handed() for name in taken if name in ctx.states})
        except BaseException as error:  # pylint: disable=broad-exception-caught
            answer = error if _picklable(error) else JudgingError('reading process %d (devices %s to %s): %s: %s' % (
                index, shares[index][0], shares[index][-1], type(error).__name__, error))
        return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)

    answers: dict[int, dict] = {}
    for index, answer in forked(range(len(shares)), take_share):
        # nosec B301: from a process this one forked, on a pipe of its own; never a file
        share = pickle.loads(answer) if answer else JudgingError(  # nosec B301
            'the process parsing the readings of devices %s to %s ended without an answer (killed?)'
            % (shares[index][0], shares[index][-1]))
        if isinstance(share, BaseException):
            raise share
        taken, states = share
        for name, handed in states.items():
            ctx.states[name] = DeviceState.taken(name, handed)
        answers[index] = taken
    return {name: item for index in range(len(shares)) for name, item in answers[index].items()}


def _picklable(error) -> bool:
    try:
        pickle.loads(pickle.dumps(error))  # nosec B301: what this process just made
    except Exception:  # pylint: disable=broad-exception-caught
        return False
    return True


class JudgingError(RuntimeError):
    """A process of a judging split between processes failed (said with why)."""


# Devices a judging process takes at least when their number is chosen (0): below this, a fork and the results sent
# back cost more than the core saves.
JUDGING_SHARE = 256


def judge_processes(requested: int, devices: int) -> int:
    """How many processes judge `devices`: `requested`, or with 0 one per CPU core, at most one per JUDGING_SHARE."""
    return processes_for(requested, devices, JUDGING_SHARE)


def _judged_of(ctx) -> Judged:
    return Judged(device_group_of(ctx.design), remember=[item.id for item in REGISTRY.values() if item.remember_passes])


def _run_into(results, ctx, devices, check_ids, categories, local_only):
    names = devices if devices is not None else ctx.design.device_names()
    selected = [item for item in REGISTRY.values()
                if (check_ids is None or item.id in check_ids) and (categories is None or item.category in categories)
                and not (local_only and item.peers)]
    with paused_collector():
        for name in names:
            model = ctx.model(name)
            for item in selected:
                if model['role'] in item.roles:
                    results.extend(item.run(ctx, model))


@contextlib.contextmanager
def paused_collector():
    """The cycle collector off for a block that makes millions of acyclic objects (parsed states, results): it would
    rescan all of them over and over, a cost that grows with the square of the fabric."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def summary(results) -> dict:
    counts = {status: 0 for status in STATUSES}
    by_check = {}
    for result in results:
        counts[result.status] += 1
        entry = by_check.setdefault(result.check, {status: 0 for status in STATUSES})
        entry[result.status] += 1
    run_count = len(results) - counts[NOT_APPLICABLE]
    # green only when something was checked and nothing failed: 0 checks run is never a pass
    return {'total': len(results), 'counts': counts, 'by_check': by_check, 'checks_run': run_count,
            'ok': counts[FAIL] == 0 and counts[ERROR] == 0 and run_count > 0,
            'problems': counts[FAIL] + counts[ERROR]}


def _load_all():
    from . import fabric, lossless, links, health, anta_catalog, dataplane, drift  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel


_load_all()

__all__ = ['Result', 'Check', 'Subject', 'Outcome', 'Unexpected', 'NotApplicable', 'REGISTRY', 'register',
           'DeviceState', 'Context', 'run', 'judge', 'judge_processes', 'take_in_processes', 'JudgingError', 'JUDGING_SHARE',
           'Judged', 'paused_collector', 'summary', 'state_problem', 'passed', 'failed', 'verdict',
           'not_applicable_text', 'StateError', 'PASS', 'FAIL', 'ERROR', 'NOT_APPLICABLE', 'STATUSES']
