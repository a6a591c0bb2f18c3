"""What fibnim's documentation adds to Sphinx.

- The ``shell`` directive. A ``shell`` block shows shell commands as a code
  block, and the doctest build (``sphinx-build -b doctest``) runs them, line by
  line and in order with the page's other examples, in a directory of the
  page's own (`enter_workdir`), so that a tutorial's commands are checked as
  its Python is: a command that exits with a status other than 0 fails the
  build, with its stderr.
- The ``bench-cases`` directive: the table of what ``fibnim bench`` measures,
  read from the suite itself (``fibnim.bench.suite.CASES``): each kernel, its
  floor, its targets and its numba peer.
- The docstrings as the API reference shows them (`render_docstring`). They
  are written for ``help()`` in a terminal, in plain text: ``a_n = floor(n
  phi)``, ``2**63 - 1``, ``docs/math/wythoff.rst``. The reference renders that
  mathematics as mathematics, and the paths to pages as links to them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

_HOME: list[str] = []  # the directory to go back to, and the page's own


class Shell(SphinxDirective):
    has_content = True

    def run(self) -> list[nodes.Node]:
        commands = "\n".join(self.content)
        node = nodes.literal_block(commands, commands, language="sh")
        node["testnodetype"] = "testcode"
        node["groups"] = ["default"]
        node["options"] = {}
        node["test"] = f"run_shell({commands!r})"
        self.set_source_info(node)
        return [node]


def run_shell(commands: str) -> None:
    """Each line of commands in sh, in the working directory; fibnim and the
    Python that runs the build first on the PATH."""
    bin_directory = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_directory + os.pathsep + os.environ.get("PATH", "")}
    for line in commands.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        result = subprocess.run(line, shell=True, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            raise RuntimeError(
                f"`{line}` exited with status {result.returncode}:\n{result.stderr}"
            )


def enter_workdir() -> None:
    """A new empty directory to run the page's examples in."""
    _HOME[:] = [os.getcwd(), tempfile.mkdtemp(prefix="fibnim-docs-")]
    os.chdir(_HOME[1])


def leave_workdir() -> None:
    """Back to where the build ran, the page's directory removed."""
    if _HOME:
        home, work = _HOME
        os.chdir(home)
        shutil.rmtree(work, ignore_errors=True)
        _HOME.clear()


# the plain-text mathematics of the docstrings: floor(n phi), phi, 2**63 - 1,
# and a single letter with a subscript (a_n, F_{k+1}, z_1(k)); not names of code
# such as move_1 or x_floor (several letters, or a longer subscript)
_MATH = re.compile(
    r"floor\((?P<floor>\w+) phi\)"
    r"|\bphi\b"
    r"|\b2\*\*(?P<power>\d+)(?P<less> - 1)?"
    r"|\b(?P<letter>[A-Za-z])_(?:\{(?P<braced>[^}]*)\}|(?P<plain>[A-Za-z0-9]{1,3})\b)"
)
# where the text is code or markup already: literals, roles, targets
_CODE = re.compile(r"(``.*?``|:[\w:]+:`[^`]*`|`[^`]*`_?)")
_PAGE = re.compile(r"\bdocs/([\w/]+)\.rst\b")


def _tex(match: re.Match[str]) -> str:
    if match["floor"]:
        tex = f"\\lfloor {match['floor']}\\varphi \\rfloor"
    elif match["power"]:
        tex = f"2^{{{match['power']}}}{match['less'] or ''}"
    elif match["letter"]:
        subscript = match["braced"] if match["braced"] is not None else match["plain"]
        tex = f"{match['letter']}_{{{subscript}}}"
    else:
        tex = "\\varphi"
    # a role must stand apart from the text around it: an escaped space, which
    # shows as nothing, where a letter, a digit or a bracket touches it
    before = match.string[match.start() - 1 : match.start()]
    after = match.string[match.end() : match.end() + 1]
    joined = re.compile(r"[\w(\[{]")
    return (
        ("\\ " if joined.match(before) else "")
        + f":math:`{tex}`"
        + ("\\ " if joined.match(after) else "")
    )


def _render_line(line: str) -> str:
    parts = _CODE.split(line)
    for i in range(0, len(parts), 2):  # the text between code and roles
        parts[i] = _MATH.sub(_tex, _PAGE.sub(r":doc:`/\1`", parts[i]))
    return "".join(parts)


def render_docstring(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """autodoc-process-docstring: the plain-text mathematics of a docstring as
    math, and its paths to pages as links; doctest examples and literal
    blocks are left as they are."""
    literal = None  # the indentation of the line that opened a literal block
    example = False  # in a doctest example: its code and its expected output
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if literal is not None and (not line.strip() or indent > literal):
            continue
        literal = None
        example = bool(line.strip()) and (example or line.lstrip().startswith(">>>"))
        if example:
            continue
        if line.rstrip().endswith("::"):
            literal = indent
        lines[i] = _render_line(line)


_TARGETS = {
    "x_floor": "x floor <= {}",
    "x_reference": "x its reference <= {}",
    "x_pure": "x faster than the pure twin >= {}",
    "x_hand": "x faster than numpy by hand >= {}",
}


class BenchCases(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        from docutils.statemachine import StringList

        from fibnim.bench.suite import CASES

        def text(words: str) -> str:
            return words.replace("*", r"\*")

        head = ["kernel", "floor", "targets", "on every vector path", "numba peer", "note"]
        lines = [".. list-table::", "   :header-rows: 1", ""]
        for row in [head, *([
            f"``{case.name}``",
            f"``np.{case.floor}``",
            "; ".join(_TARGETS[k].format(f"{v:g}") for k, v in case.targets.items()),
            "" if case.path_target is None else f"x floor <= {case.path_target:g}",
            f"``{case.peer[0]}``" if case.peer else "",
            text(case.note),
        ] for case in CASES)]:  # fmt: skip
            lines += [f"   * - {row[0]}", *(f"     - {cell}" for cell in row[1:])]
        container = nodes.container()
        self.state.nested_parse(StringList(lines), self.content_offset, container)
        return container.children


def setup(app: Any) -> dict[str, Any]:
    app.setup_extension("sphinx.ext.autodoc")
    app.add_directive("shell", Shell)
    app.add_directive("bench-cases", BenchCases)
    app.connect("autodoc-process-docstring", render_docstring)
    return {"parallel_read_safe": True}
