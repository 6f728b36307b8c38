"""Fixtures used by tests in more than one folder; the systems they share are in ``shared.py``.

The suite runs in two processes (pytest-xdist: ``--numprocesses 2 --dist loadfile`` in pyproject.toml's addopts);
where pytest-xdist is not installed those options are accepted here and the suite runs in one process."""
import importlib.util

import pytest
from shared import CASES

XDIST = importlib.util.find_spec("xdist") is not None


def pytest_addoption(parser):
    if not XDIST:
        group = parser.getgroup("xdist", "pytest-xdist is not installed: the suite runs in one process")
        group.addoption("--numprocesses", dest="numprocesses", default=None, help="ignored")
        group.addoption("--dist", dest="dist", default=None, help="ignored")


def pytest_report_header(config):
    if not XDIST and config.getoption("numprocesses") not in (None, "0"):
        return "pytest-xdist is not installed: --numprocesses ignored, the tests run in this one process"


@pytest.fixture
def case_path():
    return lambda name: CASES / name
