"""The doubles' own tests use the shared fixtures (tests/doubles/pytest_doubles.py)."""

from tests.doubles.pytest_doubles import ROOT, doubles_fleet, eos_double, ssh_double, ssh_key  # noqa: F401  pylint: disable=unused-import
