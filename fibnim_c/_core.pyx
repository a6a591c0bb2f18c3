# fibnim's compiled core, one extension module: the compiled twin of every
# fibnim._pure module, the tables they share (filled once, here) and the one
# dispatcher over the implementations of fibnim_c/simd.h. Each topic's kernels
# carry its name as a prefix (wythoff_is_safe is fibnim._pure.wythoff.is_safe);
# fibnim._backend hands them out by topic under their twins' names.

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from _scalar cimport *
from _simd cimport *

fill_tables()

cdef extern from *:
    # defined in the C that Cython generates for this module
    long CYTHON_HEX_VERSION

# the Cython that generated this module: the build's own, often not installed
# where fibnim runs (pip builds in an isolated environment)
CYTHON_VERSION = ".".join(str(CYTHON_HEX_VERSION >> shift & 0xFF) for shift in (24, 16, 8))


def implementations(bint built=False):
    """The implementations this processor runs, best first (the last: "scalar");
    with built, all that this build carries, whether this processor runs them or not."""
    return tuple(
        PATHS[i].name.decode() for i in range(PATH_COUNT) if built or path_supported(i)
    )


def implementation():
    """The implementation the kernels take now."""
    return current_path().name.decode()


def use_implementation(str name):
    """Make every kernel take the implementation `name`; False if this processor
    does not run it (or no implementation has that name)."""
    cdef int i
    for i in range(PATH_COUNT):
        if PATHS[i].name.decode() == name and path_supported(i):
            use_path(i)
            return True
    return False


use_implementation(implementations()[0])

include "zeckendorf.pxi"
include "wythoff.pxi"
include "fibonacci_nim.pxi"
include "power_nim.pxi"
include "solvers.pxi"
include "coding.pxi"
include "text.pxi"
include "ufuncs.pxi"
include "calls.pxi"
include "floors.pxi"
