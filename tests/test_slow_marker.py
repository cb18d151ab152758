"""The default run leaves out the tests marked slow and says how to run them; a run that
chooses its tests gets them (tests/slow_marker.py). Run through pytest's own pytester, on a
project of two tests, with the plugin as conftest.py loads it."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

TWO_TESTS = """
import pytest

def test_quick():
    pass

@pytest.mark.slow
def test_long():
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_two.py").write_text(TWO_TESTS)
    return pytester


def ran(project: pytest.Pytester, *args: str) -> tuple[list[str], str]:
    result = project.runpytest("-p", "slow_marker", "-v", "-p", "no:cacheprovider", *args)
    names = [line.split("::")[1].split()[0] for line in result.outlines
             if "::test_" in line and "PASSED" in line]
    return sorted(names), result.stdout.str()


def test_the_default_run_leaves_the_slow_test_out_and_names_the_command(
        project: pytest.Pytester) -> None:
    names, out = ran(project)
    assert names == ["test_quick"]
    assert "1 deselected" in out
    assert "tests marked slow were left out: `python -m pytest -q -n auto -m slow`" in out


def test_dash_m_slow_runs_only_the_slow_tests(project: pytest.Pytester) -> None:
    names, out = ran(project, "-m", "slow")
    assert names == ["test_long"]
    assert "left out" not in out


@pytest.mark.parametrize("args", [["tests/test_two.py"], ["tests/test_two.py::test_long"],
                                  ["-k", "test_"], ["-m", "slow or not slow"]])
def test_a_run_that_chooses_its_tests_gets_the_slow_ones(project: pytest.Pytester,
                                                         args: list[str]) -> None:
    names, out = ran(project, *args)
    assert "test_long" in names
    assert "left out" not in out
