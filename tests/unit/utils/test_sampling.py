"""The sample of a generated sweep: every stratum kept, the same cases for the same seed, every case when exhaustive."""

import collections

import pytest

from tests.unit.utils import sampling

CASES = [('value', n) for n in range(200)] + [('number', n) for n in range(40)] + [('key', 0)]


def _stratum(case):
    return case[0]


def _draw(monkeypatch, seed, share=0.25, name='sweep', exhaustive=''):
    monkeypatch.setenv(sampling.SEED_VARIABLE, str(seed))
    monkeypatch.setenv(sampling.EXHAUSTIVE_VARIABLE, exhaustive)
    return sampling.stratified(CASES, _stratum, share, name)


def test_every_stratum_is_sampled_with_its_share(monkeypatch):
    drawn = _draw(monkeypatch, 7)
    counts = collections.Counter(_stratum(case) for case in drawn)
    assert counts == {'value': 50, 'number': 10, 'key': 1}  # a stratum of one case keeps it
    assert drawn == sorted(drawn, key=CASES.index)  # in the sweep's order


def test_the_same_seed_draws_the_same_cases_and_another_seed_others(monkeypatch):
    assert _draw(monkeypatch, 7) == _draw(monkeypatch, 7)
    assert _draw(monkeypatch, 7) != _draw(monkeypatch, 8)
    assert _draw(monkeypatch, 7, name='one sweep') != _draw(monkeypatch, 7, name='another')


def test_exhaustive_takes_every_case(monkeypatch):
    assert _draw(monkeypatch, 7, exhaustive='1') == CASES
    assert 'every case' in sampling.describe()


def test_the_seed_is_named_with_how_to_replay_it(monkeypatch):
    monkeypatch.setenv(sampling.SEED_VARIABLE, '1234')
    monkeypatch.delenv(sampling.EXHAUSTIVE_VARIABLE, raising=False)
    assert 'seed 1234 (AIFABRIC_SAMPLE_SEED=1234 replays it' in sampling.describe()


def test_a_run_without_a_seed_gets_one_and_keeps_it(monkeypatch):
    monkeypatch.delenv(sampling.SEED_VARIABLE, raising=False)
    seed = sampling.run_seed()
    assert seed == sampling.run_seed() > 0


@pytest.mark.parametrize('seed, share', [('abc', 0.25), ('7', 0), ('7', 1.5)])
def test_a_bad_seed_or_share_is_refused_naming_it(monkeypatch, seed, share):
    monkeypatch.setenv(sampling.SEED_VARIABLE, seed)
    monkeypatch.delenv(sampling.EXHAUSTIVE_VARIABLE, raising=False)
    with pytest.raises(ValueError, match='AIFABRIC_SAMPLE_SEED' if seed == 'abc' else 'share'):
        sampling.stratified(CASES, _stratum, share, 'sweep')
