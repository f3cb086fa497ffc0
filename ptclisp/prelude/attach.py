"""Attaching compiled prelude namespaces to a session.

Attaching exec's a namespace's code with globals of its own (`_ns` = a
fresh `Namespace` for that namespace, `_data`/`_tool` = the session's), so
siblings resolve by bare name at call time (forward references work), user
definitions stay invisible, and a `def` executed inside an export is
discarded (the namespace is frozen after initialisation). The session sets
`_m` in those globals at the start of every evaluation
(`Environment.extra_globals`), so prelude code runs under the caller's
meter. Attaching checks that every tool an export needs is granted and
wraps exports that declare a signature in a contract check. Imports meter,
guards, runtime.failures, backends.bytecode, contract, namespace and the prelude's
other modules.
"""
from __future__ import annotations

from ..runtime import meter as M
from ..backends.table import runtime_table
from .contract import Signature, check_args, check_result
from ..runtime.failures import span_from_traceback, to_ptc_error
from ..errors import FailSignal, PtcError, ReturnSignal
from ..runtime.guards import recursion_budget
from ..runtime.meter import Limits, Meter
from ..runtime.namespace import Namespace
from .compiling import build
from .exports import CompiledNamespace, Export, ExportRecord, ExportTable, NsInstance
from .source import PreludeError, as_component

INIT_LIMITS = Limits(timeout_ms=5000)


def _no_tool(name, args):
    return None


def _no_tool_ref(name):
    return lambda *a: None


def instantiate(c: CompiledNamespace, env) -> NsInstance:
    """Run the compiled namespace's definitions with globals of its own, bound to `env`."""
    ns = Namespace(label=c.name)
    g = {"__builtins__": runtime_table(), "_m": None, "_ns": ns, "_nsf": ns.fast, "_data": env.data_get, "_tool": _no_tool,
         "_tool_ref": _no_tool_ref, "_hist": env.hist}
    n_plain = len(c.values) - len(c.host_keys)
    args = list(c.values[:n_plain])
    for key, static in zip(c.host_keys, c.values[n_plain:]):
        if key.startswith("prelude:"):
            dep, name = key[len("prelude:"):].split("/", 1)
            args.append(env.preludes[dep][name].value)
        else:
            args.append(static)
    meter = Meter(INIT_LIMITS)
    meter.env = env
    g["_m"] = meter
    prev = M.install(meter)
    try:
        exec(c.code, g)  # noqa: S102 - code compiled by our compiler from analyzed prelude forms
        main = g.pop("__ptc_factory__")(*args)
        meter.start()
        try:
            main()
        finally:
            meter.stop()
    except (ReturnSignal, FailSignal) as e:
        raise _init_error(c, ns, e, None) from None
    except Exception as e:  # noqa: BLE001 - every failure is a typed error
        raise _init_error(c, ns, e, to_ptc_error(e)) from None
    finally:
        M.install(prev)
    ns.frozen = True
    g["_tool"] = env.tools.call
    g["_tool_ref"] = env.tools.ref
    return NsInstance(c, ns, g)


def _init_error(c: CompiledNamespace, ns: Namespace, exc: BaseException, err: PtcError | None) -> PreludeError:
    """The error for a namespace whose initialisation raised `exc` (`err`: it as a PtcError; None for
    return/fail), naming the definition that failed and where it is.

    The namespace's code defines its functions, then its constants, each in source order, so
    the failing definition is the first of that order not yet in `ns`. The error's position is
    the innermost prelude form that was running, else the definition itself.
    """
    order = [d for d in c.defs.values() if d.kind == "function"] + \
            [d for d in c.defs.values() if d.kind == "constant"]
    d = next((d for d in order if d.name not in ns), None)
    if d is None:  # pragma: no cover - every definition ran: the failure came after them
        what, ref, span = "initialising its definitions", None, None
    else:
        at = d.form.span
        what, ref, span = f"initialising {d.ref} (defined at {c.origin}:{at.line}:{at.col})", d.ref, at
    if err is None:
        return PreludeError("compile_error", f"namespace {c.name}: return/fail while {what}", span,
                            namespace=c.name, ref=ref, origin=c.origin)
    span = err.span or span_from_traceback(exc, filename=c.code.co_filename) or span
    return PreludeError("compile_error", f"namespace {c.name}: {what} failed: {err.kind}: {err.message}", span,
                        namespace=c.name, ref=ref, origin=c.origin, cause=err.kind)


def _contract_wrapper(fn, sig: Signature, ref: str):
    def contract_checked(*args):
        if len(args) == len(sig.params or args):
            check_args(sig, args, ref)
        try:
            result = fn(*args)
        except ReturnSignal as r:
            check_result(sig, r.value, ref)
            raise
        check_result(sig, result, ref)
        return result
    contract_checked.__name__ = getattr(fn, "__name__", "contract_checked")
    return contract_checked


def _effect_with_tools(rec: ExportRecord, tools) -> str:
    if rec.effect == "unknown" and rec.requires:
        for req in rec.requires:
            t = tools.get(req[5:])
            if t is not None and t.effect == "write":
                return "write"
    return rec.effect


def attach_preludes(env, sources) -> list[str]:
    """Compile (or fetch from the cache) and attach `sources` to `env`; returns the namespaces added.

    `sources`: paths, source texts or `Component`s. Raises PreludeError; on
    error `env` is left as it was. Compiling and initialising run with the
    recursion budget of an evaluation (`INIT_LIMITS`), the host's limit restored after.
    """
    with recursion_budget(INIT_LIMITS.recursion_limit):
        return _attach_preludes(env, sources)


def _attach_preludes(env, sources) -> list[str]:
    comps = [as_component(s) for s in sources]
    attached = {name: table.instance.compiled for name, table in env.preludes.items()}
    compiled = build(comps, attached)
    for c in compiled:
        for rec in c.records.values():
            for req in sorted(rec.requires):
                tool = req[5:]
                if env.tools.get(tool) is None:
                    raise PreludeError("prelude_attach_failed", f"{rec.ref} needs tool/{tool}, which is not granted",
                                       namespace=c.name, ref=rec.ref, origin=c.origin, tool=tool)
    added: dict[str, ExportTable] = {}
    new_globals = []
    saved = dict(env.preludes)
    try:
        for c in compiled:
            inst = instantiate(c, env)
            table = ExportTable()
            table.instance = inst
            for name, rec in c.records.items():
                value = inst.ns[name]
                if rec.kind == "function" and rec.signature is not None:
                    value = _contract_wrapper(value, rec.signature, rec.ref)
                if rec.kind == "constant" and rec.type is not None:
                    try:
                        check_result(rec.type, value, rec.ref, phase="type")
                    except PtcError as e:
                        raise PreludeError("prelude_contract_error", e.message, namespace=c.name, ref=rec.ref,
                                           origin=c.origin) from None
                table[name] = Export(rec, value, _effect_with_tools(rec, env.tools))
            env.preludes[c.name] = table
            programs = getattr(env, "programs", None)
            if programs is not None:  # names now resolve differently: built programs are stale
                programs.clear()
            added[c.name] = table
            new_globals.append(inst.globals)
    except BaseException:
        env.preludes.clear()
        env.preludes.update(saved)
        raise
    env.extra_globals.extend(new_globals)
    return list(added)
