"""Build fibnim's compiled core: fibnim_c/_core.pyx (which includes the topics'
.pxi files and the C headers beside them) becomes the private module fibnim._core.

FIBNIM_PURE_PYTHON=1 skips the extension (a pure-Python install). Where the
extension does not compile (no C compiler, an exotic platform), the install goes
on without it and fibnim runs on its pure twin, unless FIBNIM_REQUIRE_EXTENSION=1
makes that failure an error.
FIBNIM_CYTHON_DEBUG=1 compiles with bounds and wraparound checks on.
FIBNIM_NO_SIMD=1 leaves out the vector implementations (fibnim_c/simd.h): the
core then runs its portable scalar kernels only.
FIBNIM_PORTABLE_MUL=1 takes the 32-bit-limb 64 x 64 -> 128 multiply that any C
compiler has, instead of unsigned __int128 or MSVC's intrinsics.
FIBNIM_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer
(GCC or Clang; run it with the ASan runtime preloaded: tools/sanitize.sh).
"""

import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
DEPENDS = {".pxi", ".pxd", ".h"}  # what _core.pyx includes: a change rebuilds it


def truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def extensions():
    import numpy
    from Cython import __version__ as cython_version
    from Cython.Build import cythonize
    from setuptools import Extension

    debug = truthy("FIBNIM_CYTHON_DEBUG")
    macros = [(name, "1") for name in ("FIBNIM_NO_SIMD", "FIBNIM_PORTABLE_MUL") if truthy(name)]
    # the ufuncs (fibnim_c/ufuncs.pxi) use numpy's C API, without its deprecated names
    macros.append(("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"))
    compile_args = [] if os.name == "nt" else ["-O3"]
    link_args = []
    if truthy("FIBNIM_SANITIZE"):
        sanitizers = "-fsanitize=address,undefined"
        compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", sanitizers]
        compile_args.append("-fno-sanitize-recover=undefined")  # any finding is fatal
        link_args = [sanitizers]
    directives = {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "initializedcheck": debug,
        "cdivision": not debug,
        "embedsignature": True,
        # module state is the tables, filled once at import, and the path in use
        "freethreading_compatible": True,
    }
    sources = HERE / "fibnim_c"
    depends = sorted(p.relative_to(HERE) for p in sources.iterdir() if p.suffix in DEPENDS)
    pyx, generated = Path("fibnim_c/_core.pyx"), Path("fibnim_c/_core.c")
    options = [cython_version, numpy.__version__, directives, macros, compile_args, link_args]
    # The C that Cython made, and the module compiled from it, are kept
    # between builds of this checkout (pip builds in its build/ directory), so
    # that installing again (with extras, say) compiles nothing. cythonize
    # compares times with Cython's own files too, which each isolated build
    # installs anew, and neither it nor build_ext sees a change of options:
    # the build's options are kept beside it and any change rebuilds all.
    fresh = (
        same_options(options)
        and generated.exists()
        and all(p.stat().st_mtime <= generated.stat().st_mtime for p in [pyx, *depends])
    )
    module = Extension(
        "fibnim._core",
        [str(generated if fresh else pyx)],
        include_dirs=["fibnim_c", numpy.get_include()],
        depends=[str(p) for p in depends],
        define_macros=macros,
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    if fresh:
        return [module]
    return cythonize(
        [module], include_path=["fibnim_c"], compiler_directives=directives, force=True
    )


def same_options(options: list) -> bool:
    """Whether the last build of this checkout for this Python had these options;
    records them for the next."""
    record = HERE / "build" / f"options-{sys.implementation.cache_tag}.json"
    text = json.dumps(options, sort_keys=True)
    if record.exists() and record.read_text() == text:
        return True
    record.parent.mkdir(exist_ok=True)
    record.write_text(text)
    # a module compiled with other options must not pass for up to date
    for old in (HERE / "build").glob(f"lib.*{sys.implementation.cache_tag}*/fibnim/_core.*"):
        old.unlink()
    return False


class build_ext_or_fall_back(build_ext):
    """Builds the compiled core; where that fails, installs the pure twin and says so.

    Any failure counts (no compiler, a compiler error, a missing header).
    cythonize() returns fresh Extension objects, so setuptools' own `optional`
    flag is not carried over; this class is the fallback instead.
    """

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # every failure has the one fallback
            if truthy("FIBNIM_REQUIRE_EXTENSION"):
                raise
            self.fall_back(error)

    def fall_back(self, error: BaseException) -> None:
        for module in self.extensions:  # nothing half built is left to load
            built = Path(self.get_ext_fullpath(module.name))
            built.unlink(missing_ok=True)
        banner = "=" * 72
        print(
            f"{banner}\nWARNING: fibnim's compiled core could not be built ({error}).\n"
            "fibnim is installed with its pure-Python twin: the same answers, 500-1500x\n"
            "slower. Install a C compiler (gcc, clang or MSVC) and reinstall for speed;\n"
            f"set FIBNIM_REQUIRE_EXTENSION=1 to make this an error.\n{banner}",
            file=sys.stderr,
        )


setup(
    ext_modules=[] if truthy("FIBNIM_PURE_PYTHON") else extensions(),
    cmdclass={"build_ext": build_ext_or_fall_back},
)
