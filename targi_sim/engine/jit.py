"""One place to configure numba compilation for the whole engine.

`jit` compiles the game loop with numba's reference counting switched off
(`_nrt=False`): every call between compiled functions would otherwise do two
atomic operations per array argument, which measured ~70% of run time. Such
functions must not allocate arrays; `jit_alloc` is for the few top-level
entry points that do (they allocate once per batch, then call into `jit` code).

With NUMBA_DISABLE_JIT=1 both decorators return the plain Python function.
"""

from numba import njit
from numba.core import types


def _one_signature(dispatcher):
    """Compile callees for plain argument types only.

    numba would otherwise compile a separate copy of a function for every literal
    constant a caller passes (ask(..., DT_PLACE, ...), res(S, p, GOLD), ...): 16 copies
    of decide and ask, 13 of goods_card. The constants gain nothing at run time.
    """
    if not hasattr(dispatcher, "get_call_template"):
        return dispatcher  # NUMBA_DISABLE_JIT: a plain function
    original = dispatcher.get_call_template

    def get_call_template(args, kws):
        return original(tuple(types.unliteral(a) for a in args),
                        {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _decorator(literals: bool = False, **options):
    compile_ = njit(**options)
    if literals:
        return compile_
    return lambda fn: _one_signature(compile_(fn))


_ENGINE = dict(cache=True, nogil=True, _nrt=False, error_model="numpy")
# what the bodies of the engine's @overload helpers are compiled with
OVERLOAD_OPTIONS = dict(nogil=True, _nrt=False, error_model="numpy", forceinline=False)
# forceinline is set explicitly everywhere: numba lets a callee inherit it otherwise.
jit = _decorator(**_ENGINE, forceinline=False)
# Small hot helpers inlined at numba's IR level: a call costs more than their body
# (each array argument is passed as 7-9 machine words).
jit_inline = _decorator(**_ENGINE, forceinline=False, inline="always")
# Larger functions inlined by LLVM into their (few) callers: typed and compiled once,
# so they cost compile time once, not once per call site as IR-level inlining does.
jit_llvm_inline = _decorator(**_ENGINE, forceinline=True)
jit_alloc = _decorator(cache=True, nogil=True, forceinline=False)
# Inside a strategy's policy, where decision types arrive as run-time values, literal
# arguments (column offsets, seats) may still specialise a function: each such copy
# is small, and the constants fold into faster code.
jit_literal = _decorator(literals=True, **_ENGINE, forceinline=False)
