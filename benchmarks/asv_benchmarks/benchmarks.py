"""asv benchmarks over the cases of `fibnim bench` (fibnim.bench.suite), numpy's
style: a class per kernel with `time_*` and `peakmem_*`, parameters backend x
input dtype x size. They call the suite's own definitions, so the two never
drift apart.

    cd benchmarks && asv run            # history across commits
    cd benchmarks && asv run --python=same --quick   # this checkout only
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fibnim import _backend
from fibnim.bench.suite import CASES, Case

OUTPUTS = {"out", "flags", "first", "second"}  # preallocated outputs keep their dtype


def _benchmark(case: Case) -> type:
    class Kernel:
        params = (["cython", "python"], ["int64", "uint64"], [10**3, 10**5, 10**7])
        param_names = ("backend", "dtype", "size")
        timeout = 300

        def setup(self, backend: str, dtype: str, size: int) -> None:
            if backend not in _backend.available():
                raise NotImplementedError(f"no {backend} backend in this installation")
            if backend == "python" and size > 10**5:
                raise NotImplementedError("the pure twin is timed up to 10**5")
            _backend.use(backend)
            inputs = case.make(size, np.random.default_rng(2026))
            self.inputs: dict[str, Any] = {
                key: value.astype(dtype)
                if key not in OUTPUTS and isinstance(value, np.ndarray) and value.dtype.kind == "i"
                else value
                for key, value in inputs.items()
            }

        def teardown(self, backend: str, dtype: str, size: int) -> None:
            _backend.use("cython" if "cython" in _backend.available() else "python")

        def time_kernel(self, backend: str, dtype: str, size: int) -> None:
            case.call(self.inputs)

        def peakmem_kernel(self, backend: str, dtype: str, size: int) -> None:
            case.call(self.inputs)

    Kernel.__name__ = Kernel.__qualname__ = "Time_" + "".join(
        c if c.isalnum() else "_" for c in case.name
    ).strip("_")
    return Kernel


for _case in filter(Case.available, CASES):
    _class = _benchmark(_case)
    globals()[_class.__name__] = _class
