"""fibnim bench: every kernel covered, the JSON against its schema, the report
written (timings are never asserted)."""

from __future__ import annotations

import argparse
import functools
import json
import platform
import sys
from typing import Any

import pytest
from _support import tier

import fibnim
from fibnim import _backend
from fibnim.bench import add_arguments, main, report, run
from fibnim.bench.suite import CALLS, CASES, GAME_SIZED, SOLVERS

#: the cases this environment runs (one needs pandas, an optional package)
AVAILABLE = [case for case in CASES if case.available()]


@functools.cache
def _quick_run() -> dict[str, Any]:
    """One quick run for the module (for each process of pytest-xdist): the
    bench measures the compiled core whatever the test's backend."""
    before = _backend.name()
    results = run.run("quick")
    _backend.use(before)
    return results


@pytest.fixture
def quick_results():
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    return _quick_run()


def test_every_solver_is_covered():
    # every array function: tests/test_declarations.py
    assert {s.name.split("(")[0] for s in SOLVERS} == {
        "solvers.board",
        "solvers.grundy",
        "solvers.global_outcome",
    }


@pytest.mark.exhaustive
def test_the_per_call_costs_are_measured_and_reported(quick_results):
    calls = quick_results["calls"]
    assert [c["name"] for c in calls["calls"]] == [c.name for c in CALLS]
    for call in CALLS:  # each names a public function, and its two calls run
        module, function = call.name.split(".")
        assert callable(getattr(getattr(fibnim, module), function))
    text = report.markdown(quick_results)
    assert "## Per call" in text
    assert all(f"| {call.name} | " in text for call in CALLS)


def test_the_numpy_versions_agree_where_they_are_exact():
    # greedy encode, decode and lowest term are exact: the count of wrong answers is 0
    # for them and not 0 for the float formulas (the report's point)
    import numpy as np

    rng = np.random.default_rng(1)
    for case in CASES:
        if case.by_hand is None:
            continue
        inputs = case.make(20_000, rng)
        exact = case.call(inputs)
        exact = tuple(np.copy(e) for e in exact) if isinstance(exact, tuple) else np.copy(exact)
        wrong = case.wrong(inputs, case.by_hand(inputs), exact)
        if case.name.startswith("wythoff"):  # the float formulas
            if not case.name.endswith(GAME_SIZED):  # rarely wrong on 20,000 piles below 2**32
                assert wrong > 0, case.name
        else:
            assert wrong == 0, case.name


def test_results_follow_the_schema(quick_results):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(quick_results, report.SCHEMA)
    assert [k["name"] for k in quick_results["kernels"]] == [c.name for c in AVAILABLE]
    assert quick_results["machine"]["fibnim"] == fibnim.__version__
    assert json.loads(json.dumps(quick_results)) == quick_results  # plain JSON


def test_report_is_written(quick_results, tmp_path):
    written = report.write(quick_results, tmp_path)
    names = {p.name for p in written}
    assert {"results.json", "report.md"} <= names
    text = (tmp_path / "report.md").read_text()
    assert "| zeckendorf.encode |" in text and "## Targets" in text
    for case in AVAILABLE:
        assert f"| {case.name} |" in text
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert names == {"results.json", "report.md"}
    else:
        # a figure per topic, and the per-call one: none of 38 tiny panels
        figures = [f"time_{topic}.png" for topic, _, _ in report.TOPICS]
        for png in (*figures, "speedups.png", "calls.png"):
            assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert f"![{png}]({png})" in text


