"""Every test runs once on each backend: the compiled core and the pure twin;
and the fixtures the file tests share.

Two tiers: ``pytest`` runs every test of every function, format and backend
with fewer examples (property tests 10 each), leaves out the sweeps marked
``exhaustive`` (every value below a bound, every position of a board, large
files), and runs the tests of the commands (a fibnim process each) on the
compiled core alone; ``pytest --exhaustive`` (or FIBNIM_EXHAUSTIVE=1, which
reaches the suites that tools run) runs everything, every property test with
200 examples: CI does."""

from __future__ import annotations

import os
import signal

import _support
import pytest
from hypothesis import HealthCheck, settings

from fibnim import _backend

for name, examples in (("exhaustive", 200), ("fast", 10)):
    settings.register_profile(
        name, max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


#: what a test calls to start fibnim's commands (tests/_support.py), or any process
PROCESSES = {"run_fibnim", "subprocess_env", "subprocess"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--exhaustive",
        action="store_true",
        help="fibnim: also run the sweeps marked exhaustive, and every property test with "
        "200 examples (CI does)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "exhaustive: a sweep that the fast tier leaves out (run by --exhaustive)"
    )
    config.addinivalue_line(
        "markers",
        "commands: runs fibnim's commands (a process each; a test that calls run_fibnim, "
        "subprocess_env or subprocess counts as marked): the fast tier runs it on the "
        "compiled core alone",
    )
    exhaustive = config.getoption("--exhaustive") or os.environ.get("FIBNIM_EXHAUSTIVE") == "1"
    _support.EXHAUSTIVE = bool(exhaustive)
    profile = "exhaustive" if _support.EXHAUSTIVE else "fast"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", profile))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _support.EXHAUSTIVE:
        return
    compiled = "cython" in _backend.available()

    def starts_processes(item: pytest.Item) -> bool:
        code = getattr(getattr(item, "function", None), "__code__", None)
        names = set(code.co_names) if code is not None else set()
        return bool(item.get_closest_marker("commands")) or not PROCESSES.isdisjoint(names)

    def later(item: pytest.Item) -> bool:
        if item.get_closest_marker("exhaustive"):
            return True
        # a command's process on the pure twin: the same code as on the compiled
        # core but for the kernels, which the in-process tests run on both
        callspec = getattr(item, "callspec", None)
        on_pure = callspec is not None and callspec.params.get("backend") == "python"
        return compiled and on_pure and starts_processes(item)

    left = [item for item in items if later(item)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if not later(item)]


def pytest_report_header(config: pytest.Config) -> str:
    if _support.EXHAUSTIVE:
        return "fibnim: the exhaustive tier (every sweep, property tests 200 examples each)"
    return (
        "fibnim: the fast tier (property tests 10 examples each; the sweeps marked "
        "exhaustive, and the commands' tests on the pure twin, are deselected: "
        "pytest --exhaustive runs them)"
    )


# Started in the background by a script (`pytest &`, nohup), the suite finds
# Ctrl-C ignored, and every process it starts would inherit that: the tests
# that interrupt a child would wait on it forever. With a handler here, the
# children start with Ctrl-C at its default, as a terminal starts them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=["cython", "python"], autouse=True)
def backend(request: pytest.FixtureRequest):
    """Switch fibnim's kernels to one backend for the test, and back after it,
    with the compiled core's implementation it found (whatever order the tests
    run in, on one process or several)."""
    before, path = _backend.name(), compiled_path()
    if request.param not in _backend.available():
        # Only a pure install gets here: FIBNIM_REQUIRE_EXTENSION (CI) fails at import.
        pytest.skip("the compiled extension is not built in this installation")
    _backend.use(request.param)
    yield request.param
    if path is not None and compiled_path() != path:
        _backend.use_implementation(path)
    _backend.use(before)


def compiled_path() -> str | None:
    """The compiled core's implementation in use, whatever the backend (None: no core)."""
    if "cython" not in _backend.available():
        return None
    before = _backend.name()
    _backend.use("cython")
    try:
        return _backend.implementation()
    finally:
        _backend.use(before)


@pytest.fixture(params=["arrow", "own"])
def text_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that asks runs with pyarrow reading and writing CSV, and without it."""
    if request.param == "own":
        monkeypatch.setenv("FIBNIM_NO_ARROW", "1")
    return str(request.param)
