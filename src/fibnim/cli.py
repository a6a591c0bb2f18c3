"""The `fibnim` command: Zeckendorf codes and strings from the shell.

fibnim encode 46 17 1000000
fibnim decode 149
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import fibnim


def _integer(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _describe(n: int) -> str:
    code = fibnim.encode(n)
    lines = [
        f"{n} = " + (" + ".join(map(str, fibnim.terms(n))) or "0"),
        f"  code              {code} = 0b{code:b}",
        f"  zeckendorf        {fibnim.to_string(n)}",
        f"  silber            {fibnim.to_string(n, style='silber')}",
    ]
    if n:
        lines.append(f"  second canonical  {fibnim.second_canonical(n)}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="fibnim",
        description="The Fibonacci (Zeckendorf) number system, exact for any size of integer.",
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"fibnim {fibnim.__version__} (backend: {fibnim.backend})",
    )
    commands = top.add_subparsers(dest="command", required=True)
    encode = commands.add_parser(
        "encode",
        help="codes and both written forms of numbers",
        description="Print each number's Zeckendorf code, its strings in both styles, "
        "its second canonical form and its terms.",
    )
    encode.add_argument("numbers", nargs="+", type=_integer, metavar="N")
    decode = commands.add_parser(
        "decode",
        help="the numbers that Zeckendorf codes stand for",
        description="Print the number each code stands for (0b and 0x prefixes work).",
    )
    decode.add_argument("codes", nargs="+", type=_integer, metavar="CODE")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        if arguments.command == "encode":
            for n in arguments.numbers:
                print(_describe(n))
        else:
            for code in arguments.codes:
                print(f"{code}\t{fibnim.decode(code)}")
    except ValueError as error:
        print(f"fibnim: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
