"""Every test runs once on each backend: the compiled core and the pure twin;
and the fixtures the file tests share."""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

from fibnim import _backend

settings.register_profile(
    "fibnim", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fibnim"))

# Started in the background by a script (`pytest &`, nohup), the suite finds
# Ctrl-C ignored, and every process it starts would inherit that: the tests
# that interrupt a child would wait on it forever. With a handler here, the
# children start with Ctrl-C at its default, as a terminal starts them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=["cython", "python"], autouse=True)
def backend(request: pytest.FixtureRequest):
    """Switch fibnim's kernels to one backend for the test, and back after it."""
    before = _backend.name()
    if request.param not in _backend.available():
        # Only a pure install gets here: FIBNIM_REQUIRE_EXTENSION (CI) fails at import.
        pytest.skip("the compiled extension is not built in this installation")
    _backend.use(request.param)
    yield request.param
    _backend.use(before)


@pytest.fixture(params=["arrow", "own"])
def text_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that asks runs with pyarrow reading and writing CSV, and without it."""
    if request.param == "own":
        monkeypatch.setenv("FIBNIM_NO_ARROW", "1")
    return str(request.param)