@pytest.mark.exhaustive
def test_each_figure_has_one_legend_of_everything_it_draws(quick_results, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    legends: dict[str, list[str]] = {}

    def legend(figure, panels):  # what each figure's legend gets
        title = panels[0].get_title() if panels else ""
        labels = [label for axis in panels for label in axis.get_legend_handles_labels()[1]]
        legends[title] = labels
        return real(figure, panels)

    real = report._legend
    monkeypatch.setattr(report, "_legend", legend)
    report.plot(quick_results, tmp_path)
    # zeckendorf.fib, the first panel, has no numpy by hand; the figure's legend does
    zeckendorf = legends["zeckendorf.fib"]
    assert "numpy by hand" in zeckendorf and "pure twin" in zeckendorf
    assert any(label.startswith("floor") for label in zeckendorf)
    assert any(label.startswith("compiled (") for label in zeckendorf)


def test_a_quick_run_says_what_each_target_needs(quick_results):
    # once, as a footnote: the sentence once filled the table, row after row
    rows = [row for row in report.targets(quick_results) if isinstance(row["met"], str)]
    assert rows and all(row["met"] == "not checked [1]" for row in rows)
    text = report.markdown(quick_results)
    assert text.count("set at N = 1e+07") == 0 and text.count("Set at N = 1e+07") == 1
    assert text.count("without --quick checks it") == 1
    for column in ("**N**", "**x floor**", "**threads**", "**call us**", "**peak MB**"):
        assert f"- {column}:" in text


def test_the_report_records_the_machines_load_and_says_when_it_was_busy(quick_results):
    load = quick_results["load"]
    assert len(load["before"]) == 3 and len(load["after"]) == 3
    assert f"before the run: {load['before']}" in report.markdown(quick_results)
    cores = quick_results["machine"]["cores"]
    busy = {**quick_results, "load": {"before": [0.0] * 3, "after": [cores * 2.0] * 3}}
    idle = {**quick_results, "load": {"before": [0.0] * 3, "after": [0.0] * 3}}
    assert "The machine was busy" in report.markdown(busy)
    assert "The machine was busy" not in report.markdown(idle)


def test_every_floor_is_warmed_before_it_is_timed(tmp_path, monkeypatch):
    # the parquet floor was charged pyarrow's first read (0.4 s in a fresh
    # process), which fibnim's own figure leaves out: it came out 0.06x its floor
    from fibnim.bench import pipelines

    calls = []
    pipeline = next(p for p in pipelines.PIPELINES if p.name == "npy -> npy")
    recorded = pipelines.Pipeline(**{**pipeline.__dict__, "floor": lambda *a: calls.append(a)})
    monkeypatch.setattr(pipelines, "PIPELINES", [recorded])
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    pipelines.main([recorded.name, str(source), str(target), "1"])
    assert len(calls) == 2 and calls[0][0] != source and calls[1][0] == source


def test_report_without_matplotlib(quick_results, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    written = report.write(quick_results, tmp_path)
    assert sorted(p.name for p in written) == ["report.md", "results.json"]


def test_every_target_is_reported(quick_results):
    rows = report.targets(quick_results)
    wanted = sum(len(c.targets) for c in AVAILABLE) + sum(len(s.target_seconds) for s in SOLVERS)
    quick_sizes = {s.name: s.quick_sizes for s in SOLVERS}
    wanted -= sum(
        1 for s in SOLVERS for size in s.target_seconds if size not in quick_sizes[s.name]
    )
    measured = quick_results["pipelines"]
    wanted += len(measured) + sum(1 for p in measured if p["peak_mb"] is not None)
    names = {p["name"] for p in measured}
    assert names >= {"npy -> npy", "csv -> csv (no pyarrow)"}
    # the quoted text's run over the plain text's, a target of its own
    wanted += {"csv + text -> csv (pyarrow)", "csv + quoted text -> csv (pyarrow)"} <= names
    assert len(rows) == wanted
    # --quick's sizes are below the 10**7 the speed targets are set at: not judged
    kernels = {case.name for case in CASES}
    for row in rows:
        if row["kernel"] in kernels or row["kernel"].startswith("fibnim classify"):
            assert row["met"] == "not checked [1]", row
        else:  # the solvers' targets are set at the sizes they run
            assert row["met"] in (True, False), row


def _with_samples(results, samples):
    """results with the first kernel's largest size's repeats replaced (the size judged),
    as a run on an idle machine (a busy one makes no regression: see below)."""
    changed = json.loads(json.dumps(results))
    changed["kernels"][0]["rows"][-1]["x_floor_samples"] = samples
    changed["load"] = {"before": [0.0] * 3, "after": [0.0] * 3}
    return changed


def test_compare_flags_only_significant_regressions(quick_results):
    assert all(len(r["x_floor_samples"]) == 7 for k in quick_results["kernels"] for r in k["rows"])
    before = _with_samples(quick_results, [1.0, 1.1, 1.2, 1.3, 1.4])
    # twice as slow in every repeat: p = 1/252
    text, regressions = report.compare(
        before, _with_samples(before, [2.0, 2.2, 2.4, 2.6, 2.8]), 0.1
    )
    assert regressions == 1 and "REGRESSION" in text and "+100.0%" in text and "| 0.004 |" in text
    # 25% slower by the medians, but the repeats overlap: p = 0.1, not a regression
    text, regressions = report.compare(
        before, _with_samples(before, [0.9, 1.15, 1.5, 1.6, 1.7]), 0.1
    )
    assert regressions == 0 and "+25.0%" in text and "REGRESSION" not in text
    # significant but smaller than the threshold
    _, regressions = report.compare(
        before, _with_samples(before, [1.05, 1.16, 1.27, 1.38, 1.49]), 0.1
    )
    assert regressions == 0
    # faster is reported, never counted
    text, regressions = report.compare(
        before, _with_samples(before, [0.5, 0.55, 0.6, 0.65, 0.7]), 0.1
    )
    assert regressions == 0 and "faster" in text
    _, regressions = report.compare(quick_results, quick_results, 0.1)
    assert regressions == 0


def test_a_change_within_a_runs_own_spread_or_on_a_busy_machine_is_no_regression(
    quick_results,
):
    idle = {**quick_results, "load": {"before": [0.0] * 3, "after": [0.0] * 3}}
    before = _with_samples(idle, [1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06])
    # 30% slower by the medians, p = 1/1716, but its own repeats lie 2x apart
    wide = _with_samples(before, [1.1, 1.3, 1.32, 1.33, 1.34, 1.35, 2.2])
    text, regressions = report.compare(before, wide, 0.2)
    assert regressions == 0 and "within the runs' own spread (100%)" in text
    # the same 2x slowdown judged from an idle run and from a busy one
    slower = _with_samples(before, [2.0, 2.01, 2.02, 2.03, 2.04, 2.05, 2.06])
    assert report.compare(before, slower, 0.2)[1] == 1
    loaded = json.loads(json.dumps(slower))
    cores = loaded["machine"]["cores"]
    loaded["load"] = {"before": [cores * 0.9] * 3, "after": [cores * 1.0] * 3}
    text, regressions = report.compare(before, loaded, 0.2)
    assert regressions == 0 and "inconclusive: the machine was busy" in text


def test_the_u_test_is_exact():
    # against every order of 3 + 4 values
    import itertools

    values = list(range(7))
    for larger in itertools.combinations(values, 3):
        smaller = [v for v in values if v not in larger]
        u = sum(a > b for a in larger for b in smaller)
        at_least = sum(
            sum(a > b for a in other for b in values if b not in other) >= u
            for other in itertools.combinations(values, 3)
        )
        assert report._u_tail(list(larger), smaller) == pytest.approx(at_least / 35)


class FakeClock:
    """time.perf_counter for the bench, moved only by the calls it times: each
    lasts exactly what it says, on any machine, however busy."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def test_a_sample_is_many_short_calls_in_a_row_and_one_long_call(monkeypatch):
    # a call of tens of us timed alone moved its ratio to the floor 25%
    # between runs of one tree; a sample lasts SAMPLE_SECONDS instead
    clock = FakeClock()
    monkeypatch.setattr(run, "time", clock)
    made = {"call": 0, "floor": 0}
    calls = {"call": 0, "floor": 0}

    def maker(name: str, seconds: float):
        def make():
            made[name] += 1

            def function():
                calls[name] += 1
                clock.now += seconds

            return function

        return make

    short = run.SAMPLE_SECONDS / 40
    mine, theirs, ratios = run.paired(maker("call", short), maker("floor", 0.01), 3)
    assert made == {"call": 4, "floor": 4}  # one to count the calls, one a turn
    assert calls["floor"] == 1 + 3 * 2  # a call over 2 ms is a sample alone
    per_sample = (calls["call"] - 1 - 3) / 3  # a warm-up call, then the sample's
    assert per_sample == int(per_sample)
    # the fewest calls that last SAMPLE_SECONDS
    assert per_sample * short >= run.SAMPLE_SECONDS * (1 - 1e-9)
    assert (per_sample - 1) * short < run.SAMPLE_SECONDS
    assert mine["median"] == pytest.approx(short)  # per call, not per sample
    assert theirs == pytest.approx({"median": 0.01, "min": 0.01, "max": 0.01})
    assert ratios == pytest.approx([short / 0.01] * 3)


def _samples(rng, median: float, spread: float, count: int = 7) -> list[float]:
    """count ratios to the floor around median, each off by up to spread either
    way, as repeats of one kernel on one machine are."""
    return [median * (1 + spread * (2 * rng.random() - 1)) for _ in range(count)]


def test_identical_distributions_are_never_regressions_and_a_3x_shift_always_is(
    quick_results,
):
    # the statistics of --compare, fed sample sets: no clock decides this test
    # (five real runs of one tree, asserted quiet, failed on a busy machine)
    import random

    rng = random.Random(20261125)
    threshold = report_threshold()
    # repeats within +-9% of one median: no two medians differ by the 20% threshold
    never = threshold / (2 + threshold)
    for spread, most in [(0.02, 0), (0.05, 0), (never, 0), (0.25, 3)]:
        flagged = 0
        for _ in range(tier(300, 30)):
            before = _with_samples(quick_results, _samples(rng, 3.0, spread))
            same = _with_samples(quick_results, _samples(rng, 3.0, spread))
            flagged += report.compare(before, same, threshold)[1]
            slower = _with_samples(quick_results, _samples(rng, 9.0, spread))
            text, regressions = report.compare(before, slower, threshold)
            assert regressions == 1 and "REGRESSION" in text, spread
        # wider repeats: a false alarm at most at the test's level, 1%
        assert flagged <= most, spread


def report_threshold() -> float:
    """The threshold `fibnim bench --compare` uses unless told."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return float(parser.parse_args([]).threshold)


def test_the_command_compares_and_its_exit_status_says_the_verdict(tmp_path, capsys, monkeypatch):
    # against baselines a billion times slower and faster than one real run; the
    # runs compared with them give back that run's own figures, so that no clock
    # decides the verdicts (the first run only makes the figures)
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    parser = argparse.ArgumentParser()
    add_arguments(parser)

    def bench(*extra: str) -> int:
        arguments = ["--quick", "--kernel", "wythoff.is_safe", *extra]
        return int(main(parser.parse_args(arguments)))

    before = _backend.name()
    try:
        assert bench("--out", str(tmp_path)) == 0
        measured = json.loads((tmp_path / "results.json").read_text())
        measured["load"] = {"before": [0.0] * 3, "after": [0.0] * 3}  # as on an idle machine
        for name, factor in [("slow.json", 1e9), ("fast.json", 1e-9)]:
            baseline = json.loads(json.dumps(measured))
            for kernel in baseline["kernels"]:
                for row in kernel["rows"]:
                    row["x_floor_samples"] = [r * factor for r in report._ratios(row)]
            (tmp_path / name).write_text(json.dumps(baseline))
        monkeypatch.setattr(run, "run", lambda *arguments: json.loads(json.dumps(measured)))
        capsys.readouterr()
        assert bench("--compare", str(tmp_path / "slow.json")) == 0
        out = capsys.readouterr().out
        assert "no significant regression" in out and "faster" in out
        assert bench("--compare", str(tmp_path / "fast.json")) == 1
        assert "REGRESSION" in capsys.readouterr().out
    finally:
        _backend.use(before)


def test_a_baseline_that_is_not_a_results_file_is_a_usage_error_before_the_run(
    tmp_path, monkeypatch, capsys
):
    from fibnim import cli

    def no_run(*arguments):
        raise AssertionError("the suite ran before the baseline was read")

    monkeypatch.setattr(run, "run", no_run)
    not_json = tmp_path / "notes.json"
    not_json.write_text("kernels: none\n")
    foreign = tmp_path / "other.json"
    foreign.write_text(json.dumps({"benchmarks": [{"name": "x", "stats": {}}]}))
    no_times = tmp_path / "no_times.json"
    no_times.write_text(json.dumps({"kernels": [{"name": "k", "rows": [{"size": 10}]}]}))
    cases = {
        tmp_path / "missing.json": "No such file",
        not_json: "not JSON",
        foreign: "not the results.json of a fibnim bench run",
        no_times: "not the results.json of a fibnim bench run",
    }
    for path, said in cases.items():
        assert cli.main(["bench", "--quick", "--compare", str(path)]) == 2  # not 1: a regression
        error = capsys.readouterr().err
        assert str(path) in error and said in error


def test_the_command(tmp_path, quick_results, capsys, monkeypatch):
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    # a baseline a billion times slower than the run the command gets (the
    # quick run's own figures, handed back: no clock decides the verdict)
    ran = [k for k in quick_results["kernels"] if k["name"] == "wythoff.is_safe"]
    monkeypatch.setattr(run, "run", lambda *arguments: {**quick_results, "kernels": ran})
    slow = json.loads(json.dumps(quick_results))
    for kernel in slow["kernels"]:
        for row in kernel["rows"]:
            row["x_floor_samples"] = [r * 1e9 for r in report._ratios(row)]
    (tmp_path / "old.json").write_text(json.dumps(slow))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    arguments = parser.parse_args(
        [
            "--quick",
            "--kernel",
            "wythoff.is_safe",
            "--out",
            str(tmp_path / "r"),
            "--compare",
            str(tmp_path / "old.json"),
        ]
    )
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "written:" in out and "no significant regression" in out
    saved = json.loads((tmp_path / "r" / "results.json").read_text())
    assert [k["name"] for k in saved["kernels"]] == ["wythoff.is_safe"]


def test_the_file_pipelines_without_pyarrow(monkeypatch):
    from fibnim.bench import pipelines

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import fails, as in a bare install
    measured = pipelines.measure("quick", 1, print)
    assert [p["name"] for p in measured] == ["npy -> npy", "csv -> csv (no pyarrow)"]
    assert all(p["seconds"] > 0 and p["floor_seconds"] > 0 for p in measured)


def test_the_file_pipelines_run_on_the_implementation_asked_for():
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    from fibnim.bench import pipelines

    # a name no build has: fibnim's own runs must refuse it, so it reached them
    with pytest.raises(RuntimeError, match="FIBNIM_IMPLEMENTATION=sve2"):
        pipelines.measure("quick", 1, print, {"FIBNIM_IMPLEMENTATION": "sve2"})


def test_every_case_that_names_its_reads_has_a_bytes_floor_of_its_shape():
    # the floor reads the words the call reads and writes the bytes it returns
    import numpy as np

    if "cython" not in _backend.available():
        pytest.skip("the bytes floors are compiled")
    before = _backend.name()
    _backend.use("cython")
    try:
        for case in AVAILABLE:
            if not case.reads:
                continue
            inputs = case.make(100, np.random.default_rng(3))
            floor = run.bytes_floor_call(case, inputs, 100)
            assert floor is not None, case.name
            floor()
    finally:
        _backend.use(before)


def test_the_bytes_floor_moves_exactly_its_words_and_bytes():
    import numpy as np

    if "cython" not in _backend.available():
        pytest.skip("the bytes floors are compiled")
    core = _backend._CORE
    source = np.arange(1, 31, dtype=np.uint64)  # 3 arrays of 10 words
    target = np.zeros(4 * 8 * 10 + 5, dtype=np.uint8)
    assert core.bytes_floor(source, target, 3, 32)
    xor = source[:10] ^ source[10:20] ^ source[20:]
    words = target[:320].view(np.uint64).reshape(4, 10)
    assert (words == xor + np.arange(4, dtype=np.uint64)[:, None]).all()
    assert (target[320:] == 0).all()  # nothing past its bytes
    assert not core.bytes_floor(source[:12], target, 4, 8)  # no loop of that shape
    with pytest.raises(ValueError, match="fewer bytes"):
        core.bytes_floor(source, target[:10], 3, 32)


def test_a_case_whose_package_is_missing_is_left_out_and_said(monkeypatch):
    # a bare install has no pandas: its Series cases are left out, not a crash
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    monkeypatch.setitem(sys.modules, "pandas", None)
    said = []
    names = ["wythoff.is_safe (pandas Series)", "zeckendorf.decode"]
    before = _backend.name()
    results = run.run("quick", names, said.append)
    _backend.use(before)
    assert [k["name"] for k in results["kernels"]] == ["zeckendorf.decode"]
    assert "wythoff.is_safe (pandas Series): left out, it needs pandas" in said


@pytest.mark.exhaustive
def test_peers_are_timed_beside_fibnim_on_each_implementation_and_reported(tmp_path, capsys):
    pytest.importorskip("numba")
    if "cython" not in _backend.available():
        pytest.skip("fibnim bench compares the compiled core, not built here")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    names = ["--kernel", "wythoff.is_safe", "--kernel", "zeckendorf.lowest_term"]
    arguments = parser.parse_args(
        ["--quick", "--peers", "--implementation", "all", *names, "--out", str(tmp_path)]
    )
    assert main(arguments) == 0
    saved = json.loads((tmp_path / "results.json").read_text())
    rows = {row["name"]: row for row in saved["implementations"]}
    # every implementation this processor runs has the peer's figures; a kernel
    # without a peer has none
    assert set(rows["wythoff.is_safe"]["paths"]) == set(_backend.implementations())
    for figures in rows["wythoff.is_safe"]["paths"].values():
        assert figures["x_numba"] == pytest.approx(figures["x_floor"] / figures["numba_x_floor"])
    assert all("x_numba" not in f for f in rows["zeckendorf.lowest_term"]["paths"].values())
    text = (tmp_path / "report.md").read_text()
    assert "÷ numba" in text
    # each peer names the instruction set it was compiled for, features and all
    if platform.machine() in ("x86_64", "AMD64"):
        avx2 = rows["wythoff.is_safe"]["paths"].get("avx2")
        if avx2 is not None:
            assert avx2["numba_target"] == "haswell +avx2,+fma,+bmi2,-avx512f"
        assert "avx2: `haswell +avx2,+fma,+bmi2,-avx512f`" in text or avx2 is None


def test_peers_without_numba_is_a_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(fibnim._errors.UsageError, match=r"pip install \"fibnim\[peers\]\""):
        main(parser.parse_args(["--quick", "--peers"]))


def test_the_coding_benchmark_sets_fibnim_beside_other_codecs(quick_results):
    rows = {row["name"]: row for row in quick_results["coding"]}
    assert set(rows) == {"gaps", "uniform"}
    peers = {peer["name"].split(" ")[0] for peer in rows["gaps"]["peers"]}
    assert {"zlib", "lzma"} <= peers
    # fibnim's own figures are of the stream it wrote: ~10 bits for gaps near 100
    assert 8 < rows["gaps"]["fibnim"]["bits_per_value"] < 12
    assert 85 < rows["uniform"]["fibnim"]["bits_per_value"] <= 93
    assert "encode_ns" in rows["gaps"] and "encode_ns" not in rows["uniform"]
    assert all(row["unpack_into_ns"] > 0 for row in rows.values())
    text = report.markdown(quick_results)
    assert "## Fibonacci coding" in text and "| gaps | | zlib |" in text
    assert "| uniform | | fibnim.coding, unpack into out= | |" in text


def test_the_coding_section_says_when_streamvbyte_is_left_out(quick_results):
    rows = quick_results["coding"]
    vbyte = {"name": "StreamVByte", "pack_ns": 1.0, "unpack_ns": 1.0, "bits_per_value": 10.0}
    without = [
        {**row, "peers": [p for p in row["peers"] if not p["name"].startswith("StreamVByte")]}
        for row in rows
    ]
    with_it = [{**row, "peers": [*row["peers"], vbyte]} for row in without]
    note = 'libstreamvbyte was not installed for this run (pip install "fibnim[bench]")'
    assert note in "\n".join(report.coding_table(without))
    assert note not in "\n".join(report.coding_table(with_it))


def test_the_coding_check_sets_unpack_against_decode_like_for_like():
    """unpack's ratio to decode is checked into out= on both sides; its ns
    target, on the row that makes a new array each call."""

    def rows(unpack_ns: float, into_ns: float) -> list[dict[str, Any]]:
        fibnim_row = {
            "name": "fibnim.coding",
            "pack_ns": 3.0,
            "unpack_ns": unpack_ns,
            "bits_per_value": 9.6,
        }
        return [
            {
                "name": "gaps",
                "size": report.TARGET_SIZE,
                "fibnim": fibnim_row,
                "peers": [],
                "unpack_into_ns": into_ns,
                "encode_ns": 2.5,
                "decode_ns": 1.0,
            }
        ]

    def met(unpack_ns: float, into_ns: float) -> str:
        table = report.coding_table(rows(unpack_ns, into_ns))
        return next(line for line in table if line.startswith("| gaps |")).split("|")[-2].strip()

    assert met(2.9, 1.5) == report._MET[True]  # 2.9x decode in a new array: its first touch
    assert met(2.9, 2.5) == report._MET[False]  # 2.5x decode into out=
    assert met(3.1, 1.5) == report._MET[False]  # above 3 ns
