"""Build and test fibnim on every supported CPython this machine has, with the
oldest numpy that pyproject.toml allows and with the newest.

    python3 tools/versions.py                  # the whole matrix, a table at the end
    python3 tools/versions.py --corners        # oldest Python x oldest numpy, newest x newest
    python3 tools/versions.py --corners newest # one of them
    python3 tools/versions.py --python 3.10 --numpy oldest -- -k csv   # one cell, some tests

Each cell is a fresh virtual environment: numpy pinned first (as a wheel: the
oldest release that has one for that Python), then the project installed from
a copy of its sources (nothing is built in the checkout, so other builds may
run beside this one) with its test extras under that pin (so the extension is
built and must load: FIBNIM_REQUIRE_EXTENSION=1), then the test suite.
Interpreters are found on PATH (python3.X) or under pyenv's versions. Exits 1
if any cell fails.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPPORTED = ("3.10", "3.11", "3.12", "3.13", "3.14")
# numpy>=2 (pyproject.toml): the first release of each line, oldest first; the
# oldest that has a wheel for a Python is that Python's oldest numpy
OLDEST_CANDIDATES = ("2.0.0", "2.1.0", "2.2.0", "2.3.0")


def interpreter(version: str) -> str | None:
    """An executable of CPython `version` (pyenv's, or on PATH), or None."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/python{version}"))
    candidates.append(shutil.which(f"python{version}") or "")
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-V"], capture_output=True).returncode == 0:
            return candidate
    return None


def pip(python: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "pip", "install", "--quiet", *arguments],
        capture_output=True,
        text=True,
        check=False,
    )


def install_numpy(python: str, which: str) -> str:
    """Install numpy (oldest or newest) as a wheel; return its version."""
    if which == "newest":
        result = pip(python, "--only-binary=numpy", "--upgrade", "numpy")
        if result.returncode:
            raise RuntimeError(result.stderr)
    else:
        for version in OLDEST_CANDIDATES:
            if pip(python, "--only-binary=numpy", f"numpy=={version}").returncode == 0:
                break
        else:
            raise RuntimeError(f"no numpy among {OLDEST_CANDIDATES} has a wheel here")
    return subprocess.run(
        [python, "-c", "import numpy; print(numpy.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def copy_sources(destination: Path) -> Path:
    """The files a build reads, without generated C, objects or build trees."""
    destination.mkdir()
    top = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "CHANGELOG.md", "LICENSE")
    for name in top:
        shutil.copy2(ROOT / name, destination / name)
    generated = shutil.ignore_patterns("*.c", "*.so", "*.html", "__pycache__", "*.egg-info")
    for name in ("src", "fibnim_c"):
        shutil.copytree(ROOT / name, destination / name, ignore=generated)
    return destination


def cell(version: str, which: str, extra: list[str]) -> tuple[str, str, str]:
    """(python, numpy, outcome) of one cell of the matrix; extra goes to pytest."""
    base = interpreter(version)
    if base is None:
        return version, which, "no interpreter here"
    with tempfile.TemporaryDirectory(prefix=f"fibnim-{version}-{which}-") as work:
        venv = Path(work) / "venv"
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        python = str(venv / "bin" / "python")
        pip(python, "--upgrade", "pip")
        numpy = install_numpy(python, which)
        constraints = Path(work) / "constraints.txt"
        constraints.write_text(f"numpy=={numpy}\n")
        sources = copy_sources(Path(work) / "src")
        env = dict(os.environ, FIBNIM_REQUIRE_EXTENSION="1")
        env.pop("FIBNIM_PURE_PYTHON", None)
        print(f"== Python {version} with numpy {numpy}: install from source", flush=True)
        install = subprocess.run(
            [
                python,
                "-m",
                "pip",
                "install",
                "--quiet",
                "-c",
                str(constraints),
                f"{sources}[test]",
            ],
            env=env,
            check=False,
        )
        if install.returncode:
            return version, numpy, "install failed"
        print(f"== Python {version} with numpy {numpy}: tests", flush=True)
        empty = Path(work) / "empty"  # so that the installed package is the one imported
        empty.mkdir()
        tests = subprocess.run(
            [python, "-m", "pytest", str(ROOT / "tests"), "-q", "-p", "no:cacheprovider", *extra],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        print(tests.stdout if tests.returncode else tests.stdout.splitlines()[-1])
        summary = tests.stdout.strip().splitlines()[-1] if tests.stdout.strip() else ""
        counts = re.sub(r"=+", "", summary).strip()
        return version, numpy, ("passed: " if tests.returncode == 0 else "FAILED: ") + counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", nargs="*", default=list(SUPPORTED), metavar="X.Y")
    parser.add_argument("--numpy", nargs="*", default=["oldest", "newest"])
    parser.add_argument(
        "--corners",
        nargs="?",
        const="both",
        choices=["both", "oldest", "newest"],
        help="oldest x oldest and newest x newest only (or the one named)",
    )
    parser.add_argument("pytest", nargs="*", help="arguments for pytest, after --")
    arguments = parser.parse_args()
    # terminated (CI ending a run it started beside another), a cell still
    # removes its temporary directory
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    found = [v for v in arguments.python if interpreter(v)]
    if arguments.corners:
        if not found:
            print("no supported Python here", file=sys.stderr)
            return 1
        cells = [(found[0], "oldest"), (found[-1], "newest")]
        if arguments.corners != "both":
            cells = [c for c in cells if c[1] == arguments.corners]
    else:
        cells = [(v, n) for v in arguments.python for n in arguments.numpy]
    rows = [cell(version, which, arguments.pytest) for version, which in cells]
    print("\n| Python | numpy | result |\n|---|---|---|")
    for version, numpy, outcome in rows:
        print(f"| {version} | {numpy} | {outcome} |")
    failed = [row for row in rows if not row[2].startswith(("passed", "no interpreter"))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
