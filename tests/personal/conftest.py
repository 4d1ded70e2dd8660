"""The personal-memory tests share the evolution tests' in-process CLI fixture."""

from tests.evolution.conftest import cli  # noqa: F401  (a fixture, used by name)
