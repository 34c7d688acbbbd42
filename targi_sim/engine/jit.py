"""One place to configure numba compilation for the whole engine.

`jit` compiles the game loop with numba's reference counting switched off
(`_nrt=False`): every call between compiled functions would otherwise do two
atomic operations per array argument, which measured ~70% of run time. Such
functions must not allocate arrays; `jit_alloc` is for the few top-level
entry points that do (they allocate once per batch, then call into `jit` code).

The machine code that runs is that of the entry points (`ENTRY_POINTS`: the batch
drivers and the policies): numba links a copy of every callee into each of them, and
`_privatise_linked_functions` lets LLVM optimise those copies as private code.

With NUMBA_DISABLE_JIT=1 the decorators return the plain Python function.
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
_jit_alloc = _decorator(cache=True, nogil=True, forceinline=False)
# Inside a strategy's policy, where decision types arrive as run-time values, literal
# arguments (column offsets, seats) may still specialise a function: each such copy
# is small, and the constants fold into faster code.
jit_literal = _decorator(literals=True, **_ENGINE, forceinline=False)


# Functions whose machine code is what runs: the batch drivers (called from Python) and
# the policies (called by address). By their qualified names, which numba gives their
# code libraries.
ENTRY_POINTS: set[str] = set()


def entry_point(dispatcher):
    """Register a compiled function as an entry point (see _privatise_linked_functions)."""
    ENTRY_POINTS.add(getattr(dispatcher, "py_func", dispatcher).__qualname__)
    return dispatcher


def jit_alloc(fn):
    """An entry point that allocates (see the module docstring)."""
    return entry_point(_jit_alloc(fn))


def _privatise_linked_functions() -> None:
    """Let LLVM optimise an entry point's code across the engine's function boundaries.

    numba links every callee's module into its caller's as `linkonce_odr` functions,
    which LLVM must treat as visible outside the module: it cannot drop their unused
    arguments (each array argument is 7-9 machine words), specialise them, or inline
    them for having a single caller. In an entry point's library nothing outside calls
    those copies, so they are made `private` before the module is optimised (games
    unchanged; balanced ~10% faster). Private, not internal: an internal function is
    still a local symbol of the object file, and the loader of cached machine code bound
    a later library's call of the same name to such a reshaped copy
    (tests/test_jit.py). Other libraries exist only to be linked into callers and are
    left as numba makes them, so they cost no extra compile time.
    """
    import llvmlite.binding as ll
    from numba.core import codegen

    cls = codegen.CPUCodeLibrary
    original = getattr(cls, "_optimize_final_module", None)
    if original is None or getattr(original, "targi_sim", False):
        return  # another numba: slower code, same games (tests/test_jit.py says so)

    def _optimize_final_module(self):  # type: ignore[no-untyped-def]
        if self.name in ENTRY_POINTS:
            for f in self._final_module.functions:
                if not f.is_declaration and f.linkage == ll.Linkage.linkonce_odr:
                    f.linkage = ll.Linkage.private
        original(self)

    _optimize_final_module.targi_sim = True
    cls._optimize_final_module = _optimize_final_module


_privatise_linked_functions()
