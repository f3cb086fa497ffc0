"""The `json-tools` baseline: the same model answers with ordinary JSON function calling.

No Lisp is involved: the model gets two tools, `get_records` (returns raw
records of one dataset as JSON, optionally a page of them) and
`submit_answer` (ends the run with a JSON answer), and must do all the
filtering, joining and arithmetic itself while every record it asked for
stays in the transcript.  Comparing this mode with `ptc` on the same tasks
shows what programmatic tool calling saves in tokens, turns and accuracy.

Loop rules (one LLM request per turn, up to `max_turns`):

* a response without tool calls is a protocol error: the model is told to
  call a tool and the turn is spent;
* `submit_answer` ends the run; with an answer schema the answer must
  satisfy it, otherwise the model is told what shape is expected and may try
  again (no turns left: `contract_failure`);
* other calls are executed in order and answered with tool messages;
  unknown tools or bad arguments get an error message;
* when the turns run out: `turn_limit` with reason `protocol_error`,
  `tool_error` or `intermediate_result` (what the last turn was).

Imports providers, runlog.
"""
from __future__ import annotations

import json

from ..providers import LlmRequestError, ModelRouter
from .runlog import RunLog

DEFAULT_PAGE = 1000

SYSTEM = """You answer questions about business datasets by calling functions.

How to work:
- Read data with get_records. Each call returns JSON records of one dataset; use offset and limit to page through large datasets.
- Work out the answer yourself from the records you have read.
- Finish by calling submit_answer exactly once with the final answer as a JSON value in the shape the question asks for (a number, a string, a list or an object). A plain-text reply is not an answer.
- You have a limited number of turns; the remaining budget is stated after every turn.

Datasets available for this question:
{datasets}
"""


def tool_schemas(dataset_names: list[str]) -> list[dict]:
    return [
        {"type": "function", "function": {
            "name": "get_records",
            "description": "Return records of one dataset as JSON: {dataset, total, offset, records}.",
            "parameters": {"type": "object", "additionalProperties": False, "required": ["dataset"],
                           "properties": {"dataset": {"type": "string", "enum": sorted(dataset_names)},
                                          "offset": {"type": "integer", "minimum": 0},
                                          "limit": {"type": "integer", "minimum": 1}}}}},
        {"type": "function", "function": {
            "name": "submit_answer",
            "description": "Submit the final answer (any JSON value) and finish.",
            "parameters": {"type": "object", "additionalProperties": False, "required": ["answer"],
                           "properties": {"answer": {}}}}},
    ]


def _budget(left: int) -> str:
    if left <= 0:
        return "No turns remain."
    note = f"TURN BUDGET: {left} turn{'s' if left != 1 else ''} left."
    if left == 1:
        note += " This is the last turn: call submit_answer now."
    return note


def _describe(data: dict) -> str:
    lines = []
    for name in sorted(data):
        value = data[name]
        size = f"{len(value)} records" if isinstance(value, list) else type(value).__name__
        lines.append(f"- {name}: {size}")
    return "\n".join(lines) or "- (none)"


def _get_records(data: dict, args: dict) -> str:
    name = args.get("dataset")
    if name not in data:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(sorted(data))}")
    rows = data[name] if isinstance(data[name], list) else [data[name]]
    offset = args.get("offset", 0)
    limit = args.get("limit", DEFAULT_PAGE)
    for key, v, low in (("offset", offset, 0), ("limit", limit, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ValueError(f"{key} must be an integer >= {low}")
    page = rows[offset: offset + limit]
    return json.dumps({"dataset": name, "total": len(rows), "offset": offset, "records": page},
                      ensure_ascii=False, separators=(",", ":"))


def contract_problem(schema: dict | None, answer) -> str | None:
    """A short description of why `answer` breaks `schema`, or None."""
    if not schema:
        return None
    import jsonschema
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(answer), key=lambda e: list(e.path))
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(p) for p in e.path) or "the answer"
    return f"{where}: expected {e.validator} {json.dumps(e.validator_value)}"


