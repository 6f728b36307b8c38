"""Fixtures used by tests in more than one folder; the systems they share are in ``shared.py``."""
import pytest
from shared import CASES


@pytest.fixture
def case_path():
    return lambda name: CASES / name
