# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A check is a small declared unit (the shape of ANTA's AntaTest): what it is about, what it takes from the design,
which neutral state it reads, how a failure reads, with an example; and three methods:

    subjects(ctx, model)                 what the design says to check on this device (Subject per neighbour, port...)
    read(ctx, model, subject)            the state the subject is judged on (default: this device's `state` keys)
    judge(ctx, model, subject, state)    an Outcome: passed(seen) / failed(seen, message=...)
    unexpected(ctx, model)               optional: what the device has and the design does not (findings)

The base owns the loop over the subjects and the branches every check used to write by hand: state a platform
cannot show is `not_applicable` once per device and reason (with the reason, said once); state that cannot be
read is an `error` (a daemon that is down is a `fail`: a fact about the device); a subject about a cabled port
names its link. docs/validation.md's per-check tables are generated from the declarations (checks/docgen.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..printable import visible
from ..state import DaemonDown, StateError

PASS = 'pass'
FAIL = 'fail'
ERROR = 'error'
NOT_APPLICABLE = 'not_applicable'
STATUSES = (FAIL, ERROR, NOT_APPLICABLE, PASS)  # report order: problems first
NA_PREFIX = 'not applicable: '
intern = sys.intern


@dataclass(slots=True)
class Result:
    """One checked fact about one device: what the design expects and what the device shows."""

    device: str
    check: str
    subject: str
    status: str
    expected: str = ''
    seen: str = ''
    message: str = ''
    rule: str | None = None
    category: str = 'fabric'
    source: str | None = None
    link: str | None = None  # 'device port' of the lower end of the cabled link the result is about
    # What was observed, as data (failures only): the root-cause engine reasons on these, never on the words above.
    facts: dict | None = None

    def to_dict(self) -> dict:
        item: dict = {'device': self.device, 'check': self.check, 'subject': self.subject, 'status': self.status,
                      'expected': self.expected, 'seen': self.seen, 'message': self.message, 'rule': self.rule,
                      'category': self.category, 'source': self.source, 'link': self.link}
        if self.facts is not None:
            item['facts'] = self.facts
        return item

    def key(self) -> str:
        """`<check> <subject>`: how a result is named between readings and runs (must_pass, convergence.steady)."""
        return '%s %s' % (self.check, self.subject)

    def fingerprint(self) -> tuple:
        """What this result says about the device, comparable between two readings: the check, the subject, the
        status and the observed facts (a failure's words may carry a time stamp or an ARP state; its facts do not)."""
        return (self.check, self.subject, self.status, _frozen(self.facts) if self.facts is not None else self.seen)

    def line(self) -> str:
        """'leaf001 bgp_session [10.0.0.0 spine001]: expected ..., seen ...' for logs and failures: one line, each value
        made visible and bounded (printable.visible; report.json keeps them whole)."""
        text = '%s %s [%s]: expected %s; seen %s' % (self.device, self.check, visible(self.subject),
                                                     visible(self.expected), visible(self.seen))
        if self.message:
            text += ' (%s)' % visible(self.message)
        return text


def _frozen(value):
    """A hashable, ordered copy of plain data (facts), for comparing two readings."""
    if isinstance(value, dict):
        return tuple(sorted((str(key), _frozen(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_frozen(item) for item in value]
        return tuple(sorted(items, key=repr)) if isinstance(value, (set, frozenset)) else tuple(items)
    return value


def not_applicable_text(reason) -> str:
    """'not applicable: <reason>', said once however the reason was worded."""
    reason = ' '.join(str(reason).split())
    while reason.lower().startswith(NA_PREFIX):
        reason = reason[len(NA_PREFIX):]
    return NA_PREFIX + reason


class NotApplicable(Exception):
    """State this device, its platform or the lab cannot have: the check is not applicable, with the reason."""

    def __init__(self, reason, source=None):
        super().__init__(reason)
        self.reason = reason
        self.source = source


class Subject:
    """One thing a check judges on a device: its name in the report, what the design expects, the cabled port it
    is about (the result then names its link), the phase (lossless checks judge the design and the deployed state)
    and whatever the judge needs from the design."""

    __slots__ = ('name', 'expected', 'port', 'phase', 'data')

    def __init__(self, name, expected='', port=None, phase=None, data=None):
        self.name = name
        self.expected = expected
        self.port = port
        self.phase = phase
        self.data = data


class Outcome:
    """The verdict on one subject; `device` attributes it elsewhere (a health finding starts on the other end)."""

    __slots__ = ('status', 'seen', 'message', 'expected', 'device', 'rule', 'source', 'subject', 'facts')

    def __init__(self, status, seen, message='', expected=None, device=None, rule=None, source=None, subject=None,
                 facts=None):
        self.status = status
        self.facts = facts  # kept on failures only (Check.run): what the root-cause engine reasons on
        self.seen = seen
        self.message = message
        self.expected = expected
        self.device = device
        self.rule = rule
        self.source = source
        self.subject = subject


def passed(seen, **kwargs) -> Outcome:
    return Outcome(PASS, seen, **kwargs)


def failed(seen, **kwargs) -> Outcome:
    return Outcome(FAIL, seen, **kwargs)


def verdict(ok, seen, **kwargs) -> Outcome:
    return Outcome(PASS if ok else FAIL, seen, **kwargs)


def problem_facts(device, exc) -> dict:
    """The facts of state that could not be read: the daemon that is down, the device that could not be read at all,
    or the state that was unreadable (its words, which may carry a time stamp, stay in `seen`)."""
    if isinstance(exc, DaemonDown):
        return {'daemon': exc.daemon, 'running': False, 'on': getattr(exc, 'device', None) or device}
    facts = {'unreadable': getattr(exc, 'device', None) or device, 'state': exc.source}
    if getattr(exc, 'whole_device', False):
        facts['whole_device'] = True
    return facts


def state_problem(device, check_id, subject, exc, expected, category='fabric', rule=None, command=None):
    """Result for state that could not be read, naming the command that read it (`command`, the platform's own
    words). A daemon that is down is a failure, not an error."""
    status = FAIL if isinstance(exc, DaemonDown) else ERROR
    message = 'state %s, read with %s' % (exc.source, command) if command else 'state: %s' % exc.source
    return Result(device, check_id, subject, status, expected, exc.message, message,
                  rule=rule, category=category, source=command or exc.source, facts=problem_facts(device, exc))


class Unjudged(StateError):
    """The state a device gave could not be judged: a value no parser or check foresaw. It is that device's error,
    never the run's (every other device is still judged)."""


@dataclass(frozen=True)
class Unexpected:
    """State the device has and the design does not: a finding (fail) with what the design says instead."""

    subject: str
    seen: str
    expected: str = 'nothing (not in the design)'
    message: str = ''
    port: str | None = None
    facts: dict | None = None


class Check:
    """Base of every check. Subclasses declare the class attributes below and implement subjects() and judge()."""

    id = ''
    title = ''
    category = 'fabric'  # fabric | lossless | health | anta
    roles: tuple[str, ...] = ()  # device roles it applies to
    per = ''  # what one result is about, for people ("BGP neighbour", "switch port", "link")
    state: tuple[str, ...] = ()  # neutral state keys it reads (empty: the design only)
    explains: tuple[str, ...] = ()  # state keys it reads only to explain a failure
    rules: tuple[str, ...] = ()  # lossless reference rule ids
    peers = False  # reads the state of other devices too (the other end of a link)
    remember_passes = False  # the root-cause engine asks which of its subjects passed (Graph.passed)
    inputs = ''  # what it takes from the design
    description = ''  # what passes
    failure = ''  # what a failure says
    example = ''  # one failure as the report prints it
    na_subject = 'all'  # subject of the one not-applicable result per device and reason
    na_expected = 'state from the device'
    error_subject: str | None = None  # a format ('all ports [{phase}]') when unreadable state is one error, not one per subject
    source_per_subject = False  # source() differs between the subjects of one device and phase

    # ------------------------------------------------------------------ what subclasses implement
    def subjects(self, ctx, model):
        """Subjects of this device, from the design."""
        raise NotImplementedError

    def read(self, ctx, model, subject):
        """The state a subject is judged on: by default this device's `state` keys, parsed (one value for one key,
        a tuple for several). Raises NotApplicable or StateError."""
        state = ctx.state(model['name'])
        values = []
        for key in self.state:
            if not state.provides(key):
                raise NotApplicable('the %s gatherer does not read %s' % (state.gatherer.title, key))
            values.append(state.get(key))
        return values[0] if len(values) == 1 else tuple(values)

    def judge(self, ctx, model, subject, state) -> Outcome:
        raise NotImplementedError

    def unexpected(self, ctx, model):
        """Findings about state the design does not have (default: none)."""
        return ()

    # ------------------------------------------------------------------ root cause (checks/causes.py)
    def node(self, graph, result):
        """The node of the design's dependency graph (checks/graph.py) a failed or errored result is evidence of,
        from its facts: a daemon that is down, a device that could not be read, else what the check says
        (`fact_node`)."""
        facts = result.facts or {}
        if facts.get('daemon'):
            return ('daemon', facts.get('on') or result.device, facts['daemon'])
        if facts.get('unreadable'):
            if facts['unreadable'] != result.device:  # another device's state this check reads (the far end)
                return ('read', result.device, self.id, facts['unreadable'])
            if facts.get('whole_device'):
                return ('device', facts['unreadable'])
            return ('check', facts['unreadable'], self.id)
        return self.fact_node(graph, result, facts)

    def fact_node(self, graph, result, facts):  # pylint: disable=unused-argument
        """The node of a failure from the check's own facts. Default by category: a lossless finding of the rendered
        configuration (the design phase) is one node per check and finding over the fabric, of the running one one
        per device (`facts['off']`: the device that departs from the design, when the check knows); a health finding
        is where the problem starts; anything else this check on this device."""
        if self.category == 'lossless':
            if facts.get('phase') == 'design':
                return ('lossless_design', self.id, result.seen)
            return ('lossless', (facts.get('off') or [result.device])[0])
        if self.category == 'health':
            return ('health', result.device, result.link or result.subject)
        return ('check', result.device, self.id)

    def finding(self, graph, node, evidence):  # pylint: disable=unused-argument
        """(kind, title, hint) of a cause whose evidence this check leads, written from the facts."""
        first = evidence[0]
        facts = first.facts or {}
        if node[0] == 'daemon':
            return ('daemon_down', '%s: %s is not running' % (node[1], node[2]),
                    'start %s on %s (and find why it stopped: its supervisor, the logs)' % (node[2], node[1]))
        if node[0] == 'device' and node[1] in (graph.ctx.options.get('converging') or {}):
            return ('not_converged', '%s had not converged when its deadline ran out (%s)' % (
                node[1], graph.ctx.options['converging'][node[1]]),
                'not a verdict on the design: validate again, or give it longer (validate_settle_timeout)')
        if node[0] == 'device':
            return ('unreadable', '%s could not be read: %s' % (node[1], first.seen),
                    'check the connection to %s (ansible -m ping %s); no check of it was judged' % (node[1], node[1]))
        if node[0] == 'read':
            return ('unreadable_state', '%s: the state of %s that %s reads could not be read (%s)' % (
                node[3], node[2], node[1], first.seen), 'read it by hand on %s' % node[3])
        if facts.get('unreadable'):
            return ('unreadable_state', '%s: %s could not be read (%s)' % (node[1], facts.get('state'), first.seen),
                    'read it by hand on %s: the command, the daemon that answers it' % node[1])
        if node[0] == 'lossless_design':
            devices = {item.device for item in evidence}
            return ('lossless_design', 'the rendered configuration breaks %s on %d port%s of %d device%s: %s' % (
                node[1], len(evidence), '' if len(evidence) == 1 else 's', len(devices), '' if len(devices) == 1
                else 's', node[2]), 'the intent or the renderer')
        if node[0] == 'lossless':
            ports = {item.subject.split(' ', 1)[0] for item in evidence}
            checks = sorted({item.check for item in evidence})
            return ('lossless', '%s: the running lossless configuration differs from the design (%s on %d port%s/rail%s)'
                    % (node[1], ', '.join(checks), len(ports), '' if len(ports) == 1 else 's',
                       '' if len(ports) == 1 else 's'), 'redeploy %s, or read the differences below' % node[1])
        if node[0] == 'health':
            return ('health', first.seen, first.message)
        if len(evidence) == 1:
            return (self.id, first.line(), first.message)
        return (self.id, '%s %s fails on %d subjects (%s, ...)' % (first.device, self.id, len(evidence), first.subject),
                first.message)

    # ------------------------------------------------------------------ the loop, owned here
    @property
    def func(self):
        """`func(ctx, model) -> [Result]`: the check as a function (the registry's calling convention)."""
        return self.run

    def source(self, ctx, model, subject):
        """The commands behind the state this check read on the device's platform (Result.source)."""
        state = ctx.state(model['name'])
        return '; '.join(state.describe(key) for key in self.state if state.provides(key)) or None

    def result(self, ctx, model, subject, status, seen, message='', expected=None, device=None, rule=None,
               source=None, name=None):
        return Result(device or model['name'], self.id, subject.name if name is None else name, status,
                      subject.expected if expected is None else expected, seen, message,
                      rule=rule if rule is not None else self.rule_text, category=self.category,
                      source=source if source is not None else self.source(ctx, model, subject),
                      link=ctx.link_of(model['name'], subject.port) if subject.port else None)

    @property
    def rule_text(self):
        return ','.join(self.rules) or None

    def run(self, ctx, model) -> list:
        name, check_id, category, rule = model['name'], self.id, self.category, self.rule_text
        results, collapsed, sources = [], {}, {}
        for subject in self.subjects(ctx, model):
            try:
                outcome = self.judge(ctx, model, subject, self.read(ctx, model, subject))
            except NotApplicable as exc:
                self._not_applicable(ctx, model, subject, exc, results, collapsed)
                continue
            except StateError as exc:
                self._problem(ctx, model, subject, exc, results, collapsed)
                continue
            except Exception as exc:  # pylint: disable=broad-exception-caught  # whatever a device printed
                self._problem(ctx, model, subject, self._unjudged(exc), results, collapsed)
                continue
            if outcome is None:
                continue
            source = outcome.source
            if source is None:
                if self.source_per_subject:
                    source = self.source(ctx, model, subject)
                else:  # the same commands for every subject of the device (in one phase)
                    if subject.phase not in sources:
                        sources[subject.phase] = self.source(ctx, model, subject)
                    source = sources[subject.phase]
            # interned: a fabric repeats the same expectation and the same finding on thousands of ports
            results.append(Result(outcome.device or name, check_id, outcome.subject or subject.name, outcome.status,
                                  intern(subject.expected if outcome.expected is None else outcome.expected),
                                  intern(outcome.seen), outcome.message, rule if outcome.rule is None else outcome.rule,
                                  category, source, ctx.link_of(name, subject.port) if subject.port else None,
                                  None if outcome.status == PASS else outcome.facts if outcome.facts is not None
                                  else {'phase': subject.phase} if subject.phase else None))
        try:
            findings = list(self.unexpected(ctx, model))
        except StateError:
            findings = []  # unreadable state: the subjects' results above already say so
        except Exception as exc:  # pylint: disable=broad-exception-caught  # whatever a device printed
            findings = []
            self._problem(ctx, model, Subject('state the design does not have'), self._unjudged(exc), results,
                          collapsed)
        for finding in findings:
            subject = Subject(finding.subject, finding.expected, port=finding.port)
            result = self.result(ctx, model, subject, FAIL, finding.seen, finding.message)
            result.facts = dict(finding.facts or {}, unexpected=True)
            results.append(result)
        return results

    def _not_applicable(self, ctx, model, subject, exc, results, collapsed):
        """One result per device and reason; the phases it covers are joined in its source."""
        message = not_applicable_text(exc.reason)
        key = (NOT_APPLICABLE, message)
        source = subject.phase or exc.source
        if key in collapsed:
            first = collapsed[key]
            if source and first.source and source not in first.source.split(' and '):
                first.source += ' and %s' % source
            return
        first = Result(model['name'], self.id, self.na_subject, NOT_APPLICABLE, self.na_expected, '-',
                       message, rule=','.join(self.rules) or None, category=self.category, source=source)
        collapsed[key] = first
        results.append(first)

    def _problem(self, ctx, model, subject, exc, results, collapsed):
        command = self._command(ctx, model, subject)
        if self.error_subject is None:
            result = state_problem(model['name'], self.id, subject.name, exc, subject.expected, self.category,
                                   ','.join(self.rules) or None, command)
            result.link = ctx.link_of(model['name'], subject.port) if subject.port else None
            results.append(result)
            return
        name = self.error_subject.format(phase=subject.phase or '')
        if (ERROR, name) in collapsed:
            return
        result = state_problem(model['name'], self.id, name, exc, self.na_expected, self.category,
                               ','.join(self.rules) or None, command)
        collapsed[(ERROR, name)] = result
        results.append(result)

    def _unjudged(self, exc):
        return Unjudged(', '.join(self.state) or self.id, 'the %s check cannot judge what the device gave: %s'
                        % (self.id, exception_text(exc)))

    def _command(self, ctx, model, subject):
        """The commands behind the state of a problem, or None where they cannot be told (no gatherer)."""
        try:
            return self.source(ctx, model, subject)
        except Exception:  # pylint: disable=broad-exception-caught  # an error about an error must not end the run
            return None


def exception_text(exc) -> str:
    """What an unexpected exception says, in one line without its class name (a person reads it, not a developer)."""
    return ' '.join(str(exc).split())[:300] or 'an unexpected value'


__all__ = ['Check', 'Subject', 'Outcome', 'Unexpected', 'NotApplicable', 'Result', 'passed', 'failed', 'verdict',
           'state_problem', 'not_applicable_text', 'Unjudged', 'exception_text', 'PASS', 'FAIL', 'ERROR',
           'NOT_APPLICABLE', 'STATUSES']