def run_json_tools(question: str, data: dict, provider, *, model_name: str = "model", notes=(), max_turns: int = 6,
                   time_limit_s: float | None = None, answer_schema: dict | None = None) -> dict:
    log = RunLog("json-tools", time_limit_s)
    router = ModelRouter({model_name: provider}, max_total_calls=None)
    system = SYSTEM.format(datasets=_describe(data))
    if notes:
        system += "\nNotes:\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    tools = tool_schemas(list(data))
    messages = [{"role": "user", "content": f"{question}\n\n{_budget(max_turns)}"}]
    last = "protocol_error"
    while log.turns < max_turns:
        if log.expired():
            log.transcript(system, tools, messages)
            return log.outcome(kind="time_limit", reason="run_time_limit", message="the run's time limit passed")
        request = {"system": system, "messages": messages, "tools": tools}
        try:
            response = router.complete(request)
        except LlmRequestError as e:
            log.transcript(system, tools, messages)
            log.event("provider-error", reason=e.reason)
            return log.outcome(kind="provider_failure", reason=e.reason, message=str(e))
        log.add_usage(response)
        log.turns += 1
        left = max_turns - log.turns
        calls = response.get("tool_calls") or []
        content = response.get("content")
        if not calls:
            if response.get("finish_reason") == "length":
                log.transcript(system, tools, messages)
                return log.outcome(kind="truncated", reason="max_tokens", message="the model hit its output cap")
            log.protocol_errors += 1
            log.event("protocol-error", reason="no-tool-call")
            if isinstance(content, str) and content.strip():
                messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": "Protocol error: no function call. Read data with "
                             f"get_records or finish with submit_answer.\n\n{_budget(left)}"})
            last = "protocol_error"
            continue
        messages.append({"role": "assistant", "content": content,
                         "tool_calls": [{"id": c.get("id"), "name": c.get("name"), "args": c.get("args")}
                                        for c in calls]})
        submit = next((c for c in calls if c.get("name") == "submit_answer"), None)
        if submit is not None:
            args = submit.get("args") if isinstance(submit.get("args"), dict) else {}
            if "answer" not in args:
                problem = "submit_answer needs an 'answer' argument"
            else:
                problem = contract_problem(answer_schema, args["answer"])
                if problem is None:
                    log.event("answer")
                    log.transcript(system, tools, messages)
                    return log.outcome(answered=True, answer=args["answer"])
            log.event("contract-error", problem=problem)
            for c in calls:
                text = (f"Answer rejected: {problem}. Submit an answer of the requested shape."
                        if c is submit else "Not executed: the turn submitted an answer.")
                messages.append({"role": "tool", "tool_call_id": c.get("id"), "content": f"{text}\n\n{_budget(left)}"})
            last = "contract"
            continue
        last = "intermediate_result"
        for i, c in enumerate(calls):
            suffix = f"\n\n{_budget(left)}" if i == len(calls) - 1 else ""
            if c.get("name") == "get_records" and isinstance(c.get("args"), dict):
                try:
                    text = _get_records(data, c["args"])
                    log.event("tool-call", name="get_records", dataset=c["args"].get("dataset"))
                except ValueError as e:
                    text = f"Error: {e}"
                    last = "tool_error"
                    log.event("tool-error", name="get_records")
            else:
                text = f"Error: unknown function {c.get('name')!r}; use get_records or submit_answer."
                last = "tool_error"
                log.event("tool-error", name=str(c.get("name")))
            messages.append({"role": "tool", "tool_call_id": c.get("id"), "content": text + suffix})
    log.transcript(system, tools, messages)
    if last == "contract":
        return log.outcome(kind="contract_failure", reason="result_contract",
                           message="no answer of the requested shape before the turn limit")
    return log.outcome(kind="turn_limit", reason=last, message=f"no answer after {max_turns} turns")
