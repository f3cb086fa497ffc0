"""Models under test: `NAME=PROVIDER:MODEL` specs, the scripted reference model, record and replay.

`parse_model(text)` -> `ModelEntry(name, spec)`.  Provider families are the
ones `ptclisp.providers` knows (openai, anthropic, replay, scripted); the
bench adds two scripted models of its own:

* `scripted:reference` - a deterministic stand-in for an LLM that knows each
  task's reference solution (from the manifest).  In `ptc` mode it sends the
  reference programs, one per turn; in `json-tools` mode it fetches the
  task's datasets with `get_records`, works the answer out offline from
  what the tools returned, and calls `submit_answer`.  It reports token
  estimates (about four characters per token) so token and cost reports have
  something to show.  It obeys one control directive: when the system prompt
  contains `SABOTAGE_MARKER` (the built-in `wrong` variant puts it there) it
  answers level-1 tasks correctly, level-2 tasks with a plausible wrong
  value, and cycles level-3 tasks through three failure styles (never
  finishing, answering in prose, returning a value of the wrong type).
* `scripted:unavailable` - every call fails with a retryable provider error.

`provider_for(entry, task, suite, mode, record_to=None, replay_from=None)`
builds the provider for one run: the live one, wrapped in a
`RecordingProvider` when recording, or a `ReplayProvider` over an earlier
recording.  Imports ptclisp.providers; lazily ptclisp.api, meter and jsonout
(the reference answers) and convert and values.text (scripted programs).
"""
from __future__ import annotations

import json
import math
import os
import re

import attrs

from ..providers import ProviderError, RecordingProvider, ReplayProvider, ScriptedProvider, build_provider
from ..providers.replay import canonical_json
from ..providers.spec import ModelSpecError, parse_model_spec

SABOTAGE_MARKER = "bench-directive: reference-model-sabotage"
BENCH_SCRIPTS = ("reference", "unavailable")
_NAME = re.compile(r"^[a-z][a-z0-9._-]{0,63}$")


@attrs.frozen
class ModelEntry:
    name: str
    spec: str          # PROVIDER:MODEL as given

    @property
    def provider(self) -> str:
        return self.spec.partition(":")[0]


def parse_model(text: str) -> ModelEntry:
    """`"ref=scripted:reference"` -> ModelEntry; a bare spec is named after its model part."""
    name, sep, spec = text.partition("=")
    if not sep:
        spec = text
        name = re.sub(r"[^a-z0-9._-]+", "-", text.partition(":")[2].lower()).strip("-")[:64] or "model"
        if not name[0].isalpha():
            name = "m-" + name
    name = name.strip()
    if not _NAME.match(name):
        raise ModelSpecError(f"model name {name!r} must match [a-z][a-z0-9._-]*")
    parsed = parse_model_spec(spec.strip())
    if parsed.provider == "scripted" and parsed.model not in BENCH_SCRIPTS:
        raise ModelSpecError(f"scripted models available to the bench: {', '.join(BENCH_SCRIPTS)}")
    return ModelEntry(name, spec.strip())


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


