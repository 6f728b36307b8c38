"""``femdyn.warm_up`` and ``femdyn warm-up``: the same cases from Python and from the command line, every
integrator's run of a case, and a case that fails reported (exit code 1, one warning line) instead of raised."""
import femdyn
import femdyn.api.warm_up as warm_up_module
from femdyn.cli import main


def test_the_python_function_runs_each_case_and_reports_a_failing_one(monkeypatch):
    monkeypatch.setattr(warm_up_module, "WARM_UP", ("nm_logo", "no_such_case"))
    seen = []
    result = femdyn.warm_up(seen.append)
    assert seen == ["nm_logo", "no_such_case"] and result.cases == ("nm_logo", "no_such_case")
    assert not result.ok and list(result.failed) == ["no_such_case"]
    assert "no_such_case.toml" in result.failed["no_such_case"]
    assert result.seconds > 0.0


def test_the_command_warns_once_per_failing_case_and_exits_1(monkeypatch, capsys):
    monkeypatch.setattr(warm_up_module, "WARM_UP", ("nm_logo", "no_such_case"))
    assert main(["warm-up"]) == 1
    out, err = capsys.readouterr()
    warnings = err.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("warning: ") and "no_such_case.toml" in warnings[0]
    assert "Traceback" not in err and "  nm_logo\n" in out and "1 of 2 cases ran" in out


def test_the_command_exits_0_when_every_case_runs(monkeypatch, capsys):
    monkeypatch.setattr(warm_up_module, "WARM_UP", ("nm_logo",))
    assert main(["warm-up"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "1 of 1 cases ran" in out
