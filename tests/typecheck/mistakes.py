"""Mistakes a type checker must report, one per line marked `# error`
(tests/test_types.py checks that each marked line, and no other, is reported)."""

from __future__ import annotations

import numpy as np

import fibnim
from fibnim import classify, wythoff

text: str = fibnim.encode(46)  # error
flag: int = wythoff.is_safe(np.arange(3), np.arange(3))  # error
classify(np.array([[3, 5]]), "wythof")  # error
wythoff.is_safe(3, 5, misere="yes")  # error
fibnim.encode.outer(np.arange(3), np.arange(3))  # error
wythoff.is_safe(np.arange(3), np.arange(3), casting="sometimes")  # error
small: np.ndarray[tuple[int], np.dtype[np.int8]] = wythoff.index(np.arange(3))  # error
