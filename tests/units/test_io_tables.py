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


def _doubles():
    """Doubles of every kind: random bit patterns over the whole range (subnormals and the largest among them),
    integers, halves (ties at 17 digits where 10^q is exact), the powers of ten and their neighbours, and
    special values."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**64, size=100_000, dtype=np.uint64).view(np.float64)
    powers = 10.0 ** np.arange(-323, 309)
    halves = (rng.integers(0, 10**17, size=20_000) + 0.5) * 10.0 ** rng.integers(-30, 30, size=20_000)
    special = [0.0, -0.0, 0.1, 1 / 3, 1e16, 1e17, 1e-4, 1e-5, 9.999999999999999e16, 5e-324, 2.2250738585072014e-308,
               1.7976931348623157e308, 2.0**53 + 2, 0.5, 1e22, 1e23, np.nan, np.inf, -np.inf]
    return np.concatenate([bits, powers, np.nextafter(powers, 0), np.nextafter(powers, np.inf), halves,
                           rng.integers(-10**18, 10**18, size=20_000).astype(float), special, -np.array(special)])


def test_compiled_text_is_printf():
    """The compiled writer (``decimal_kernels``) gives the text of the definition, ``'%.17g' % x`` value by value
    (missing values empty), byte for byte, for doubles of every kind, and with a column of words among them."""
    from femdyn.io.tables import _compiled_lines, _python_lines

    x = _doubles()
    assert _compiled_lines([x]) == _python_lines([x])
    columns = [x[:900].reshape(300, 3)[:, 0], np.array(["ok", "singular", ""] * 100), x[1:301], x[-300:]]
    assert _compiled_lines(columns) == _python_lines(columns)


def test_compiled_text_leaves_to_python_what_it_cannot_write():
    """Words that are not ASCII or that the missing-value rule would blank go the definition's way."""
    from femdyn.io.tables import _compiled_lines

    assert _compiled_lines([np.array([1.0]), np.array(["é"])]) is None
    assert _compiled_lines([np.array([np.nan]), np.array(["nan"])]) is None


def test_large_table_round_trip(tmp_path):
    """A table large enough for the compiled writer reads back bit for bit (NaN for the missing values)."""
    x = _doubles()[:60_000]
    write_csv(tmp_path / "large.csv", {"a": x[::2], "b": x[1::2]})
    back = read_csv(tmp_path / "large.csv")
    for name, values in (("a", x[::2]), ("b", x[1::2])):
        assert back[name].tobytes() == np.where(np.isfinite(values), values, np.nan).tobytes()
