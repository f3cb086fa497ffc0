"""The policy gate: every call from the agent loop into policy, sandboxed, checked and attributed.

Owns `PolicyGate`, which the host binding `tool/policy-call` (and the host's
own hook sites: compaction, the model context) go through.  Policy is the
shipped `agent.prompt` / `agent.feedback` functions, a `--replace`d
component, and the hooks of a policy prelude (`--policy FILE`):

    render-feedback [turn state]      -> string or nil   the feedback text after a turn
    render-prompt   [sections state]  -> [{"name" "text"}]  the system prompt's sections
    project-context [shapes mission]  -> [form ...]      which API entries the prompt lists
    compact         [turns budget]    -> {"summary" text "pin" [index ...]}

Each call is one evaluation in an environment of its own (the policy
components only, every tool refused), under its own small limits
(`policy_timeout_ms`, default 250 ms; `policy_memory_bytes`, default 2 MB),
on a bounded and redacted projection of its arguments, and its result is
checked (renderers: a string within a size bound; the rest: a JSON Schema
each).  A crash, a timeout, a tool call or a malformed result is a
`policy_fallback`: the shipped behaviour is used for that call (the shipped
function, evaluated under the workflow's own limits, or no hook) and the run
goes on.  Every call is a `policy_call` event.  Imports the agent modules,
prelude, session and values.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
import time

import attrs

from ..errors import PtcError
from ..interchange.json_out import JsonValueError, to_json
from ..runtime.meter import Limits
from ..prelude import Component, attach_preludes, parse_component
from ..host.tools import Tool, ToolSet
from ..values import Keyword, Map, Vector

#: The hook names a policy prelude may export.
HOOKS = ("render-feedback", "render-prompt", "project-context", "compact")
#: Component functions the loop calls through the gate: name -> "render" (a string) or "state" (a map).
FUNCTIONS = {
    "agent.feedback/observation": "render", "agent.feedback/evaluation-error": "render",
    "agent.feedback/non-retryable": "render", "agent.feedback/capability-error": "render",
    "agent.feedback/protocol-error": "render", "agent.feedback/result-contract": "render",
    "agent.feedback/terminal-rejected": "render", "agent.feedback/phase-transition": "render",
    "agent.feedback/budget-notice": "render",
    "agent.prompt/initial-state": "state", "agent.prompt/transition": "state", "agent.prompt/render": "render",
}
#: Feedback functions whose text a render-feedback hook may replace (budget lines and phase openings stay).
FEEDBACK = ("observation", "evaluation-error", "non-retryable", "capability-error", "protocol-error",
            "result-contract", "terminal-rejected")
SECTION_CHARS = 8_000
MAX_SECTIONS = 32
SUMMARY_CHARS = 16_000
STRING_CHARS = 16_384          # the longest string of an input projection
ITEMS = 256                    # the most items of a vector or map in an input projection
DEPTH = 12
FALLBACK_LIMITS = Limits(timeout_ms=10_000, memory_bytes=256_000_000, loop_limit=1_000_000)

HOOK_SCHEMAS = {
    "render-feedback": {"type": ["string", "null"], "maxLength": 65_536},
    "render-prompt": {"type": "array", "maxItems": MAX_SECTIONS, "items": {
        "type": "object", "required": ["name", "text"], "additionalProperties": False,
        "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 80},
                       "text": {"type": "string", "maxLength": SECTION_CHARS}}}},
    "project-context": {"type": "array", "maxItems": 4096, "items": {"type": "string", "maxLength": 2000}},
    "compact": {"type": "object", "required": ["summary"], "additionalProperties": False,
                "properties": {"summary": {"type": "string", "maxLength": SUMMARY_CHARS},
                               "pin": {"type": "array", "maxItems": 64, "items": {"type": "integer", "minimum": 0}}}},
    "state": {"type": "object"},
}

UNTRUSTED_OPEN = '<untrusted_ptc_output source="{source}">'
UNTRUSTED_CLOSE = "</untrusted_ptc_output>"
ESCAPED_CLOSE = "</untrusted_ptc_output (escaped)>"


def wrap_untrusted(text: str, source: str) -> str:
    """`text` inside the untrusted-output markers tool output gets, its closing markers escaped."""
    return (f"{UNTRUSTED_OPEN.format(source=source)}\n{text.replace(UNTRUSTED_CLOSE, ESCAPED_CLOSE)}\n"
            f"{UNTRUSTED_CLOSE}")


@functools.lru_cache(maxsize=64)
def source_digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ------------------------------------------------------------------ input projections

# the quota proof is a host secret; timings and run-global ids would make policy (and its traced sizes) depend on the clock
_REDACTED_KEYS = frozenset({"limit_proof", "duration_ms", "evaluation_id"})


def bounded(x, depth: int = 0):
    """A Lisp value cut to the projection bounds: long strings, long collections and deep nesting are cut."""
    t = type(x)
    if t is str:
        return x if len(x) <= STRING_CHARS else x[:STRING_CHARS] + "… [truncated]"
    if depth >= DEPTH:
        return None
    if t is Map:
        out = {}
        for k, v in x.items():
            if len(out) >= ITEMS:
                break
            name = k.name if type(k) is Keyword else k
            if name in _REDACTED_KEYS:
                continue
            out[k] = bounded(v, depth + 1)
        if x.lookup(Keyword("outcome")) in (Keyword("continued"), Keyword("returned")):
            out.pop(Keyword("value"), None)       # the full value: the observation is what the model sees
        return Map(out)
    if t is Vector:
        return Vector([bounded(v, depth + 1) for v in x.lst()[:ITEMS]])
    if isinstance(x, (int, float, bool, Keyword)) or x is None:
        return x
    return None                                   # functions and other host values never reach policy


_LIMIT_KINDS = frozenset({"memory_exceeded", "compile_memory_exceeded", "loop_limit_exceeded", "runtime_limit_exceeded",
                          "recursion_limit_exceeded", "program_too_large"})


class PolicyFailure(Exception):
    def __init__(self, reason: str, detail: str | None = None):
        super().__init__(reason)
        self.reason, self.detail = reason, detail


class _RefusingTools(ToolSet):
    """The tool table of a policy environment: the names resolve, every call is refused."""

    def __init__(self, names):
        super().__init__({n: Tool(n, lambda a: None, description="refused in policy") for n in names})
        self.called: str | None = None

    def call(self, name: str, args: tuple):
        self.called = name
        raise PtcError("policy_tool_call", f"policy code may not call tools (tool/{name})", details={"tool": name})


@attrs.define(slots=True)
class PolicyOptions:
    timeout_ms: int = 250
    memory_bytes: int = 2_000_000
    output_chars: int = 262_144


class _Sandbox:
    """One policy environment: components attached over refusing tools."""

    def __init__(self, components, tool_names):
        from ..session import Environment
        self.tools = _RefusingTools(tool_names)
        self.env = Environment({}, self.tools)
        attach_preludes(self.env, components)

    def call(self, ref: str, args: list, limits: Limits, extra: dict | None = None):
        from ..pipeline import evaluate
        self.tools.called = None
        self.env.context = Map({"args": Vector(args), **(extra or {})})
        res = evaluate(self.env, f"(apply {ref} data/args)", limits, commit_history=False)
        if self.tools.called is not None:
            raise PolicyFailure("tool_call", self.tools.called)
        if res.status == "error":
            kind = res.error.kind
            reason = "timeout" if kind in ("timeout", "compile_timeout") else \
                "limit" if kind in _LIMIT_KINDS else "crash"
            raise PolicyFailure(reason, kind)
        if res.status != "ok":
            raise PolicyFailure("crash", res.status)     # return or fail from policy code
        return res.value


def policy_namespaces(comp: Component) -> set:
    """The namespaces a policy component defines (by name: a compiled namespace is shared by every component
    of the same source, so its recorded origin may be another file's)."""
    return {spec.name for spec in parse_component(comp)}


def _kernel_stub(shipped_kernel: str) -> str:
    """The `kernel` of a policy environment: the model context is read from data, every other call is a tool."""
    old = '(tool/kernel-mission-model-context {"mission" mission})'
    assert old in shipped_kernel
    return shipped_kernel.replace(old, "(get data/model_contexts mission)")


class _Pool:
    """Policy environments of one component list, reused across the runs of a host (they hold no state
    between calls: each call sets its own data and commits nothing); one per concurrent call."""

    def __init__(self, components: list, tool_names, policies=()):
        self.components, self.tool_names, self.policies = components, tuple(tool_names), list(policies)
        self.free: list[_Sandbox] = []
        self.lock = threading.Lock()
        self.broken: str | None = None
        self.hooks: dict[str, tuple[str, str]] | None = None    # hook -> (ns/name, source)

    def _new(self, strict: bool) -> _Sandbox:
        try:
            sb = _Sandbox(self.components, self.tool_names)
        except PtcError as e:
            if strict or self.policies:
                raise
            self.broken = e.kind
            raise PolicyFailure("unavailable", e.kind) from None
        if self.hooks is None:
            hooks = {}
            for comp in self.policies:
                for ns_name, table in sb.env.preludes.items():
                    if ns_name in policy_namespaces(comp):
                        for hook in HOOKS:
                            if hook in table and table[hook].record.kind == "function":
                                hooks[hook] = (f"{ns_name}/{hook}", comp.source)
            self.hooks = hooks
        return sb

    @contextlib.contextmanager
    def use(self, strict: bool = False):
        """A policy environment for one call; a component that cannot attach there (it needs a tool the
        loop's bindings do not name) makes every call a fallback, or with `strict` raises."""
        if self.broken is not None and not strict:
            raise PolicyFailure("unavailable", self.broken)
        with self.lock:
            sb = self.free.pop() if self.free else None
        if sb is None:
            sb = self._new(strict)
        try:
            yield sb
        finally:
            with self.lock:
                self.free.append(sb)


class PolicySet:
    """A host's policy: the active agent.feedback / agent.prompt (shipped or replaced) and the policy
    preludes, with their environments; the shipped components apart, for the fallback.

    components: {component id: Component}; policies: policy prelude Components.
    """

    def __init__(self, components: dict, policies: list, tool_names):
        from .library import shipped_source
        kernel = Component(_kernel_stub(shipped_source("kernel")), "ptclisp.preludes/kernel.clj (policy)", ())
        gated = ("agent.feedback", "agent.prompt")
        self.policies = list(policies)
        self.active = _Pool([kernel] + [components[c] for c in gated] + self.policies, tool_names, self.policies)
        replaced = any(components[c].source != shipped_source(c) for c in gated)
        self.shipped = _Pool([kernel] + [Component(shipped_source(c), f"ptclisp.preludes/{c}.clj", deps)
                                         for c, deps in (("agent.feedback", ()), ("agent.prompt", ("kernel",)))],
                             tool_names) if replaced else self.active
        self.digests = {c: source_digest(components[c].source) for c in gated}
        self.digests.update({p.origin: source_digest(p.source) for p in self.policies})

    def hooks(self) -> dict:
        if self.active.hooks is None:
            with self.active.use(strict=bool(self.policies)):
                pass
        return self.active.hooks or {}


class PolicyGate:
    """The one route from the loop into policy, for one run of a host's PolicySet.

    emit: the run's event sink; turn(): the run's current turn.
    """

    def __init__(self, policy: PolicySet, emit, turn):
        self.set = policy
        self._emit, self._turn = emit, turn
        self.options = PolicyOptions()
        self.policies = policy.policies

    def has_hook(self, hook: str) -> bool:
        if not self.policies:
            return False
        try:
            return hook in self.set.hooks()
        except PolicyFailure:
            return False

    # ------------------------------------------------------------------ calls
    def _limits(self) -> Limits:
        o = self.options
        return Limits(timeout_ms=o.timeout_ms, memory_bytes=o.memory_bytes, loop_limit=1 << 40)

    def _check(self, kind: str, value, bound: int):
        if kind == "render":
            if type(value) is not str:
                raise PolicyFailure("malformed_result", f"expected a string, got {_type_name(value)}")
            if len(value) > bound:
                raise PolicyFailure("malformed_result", f"the text has {len(value)} characters, over {bound}")
            return value
        try:
            data = to_json(value)
        except JsonValueError as e:
            raise PolicyFailure("malformed_result", e.message) from None
        errors = sorted(_validator(kind).iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            raise PolicyFailure("malformed_result", errors[0].message[:300])
        return value

    def _record(self, what: str, name: str, digest: str, args, started: float, out, failure):
        event = {"type": "policy_fallback" if failure else "policy_call", "turn": self._turn(), what: name,
                 "source_sha256": digest, "input_chars": _size(args),
                 "output_chars": _size(out) if failure is None else 0,
                 "duration_ms": round((time.perf_counter() - started) * 1000, 3)}
        if failure is not None:
            event["reason"] = failure.reason
            if failure.detail:
                event["detail"] = failure.detail
        self._emit(event)

    def call_function(self, ref: str, args: list, extra: dict | None = None):
        """The value of component function `ref` on `args` (Lisp values), or the shipped function's on failure."""
        kind = FUNCTIONS[ref]
        component = ref.split("/")[0]
        proj = [bounded(a) for a in args]
        bound = self.options.output_chars
        started = time.perf_counter()
        digest = self.set.digests[component]
        check = kind if kind == "render" else "state"
        try:
            with self.set.active.use() as sandbox:
                out = self._check(check, sandbox.call(ref, proj, self._limits(), extra), bound)
            self._record("function", ref, digest, proj, started, out, None)
            return out
        except PolicyFailure as f:
            self._record("function", ref, digest, proj, started, None, f)
        # the shipped behaviour, under the workflow's limits (it is trusted code); its own failure ends the run
        try:
            with self.set.shipped.use() as sandbox:
                return self._check(check, sandbox.call(ref, proj, FALLBACK_LIMITS, extra), bound)
        except PolicyFailure as f:
            raise PtcError("policy_unavailable", f"the shipped {ref} failed too ({f.reason})",
                           details={"function": ref, "reason": f.reason}) from None

    def call_hook(self, hook: str, args: list, schema: str | None = None, extra: dict | None = None):
        """The checked value of `hook` on `args` (plain data), or None (use the shipped behaviour)."""
        if not self.has_hook(hook):
            return None
        ref, source = self.set.hooks()[hook]
        digest = source_digest(source)
        from ..interchange.python import from_python
        proj = [bounded(from_python(a)) for a in args]
        started = time.perf_counter()
        try:
            with self.set.active.use() as sandbox:
                out = sandbox.call(ref, proj, self._limits(), extra)
            if hook == "render-feedback" and out is None:
                self._record("hook", hook, digest, proj, started, out, None)
                return None
            self._check(schema or hook, out, 0)
            data = to_json(out)
            self._record("hook", hook, digest, proj, started, out, None)
            return data
        except PolicyFailure as f:
            self._record("hook", hook, digest, proj, started, None, f)
            return None


_VALIDATORS: dict = {}


def _validator(kind: str):
    v = _VALIDATORS.get(kind)
    if v is None:
        import jsonschema
        v = _VALIDATORS[kind] = jsonschema.Draft202012Validator(HOOK_SCHEMAS[kind])
    return v


def _type_name(v) -> str:
    return {str: "string", Map: "map", Vector: "vector", type(None): "nil"}.get(type(v), type(v).__name__)


def _size(x) -> int:
    """Characters of `x` as compact JSON text (0 when it has no JSON form)."""
    import json
    if type(x) is str:
        return len(json.dumps(x, ensure_ascii=False))
    try:
        return len(json.dumps(to_json(x), ensure_ascii=False, separators=(",", ":")))
    except (JsonValueError, TypeError, ValueError):
        return 0