# ------------------------------------------------------------------------------------------------
# The reference model
# ------------------------------------------------------------------------------------------------
class ReferenceModel:
    """Answers one task of one suite; stateless across calls (the turn is read off the transcript)."""

    def __init__(self, task, suite, mode: str):
        self.task = task
        self.suite = suite
        self.mode = mode
        same_level = [t.id for t in suite.tasks if t.level == task.level]
        self.level_index = same_level.index(task.id) if task.id in same_level else 0
        self._answer = None

    # what the model "intends" -----------------------------------------------------------------
    def sabotage_style(self) -> str:
        """How the sabotaged model mishandles this task: correct, wrong, stall, prose or contract."""
        if self.task.level <= 1:
            return "correct"
        if self.task.level == 2:
            return "wrong"
        return ("stall", "prose", "contract")[self.level_index % 3]

    def correct_answer(self, data: dict | None = None):
        """The answer the reference programs produce (over `data`, default the task's own files)."""
        if data is None and self._answer is not None:
            return self._answer
        from ..api import Session
        from ..interchange.json_out import to_json
        from ..runtime.meter import Limits
        session = Session(context=data if data is not None else self.suite.data_for(self.task),
                          limits=Limits(timeout_ms=30_000), strict_data=True)
        result = None
        for program in self.task.reference:
            result = session.eval(program)
            if result.status in ("error", "failed"):
                break
        if result is None or result.status != "returned":
            raise ProviderError("internal", f"the reference solution of {self.task.id} did not return a value")
        value = to_json(result.value)  # the answer as an agent run would deliver it (docs/json.md)
        if data is None:
            self._answer = value
        return value

    def wrong_answer(self):
        return spoil(self.correct_answer())

    def contract_breaker(self):
        schema = self.task.answer_schema or {}
        return 0 if schema.get("type") == "string" else "no answer"

    # the provider interface --------------------------------------------------------------------
    def __call__(self, request: dict) -> dict:
        sabotage = SABOTAGE_MARKER in (request.get("system") or "")
        style = self.sabotage_style() if sabotage else "correct"
        if self.mode == "json-tools":
            response = self._json_tools(request, style)
        else:
            response = self._ptc(request, style)
        return _with_tokens(request, response)

    def _ptc(self, request: dict, style: str) -> dict:
        turn = sum(1 for m in request.get("messages", []) if m.get("role") == "assistant" and m.get("tool_calls"))
        if style == "prose":
            return {"content": f"I believe the answer is {json.dumps(self.wrong_answer())}.", "tool_calls": [],
                    "finish_reason": "stop"}
        if style == "stall":
            name = sorted(self.task.data_files)[0]
            program = f"(count data/{name})"
        elif style == "wrong":
            program = f"(return {_lisp_literal(self.wrong_answer())})"
        elif style == "contract":
            program = f"(return {_lisp_literal(self.contract_breaker())})"
        else:
            programs = self.task.reference or ("(return nil)",)
            program = programs[min(turn, len(programs) - 1)]
        return {"content": None, "finish_reason": "tool_calls",
                "tool_calls": [{"id": f"call-{turn + 1}", "name": "run_ptc_lisp", "args": {"program": program}}]}

    def _json_tools(self, request: dict, style: str) -> dict:
        messages = request.get("messages", [])
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if style == "prose":
            return {"content": f"I believe the answer is {json.dumps(self.wrong_answer())}.", "tool_calls": [],
                    "finish_reason": "stop"}
        fetched = {}
        for m in messages:
            if m.get("role") == "tool":
                try:
                    body, _ = json.JSONDecoder().raw_decode(m.get("content") or "")
                except ValueError:
                    continue
                if isinstance(body, dict) and isinstance(body.get("records"), list):
                    fetched.setdefault(body.get("dataset"), []).extend(body["records"])
        wanted = sorted(self.task.data_files)
        if style == "stall":
            calls = [{"id": f"call-{turn + 1}", "name": "get_records", "args": {"dataset": wanted[0], "limit": 1}}]
            return {"content": None, "tool_calls": calls, "finish_reason": "tool_calls"}
        if any(n not in fetched for n in wanted):
            calls = [{"id": f"call-{turn + 1}-{n}", "name": "get_records", "args": {"dataset": n}} for n in wanted]
            return {"content": None, "tool_calls": calls, "finish_reason": "tool_calls"}
        if style == "wrong":
            answer = self.wrong_answer()
        elif style == "contract":
            answer = self.contract_breaker()
        else:
            answer = self.correct_answer({n: fetched[n] for n in wanted})
        return {"content": None, "finish_reason": "tool_calls",
                "tool_calls": [{"id": f"call-{turn + 1}", "name": "submit_answer", "args": {"answer": answer}}]}


def _with_tokens(request: dict, response: dict) -> dict:
    """Attach estimated token counts: the whole request as input, the system prompt as the cached prefix."""
    system = request.get("system") or ""
    first_turn = not any(m.get("role") == "assistant" for m in request.get("messages", []))
    prefix = estimate_tokens(system + json.dumps(request.get("tools") or [], sort_keys=True))
    out_text = json.dumps({"content": response.get("content"), "tool_calls": response.get("tool_calls")},
                          sort_keys=True, ensure_ascii=False)
    response["tokens"] = {"input": estimate_tokens(canonical_json(request)), "output": estimate_tokens(out_text),
                          "cache_creation": prefix if first_turn else 0, "cache_read": 0 if first_turn else prefix}
    return response


def spoil(value):
    """A plausible wrong answer of the same shape as `value`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.1 + 1
    if isinstance(value, str):
        return value + " (approx.)"
    if isinstance(value, list):
        return list(reversed(value))[:-1] if len(value) > 1 else ["none"]
    if isinstance(value, dict):
        return {k: spoil(v) for k, v in value.items()}
    return "unknown"


def _lisp_literal(value) -> str:
    from ..interchange.python import from_python
    from ..values.text import pr_str
    return pr_str(from_python(value))


def _unavailable(request: dict):
    return ProviderError("unavailable", "this scripted model always fails", retryable=True)


# ------------------------------------------------------------------------------------------------
# Building the provider of one run
# ------------------------------------------------------------------------------------------------
def provider_for(entry: ModelEntry, task, suite, mode: str, *, record_to: str | None = None,
                 replay_from: str | None = None, env=None, options: dict | None = None):
    """The provider that answers one run (see module docstring)."""
    if replay_from is not None:
        if not os.path.exists(replay_from):
            return ScriptedProvider(lambda req: ProviderError(
                "not_found", "no recording exists for this run", retryable=False))
        return ReplayProvider(replay_from)
    spec = parse_model_spec(entry.spec)
    if spec.provider == "scripted":
        script = ReferenceModel(task, suite, mode) if spec.model == "reference" else _unavailable
        provider = ScriptedProvider(script)
    else:
        provider = build_provider(spec, env=env, **(options or {}))
    if record_to is not None:
        os.makedirs(os.path.dirname(os.path.abspath(record_to)), exist_ok=True)
        provider = RecordingProvider(provider, record_to)
    return provider
