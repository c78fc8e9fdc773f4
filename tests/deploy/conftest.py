"""Deploy tests run the real drivers and playbooks against the device doubles (tests/doubles)."""

from tests.doubles.pytest_doubles import doubles_fleet, ssh_double, ssh_key  # noqa: F401  pylint: disable=unused-import
