"""Large sweeps of generated cases: a seeded, stratified sample in the default run (`make test`), every case in
`make test-exhaustive`.

A sample keeps every stratum (an operation kind: a mutation operator, a platform, a fabric shape) and a share of the
cases of each, drawn with one seed per run. The seed is printed in pytest's header and in a sweep's failure; the same
seed draws the same cases (`AIFABRIC_SAMPLE_SEED=<seed>` replays a run) and `AIFABRIC_EXHAUSTIVE=1` takes every case.
tests/conftest.py fixes the run's seed before pytest-xdist starts its workers, so that all of them draw alike.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

SEED_VARIABLE = 'AIFABRIC_SAMPLE_SEED'
EXHAUSTIVE_VARIABLE = 'AIFABRIC_EXHAUSTIVE'

Case = TypeVar('Case')


def exhaustive() -> bool:
    """True when every case of every sweep runs (`make test-exhaustive`)."""
    return os.environ.get(EXHAUSTIVE_VARIABLE, '') not in ('', '0')


def run_seed() -> int:
    """This run's seed: AIFABRIC_SAMPLE_SEED, set by tests/conftest.py for the whole run when the caller did not."""
    value = os.environ.get(SEED_VARIABLE)
    if value is None:
        value = os.environ[SEED_VARIABLE] = str(random.SystemRandom().randrange(1, 2 ** 31))
    try:
        return int(value)
    except ValueError:
        raise ValueError('%s must be an integer, got %r' % (SEED_VARIABLE, value)) from None


def describe() -> str:
    """One line for pytest's header and for a sweep's failure: how this run samples and how to replay it."""
    if exhaustive():
        return 'generated sweeps: every case (%s=1)' % EXHAUSTIVE_VARIABLE
    return ('generated sweeps: a stratified sample, seed %d (%s=%d replays it; make test-exhaustive runs every case)'
            % (run_seed(), SEED_VARIABLE, run_seed()))


def stratified(cases: Iterable[Case], stratum: Callable[[Case], Hashable], share: float, name: str,
               minimum: int = 1) -> list[Case]:
    """The cases to run: all of them in an exhaustive run, else of each stratum `share` of its cases (at least
    `minimum`, or all it has), drawn with the run's seed and the sweep's `name` (two sweeps draw independently).
    Order is kept, so that a failure reads like the full sweep's."""
    cases = list(cases)
    if exhaustive():
        return cases
    if not 0 < share <= 1:
        raise ValueError('share must be in (0, 1], got %r' % (share,))
    by_stratum: dict[Hashable, list[int]] = {}
    for index, case in enumerate(cases):
        by_stratum.setdefault(stratum(case), []).append(index)
    draw = random.Random('%d:%s' % (run_seed(), name))  # str seeds hash the same in every process (sha512)
    chosen: set[int] = set()
    for key in sorted(by_stratum, key=repr):
        indexes = by_stratum[key]
        count = min(len(indexes), max(minimum, round(share * len(indexes))))
        chosen.update(draw.sample(indexes, count))
    return [case for index, case in enumerate(cases) if index in chosen]
