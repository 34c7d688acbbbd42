"""Compiled decision functions ("policies"), one per strategy kind, and how the engine
calls one it was not compiled with.

Every policy has the signature `DECIDE_SIGNATURE`:

    decide(S, D, R, SP, p, dtype, O, n, ctx) -> index into O[0:n]

The engine receives the two seats' policies as `P`, a `Seats` tuple of `Policy` objects
(plus an optional build marker, engine/ask.py). In compiled code a `Policy` is nothing
but the address of its compiled function; `call_policy` calls that address with numba's
own calling convention. So the engine is compiled once for every strategy, and a policy
is compiled only when a seat plays it. With NUMBA_DISABLE_JIT=1 a `Policy` is simply
called as a Python function.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import (
    NativeValue,
    intrinsic,
    models,
    overload,
    register_model,
    typeof_impl,
    unbox,
)

_I64 = types.int64
_VEC = types.Array(types.int64, 1, "C")
DECIDE_SIGNATURE = _I64(_VEC, _VEC, _VEC, types.Array(types.float64, 2, "C"), _I64, _I64,
                        _VEC, _I64, _I64)


class Policy:
    """A compiled decision function as the engine sees it (see the module docstring).

    `fn` is a numba dispatcher (or, under NUMBA_DISABLE_JIT=1, a plain function).
    Calling the Policy from Python calls `fn`.
    """

    def __init__(self, name: str, fn: Callable[..., int],
                 rebuild: tuple[Callable[..., Policy], tuple] | None = None) -> None:
        self.name = name
        self.fn = fn
        self.rebuild = rebuild  # how another process gets the same policy (pickling)
        self._address: int | None = None

    @property
    def compiled(self) -> bool:
        return hasattr(self.fn, "get_compile_result")

    def compile(self) -> None:
        """Compile (or load from the cache) the policy now, e.g. behind a progress display."""
        if self.compiled:
            self.fn.compile(DECIDE_SIGNATURE.args)

    @property
    def address(self) -> int:
        """Address of the compiled function (numba's calling convention), computed once:
        compiled code reads it every time the policy is passed in from Python."""
        if self._address is None:
            self.compile()
            cres = self.fn.get_compile_result(DECIDE_SIGNATURE)
            self._address = int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
        return self._address

    def __call__(self, *args):  # type: ignore[no-untyped-def]
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"Policy({self.name!r})"

    def __reduce__(self):
        # Worker processes rebuild a policy from where it comes from (a kind, a plugin
        # file), never from a pickled copy of compiled code.
        if self.rebuild is None:
            raise TypeError(f"policy {self.name!r} cannot be sent to another process")
        return self.rebuild


class Seats(tuple):
    """The tuple `P` the engine takes: (policy seat 0, policy seat 1[, build marker])."""

    __slots__ = ()


def call_policy(f, S, D, R, SP, p, dtype, O, n, ctx):
    """Call policy f. (This Python body runs under NUMBA_DISABLE_JIT; compiled code uses
    the overload below, a direct call of the compiled function's address.)"""
    return f(S, D, R, SP, p, dtype, O, n, ctx)


# ------------------------------------------------------------------ numba side
class PolicyType(types.Type):
    """numba's type of a Policy: one 64-bit function address."""

    def __init__(self) -> None:
        super().__init__(name="TargiPolicy")


POLICY = PolicyType()
SEATS_TYPES = {2: types.UniTuple(POLICY, 2), 3: types.Tuple((POLICY, POLICY, types.int8))}


@register_model(PolicyType)
class _PolicyModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):  # type: ignore[no-untyped-def]
        super().__init__(dmm, fe_type, ir.IntType(64))


@typeof_impl.register(Policy)
def _typeof_policy(val, c):  # type: ignore[no-untyped-def]
    return POLICY


@typeof_impl.register(Seats)
def _typeof_seats(val, c):  # type: ignore[no-untyped-def]
    return SEATS_TYPES[len(val)]


@unbox(PolicyType)
def _unbox_policy(typ, obj, c):  # type: ignore[no-untyped-def]
    addr_obj = c.pyapi.object_getattr_string(obj, "address")
    with cgutils.if_unlikely(c.builder, cgutils.is_null(c.builder, addr_obj)):
        c.builder.ret(c.pyapi.get_null_object())  # the attribute raised: report it
    addr = c.pyapi.long_as_longlong(addr_obj)
    c.pyapi.decref(addr_obj)
    return NativeValue(addr, is_error=cgutils.is_not_null(c.builder, c.pyapi.err_occurred()))


@intrinsic
def _call_address(typingctx, f, S, D, R, SP, p, dtype, O, n, ctx):  # type: ignore[no-untyped-def]
    wanted = DECIDE_SIGNATURE.args
    given = (S, D, R, SP, p, dtype, O, n, ctx)
    for w, g in zip(wanted, given, strict=True):
        if isinstance(w, types.Array) and w != g:
            raise TypingError(f"a policy takes {w}, not {g}")
    sig = types.int64(f, *given)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        vals = [context.cast(builder, v, g, w)
                for v, g, w in zip(args[1:], signature.args[1:], wanted, strict=True)]
        fnty = context.call_conv.get_function_type(types.int64, wanted)
        fnptr = builder.inttoptr(args[0], fnty.as_pointer())
        status, res = context.call_conv.call_function(builder, fnptr, types.int64, wanted,
                                                      vals)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res

    return sig, codegen


@overload(call_policy, jit_options=dict(nogil=True, _nrt=False, error_model="numpy"),
          inline="always")
def _call_policy(f, S, D, R, SP, p, dtype, O, n, ctx):  # type: ignore[no-untyped-def]
    if isinstance(f, PolicyType):
        return lambda f, S, D, R, SP, p, dtype, O, n, ctx: _call_address(
            f, S, D, R, SP, p, dtype, O, n, ctx)
    return None


_BUILTIN: dict[int, Policy] = {}


def builtin(kind: int) -> Policy:
    """The policy of a built-in strategy kind (SK_*); one object per kind and process."""
    if kind not in _BUILTIN:
        _BUILTIN[kind] = _builtin(kind)
    return _BUILTIN[kind]


def _builtin(kind: int) -> Policy:
    from targi_sim.engine.constants import (
        SK_EXTERNAL,
        SK_GREEDY,
        SK_HEURISTIC,
        SK_MONTECARLO,
        SK_RANDOM,
        SK_SCRIPTED,
    )

    if kind == SK_RANDOM:
        from .random import decide_random as fn
    elif kind == SK_SCRIPTED:
        from .scripted import decide_scripted as fn
    elif kind == SK_GREEDY:
        from .greedy import decide_greedy as fn
    elif kind == SK_HEURISTIC:
        from .heuristic import decide_heuristic as fn
    elif kind == SK_MONTECARLO:
        from .montecarlo import decide_montecarlo as fn
    elif kind == SK_EXTERNAL:
        from .external import decide_external as fn
    else:
        raise ValueError(f"no built-in policy for strategy kind {kind}")
    return Policy(fn.__name__.removeprefix("decide_"), fn, (builtin, (kind,)))
