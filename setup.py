"""Build fibnim's compiled core: every fibnim_c/*.pyx becomes the private module fibnim._<name>.

FIBNIM_PURE_PYTHON=1 skips the extension (a pure-Python install). Where the
extension does not compile (no C compiler, an exotic platform), the install goes
on without it and fibnim runs on its pure twin, unless FIBNIM_REQUIRE_EXTENSION=1
makes that failure an error.
FIBNIM_CYTHON_DEBUG=1 compiles with bounds and wraparound checks on.
FIBNIM_NO_SIMD=1 leaves out the AVX-512 paths (fibnim_c/_simd.pxd).
FIBNIM_PORTABLE_MUL=1 takes the 32-bit-limb 64 x 64 -> 128 multiply that any C
compiler has, instead of unsigned __int128 or MSVC's intrinsics.
FIBNIM_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer
(GCC or Clang; run it with the ASan runtime preloaded: tools/sanitize.sh).
"""

import os
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).parent


def truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def extensions():
    from Cython.Build import cythonize
    from setuptools import Extension

    debug = truthy("FIBNIM_CYTHON_DEBUG")
    macros = [(name, "1") for name in ("FIBNIM_NO_SIMD", "FIBNIM_PORTABLE_MUL") if truthy(name)]
    compile_args = [] if os.name == "nt" else ["-O3"]
    link_args = []
    if truthy("FIBNIM_SANITIZE"):
        sanitizers = "-fsanitize=address,undefined"
        compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", sanitizers]
        compile_args.append("-fno-sanitize-recover=undefined")  # any finding is fatal
        link_args = [sanitizers]
    modules = [
        Extension(
            f"fibnim.{pyx.stem}",
            [str(pyx.relative_to(HERE))],
            include_dirs=["fibnim_c"],
            define_macros=macros,
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            optional=not truthy("FIBNIM_REQUIRE_EXTENSION"),
        )
        for pyx in sorted((HERE / "fibnim_c").glob("*.pyx"))
    ]
    return cythonize(
        modules,
        include_path=["fibnim_c"],
        compiler_directives={
            "language_level": 3,
            "boundscheck": debug,
            "wraparound": debug,
            "initializedcheck": debug,
            "cdivision": not debug,
            "embedsignature": True,
            # module state is the tables, filled once at import, and the SIMD switch
            "freethreading_compatible": True,
        },
    )


setup(ext_modules=[] if truthy("FIBNIM_PURE_PYTHON") else extensions())
