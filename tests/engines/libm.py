"""NumPy with exp and log from the C library (libm), for the compiled paths' bit-for-bit tests.

NumPy's vectorised exp and log differ from libm in the last bit of some values on AVX-512 machines;
the calculators and the numba kernels take libm's. A Python runner that uses NumPy (Glicko's
batch.py, KNSB's normal.py) is compared with a kernel bit for bit inside `libm_numpy(module)`."""
import math
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np


class _LibmNumpy:
    """numpy, but exp and log from libm, value by value."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def exp(x):
        return np.array([math.exp(v) for v in np.ravel(x).tolist()]).reshape(np.shape(x))

    @staticmethod
    def log(x):
        return np.array([math.log(v) for v in np.ravel(x).tolist()]).reshape(np.shape(x))


@contextmanager
def libm_numpy(module: ModuleType) -> Iterator[None]:
    """`module`'s NumPy takes exp and log from libm within the block."""
    module.np = _LibmNumpy()
    try:
        yield
    finally:
        module.np = np
