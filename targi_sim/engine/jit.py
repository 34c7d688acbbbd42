"""One place to configure numba compilation for the whole engine.

`jit` compiles the game loop with numba's reference counting switched off
(`_nrt=False`): every call between compiled functions would otherwise do two
atomic operations per array argument, which measured ~70% of run time. Such
functions must not allocate arrays; `jit_alloc` is for the few top-level
entry points that do (they allocate once per batch, then call into `jit` code).

With NUMBA_DISABLE_JIT=1 both decorators return the plain Python function.
"""

from numba import njit

jit = njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
# Small hot helpers inlined at numba's IR level: a call costs more than their body
# (each array argument is passed as 7-9 machine words).
jit_inline = njit(cache=True, nogil=True, _nrt=False, error_model="numpy", inline="always")
jit_alloc = njit(cache=True, nogil=True)
