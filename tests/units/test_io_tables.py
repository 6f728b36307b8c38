"""Round trip of the CSV tables."""

import numpy as np
import pytest

from femdyn.io.tables import read_csv, write_csv


def test_round_trip_is_bit_exact(tmp_path):
    rng = np.random.default_rng(0)
    columns = {
        "t": np.linspace(0.0, 1.0, 11),
        "energy": rng.standard_normal(11) * 1e6,
        "tiny": rng.standard_normal(11) * 1e-300,
        "special": np.array([np.pi, -0.0, 1 / 3, np.inf, -np.inf, 5e-324, 1e308, 0.1, 0.2, 0.3, 7]),
    }
    path = tmp_path / "table.csv"
    write_csv(path, columns)

    assert path.read_text().splitlines()[0] == "t,energy,tiny,special"
    back = read_csv(path)
    assert list(back) == list(columns)
    for name, values in columns.items():  # finite values bit for bit; inf is no number: missing, NaN
        expected = np.where(np.isfinite(values), values, np.nan)
        assert back[name].tobytes() == expected.tobytes(), name
    rows = path.read_text().splitlines()[1:]  # the last column's infinite fields empty, no "inf" text
    assert [row.endswith(",") for row in rows] == list(~np.isfinite(columns["special"]))
    assert "inf" not in path.read_text()


def test_single_row_and_nan(tmp_path):
    path = tmp_path / "one.csv"
    write_csv(path, {"a": [1.5], "b": [np.nan]})
    back = read_csv(path)
    assert back["a"].shape == (1,) and back["a"][0] == 1.5
    assert np.isnan(back["b"][0])


def test_empty_table(tmp_path):
    path = tmp_path / "empty.csv"
    write_csv(path, {"a": np.empty(0), "b": np.empty(0)})
    back = read_csv(path)
    assert list(back) == ["a", "b"] and back["a"].size == 0


def test_unequal_columns_rejected(tmp_path):
    with pytest.raises(ValueError):
        write_csv(tmp_path / "bad.csv", {"a": [1.0, 2.0], "b": [1.0]})
