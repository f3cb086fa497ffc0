"""The run viewer as one self-contained HTML page (server-side rendered, inline CSS, SVG and script).

Owns `render_page(directory, runs, live=False)` (the whole document) and
`render_app(directory, runs)` (the part the live page swaps in on change):

* the runs list: status, task summary (private evidence only), model,
  turns, tokens, cost, duration; a status filter and a search box; an SVG
  chart of tokens per run coloured by status;
* per run: its facts, the preludes that were loaded, token and time bars
  per turn (SVG), and a timeline of turns: the model's text, the program it
  wrote (highlighted, the error's line marked with a caret and the error),
  the evaluation's outcome, prints and observation, the tool calls with
  their durations, the feedback the next turn received; then the final
  value or failure.  Without private evidence the page says so and shows
  the public facts (sizes, digests, error kinds and positions) only.

Every text from a trace is HTML-escaped (programs and model output are
untrusted).  The page loads nothing: no external script, style, font or
image, and a Content-Security-Policy that forbids it (the live page may
connect to its own server for updates).  Imports trace.reader and trace.usage (cost text).
"""
from __future__ import annotations

import datetime
import html
import json
import re

from ..trace.reader import Run
from ..trace.usage import format_cost

E = html.escape

STATUS_COLORS = {"ok": "#2e8540", "failed": "#c0392b", "crashed": "#8e44ad", "running": "#2c7fb8",
                 "incomplete": "#7f8c8d"}

CSS = """
:root{--fg:#1d2329;--muted:#5f6b76;--line:#dde3e8;--bg:#fff;--soft:#f5f7f9;--err:#c0392b;--ok:#2e8540}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);
 margin:0;padding:0 24px 48px}
header{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:12px 0 8px;z-index:2}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:16px 0 6px}
.meta{color:var(--muted);margin:0}
.filters{display:flex;gap:12px;align-items:center;margin-top:8px}
.filters input{padding:4px 8px;min-width:280px;border:1px solid var(--line);border-radius:4px}
.filters select{padding:3px 6px}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;position:sticky;top:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:0 7px;border-radius:9px;color:#fff;font-size:12px;font-weight:600}
.run{border-top:3px solid var(--line);margin-top:36px;padding-top:4px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.note{background:#fff8e1;border:1px solid #f0d98c;padding:6px 10px;border-radius:4px}
.turn{border:1px solid var(--line);border-radius:6px;margin:14px 0;padding:8px 12px;background:var(--bg)}
.turn.has-error{border-left:4px solid var(--err)}.turn.returned{border-left:4px solid var(--ok)}
.turn h3{margin:0 0 6px;display:flex;gap:12px;flex-wrap:wrap;align-items:baseline}
.turn h3 small{color:var(--muted);font-weight:400}
.text{white-space:pre-wrap;background:var(--soft);padding:6px 8px;border-radius:4px;margin:6px 0}
pre{margin:6px 0;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-x:auto}
pre.out{background:var(--soft);padding:6px 8px;border-radius:4px;white-space:pre-wrap}
.code{border:1px solid var(--line);border-radius:4px;background:#fbfcfd;padding:4px 0}
.code .ln{display:block;padding:0 8px;white-space:pre}
.code .ln i{display:inline-block;width:3em;color:#9aa5b1;font-style:normal;user-select:none}
.code .ln.err{background:#fdecea}
.code .caret{display:block;padding:0 8px;white-space:pre;color:var(--err);font-weight:600}
.tk-c{color:#7a8793;font-style:italic}.tk-s{color:#a3551b}.tk-k{color:#7d3cb5}.tk-n{color:#1f6fb2}
.tk-sf{color:#b5204a;font-weight:600}.tk-t{color:#0b7a5b;font-weight:600}.tk-d{color:#0b5f7a}
.tk-p{color:#8a96a3}
.outcome{font-weight:600}.outcome.bad{color:var(--err)}.outcome.good{color:var(--ok)}
.final{border:2px solid var(--line);border-radius:6px;padding:8px 12px;margin:14px 0}
.final.ok{border-color:var(--ok)}.final.failed,.final.crashed{border-color:var(--err)}
.err-text{color:var(--err);font-weight:600}
details summary{cursor:pointer;color:var(--muted)}
svg{max-width:100%;height:auto;display:block;margin:6px 0}
svg text{font:11px system-ui,sans-serif;fill:#33414e}
.hidden{display:none}
"""

SCRIPT = """
(function(){
  function apply(){
    var st=document.getElementById('f-status').value, q=document.getElementById('f-search').value.toLowerCase();
    var shown=0;
    document.querySelectorAll('[data-run]').forEach(function(el){
      var ok=(!st||el.getAttribute('data-status')===st)&&(!q||el.getAttribute('data-search').indexOf(q)>=0);
      el.classList.toggle('hidden',!ok); if(ok&&el.tagName==='TR')shown++;
    });
    var c=document.getElementById('shown'); if(c)c.textContent=shown;
  }
  window.ptcApply=apply;
  document.getElementById('f-status').addEventListener('change',apply);
  document.getElementById('f-search').addEventListener('input',apply);
  apply();
})();
"""

LIVE_SCRIPT = """
(function(){
  var busy=false, pending=false;
  function refresh(){
    if(busy){pending=true;return;} busy=true;
    fetch('/app',{cache:'no-store'}).then(function(r){return r.text();}).then(function(t){
      var y=window.scrollY; document.getElementById('app').innerHTML=t; window.ptcApply(); window.scrollTo(0,y);
      var s=document.getElementById('live'); if(s)s.textContent='live: updated '+new Date().toLocaleTimeString();
    }).catch(function(){}).then(function(){busy=false; if(pending){pending=false;refresh();}});
  }
  if(window.EventSource){
    var es=new EventSource('/events'); es.onmessage=refresh;
  } else { setInterval(refresh,2000); }
})();
"""

SPECIAL_FORMS = frozenset("""def defn defn- fn fn* let letfn loop recur if if-not when when-not when-let if-let
cond condp case do and or return fail doseq for dotimes -> ->> as-> some-> some->> cond-> cond->> try catch
throw quote""".split())

_TOKEN = re.compile(r"""(?P<c>;[^\n]*)|(?P<s>"(?:\\.|[^"\\])*"?)|(?P<k>::?[^\s()\[\]{}"',;]+)"""
                    r"""|(?P<n>[-+]?\d[\w.]*)|(?P<p>[()\[\]{}#'`~@^])|(?P<y>[^\s()\[\]{}"',;]+)|(?P<w>\s+)|(?P<o>.)""",
                    re.S)


def highlight_tokens(source: str) -> list[tuple[str, str]]:
    """(css class or "", text) tokens of PTC-Lisp source: comments, strings, keywords, numbers, forms."""
    out = []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        text = m.group()
        if kind == "y":
            if text in SPECIAL_FORMS:
                cls = "tk-sf"
            elif text.startswith("tool/"):
                cls = "tk-t"
            elif text.startswith("data/"):
                cls = "tk-d"
            else:
                cls = ""
        else:
            cls = {"c": "tk-c", "s": "tk-s", "k": "tk-k", "n": "tk-n", "p": "tk-p"}.get(kind, "")
        out.append((cls, text))
    return out


def render_code(source: str, error_line: int | None = None, error_col: int | None = None,
                error_text: str | None = None) -> str:
    """Highlighted source with line numbers; the error line marked and a caret line with the error under it."""
    lines: list[list[str]] = [[]]
    for cls, text in highlight_tokens(source):
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append(f'<span class="{cls}">{E(part)}</span>' if cls else E(part))
    html_lines = []
    for n, spans in enumerate(lines, 1):
        mark = " err" if n == error_line else ""
        html_lines.append(f'<span class="ln{mark}" data-line="{n}"><i>{n}</i>{"".join(spans)}</span>')
        if n == error_line:
            pad = " " * (max((error_col or 1), 1) - 1)
            html_lines.append(f'<span class="caret"><i>   </i>{pad}^ {E(error_text or "error")}</span>')
    return f'<pre class="code">{"".join(html_lines)}</pre>'


# ------------------------------------------------------------------ formatting helpers

def _num(n) -> str:
    return f"{n:,}" if isinstance(n, int) else "-"


def _ms(ms) -> str:
    if not isinstance(ms, (int, float)):
        return "-"
    if ms < 10:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"


def _cost(c) -> str:
    return format_cost(c, unknown="?")


def _badge(status: str) -> str:
    color = STATUS_COLORS.get(status, "#7f8c8d")
    return f'<span class="badge" style="background:{color}">{E(status)}</span>'


def _when(ts) -> str:
    if not isinstance(ts, str):
        return "-"
    try:
        t = datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return E(ts)
    return t.strftime("%Y-%m-%d %H:%M:%S UTC")


def _text_block(value, cls="out") -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, indent=1)
    return f'<pre class="{cls}">{E(value)}</pre>'


def _anchor(run_id: str) -> str:
    return "run-" + re.sub(r"[^A-Za-z0-9_-]", "_", run_id)


# ------------------------------------------------------------------ charts

def chart_runs(summaries: list[dict]) -> str:
    """Horizontal bars: tokens (input + output) per run, coloured by status."""
    rows = summaries[-60:]
    if not rows:
        return ""
    if not any(s["input_tokens"] + s["output_tokens"] for s in rows):   # nothing to draw: say why
        return ('<p class="meta" id="chart-runs-none">No token counts to chart: the providers of these runs '
                'reported none (replayed and scripted models report no usage).</p>')
    top = max([s["input_tokens"] + s["output_tokens"] for s in rows] + [1])
    h, left, width = 18, 190, 720
    body = []
    for i, s in enumerate(rows):
        y = 6 + i * h
        total = s["input_tokens"] + s["output_tokens"]
        w_in = (width - left - 150) * s["input_tokens"] / top
        w_out = (width - left - 150) * s["output_tokens"] / top
        color = STATUS_COLORS.get(s["status"], "#7f8c8d")
        body.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{E(s["id"])}</text>'
                    f'<rect x="{left}" y="{y + 2}" width="{w_in:.1f}" height="{h - 5}" fill="{color}"/>'
                    f'<rect x="{left + w_in:.1f}" y="{y + 2}" width="{w_out:.1f}" height="{h - 5}" fill="{color}" '
                    f'opacity="0.55"/>'
                    f'<text x="{left + w_in + w_out + 6:.1f}" y="{y + 12}">{_num(total)} tok, '
                    f'{E(_cost(s["cost_usd"]))}</text>')
    height = 12 + len(rows) * h
    return (f'<svg id="chart-runs" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-label="tokens per run"><title>Tokens per run (dark: input, light: output)</title>'
            f'{"".join(body)}</svg>')


def chart_turns(turns: list[dict], anchor: str) -> str:
    """Two panels per turn: tokens (input, output) and time (model call, evaluation)."""
    if not turns:
        return ""
    tok = [((t.get("response") or {}).get("tokens") or {}) for t in turns]
    max_tok = max([x.get("input", 0) + x.get("output", 0) for x in tok] + [1])
    times = [((t.get("response") or {}).get("duration_ms") or 0, (t.get("evaluation") or {}).get("duration_ms") or 0)
             for t in turns]
    max_t = max([a + b for a, b in times] + [1])
    h, left, panel = 20, 60, 300
    token_title = "tokens (input / output)" if any(tok) else "tokens: none reported by the provider"
    body = [f'<text x="{left}" y="12">{token_title}</text>',
            f'<text x="{left + panel + 70}" y="12">time (model / evaluation)</text>']
    for i, t in enumerate(turns):
        y = 18 + i * h
        x_in = panel * tok[i].get("input", 0) / max_tok
        x_out = panel * tok[i].get("output", 0) / max_tok
        label = "n/a" if not tok[i] else f'{_num(tok[i].get("input", 0))} / {_num(tok[i].get("output", 0))}'
        body.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">turn {E(str(t["turn"]))}</text>'
                    f'<rect x="{left}" y="{y + 3}" width="{x_in:.1f}" height="{h - 6}" fill="#4a78a8"/>'
                    f'<rect x="{left + x_in:.1f}" y="{y + 3}" width="{x_out:.1f}" height="{h - 6}" fill="#9cc0e3"/>'
                    f'<title>{E(label)}</title>')
        m, ev = times[i]
        x0 = left + panel + 70
        wm, we = panel * m / max_t, panel * ev / max_t
        body.append(f'<rect x="{x0}" y="{y + 3}" width="{wm:.1f}" height="{h - 6}" fill="#d98b2b"/>'
                    f'<rect x="{x0 + wm:.1f}" y="{y + 3}" width="{we:.1f}" height="{h - 6}" fill="#6bb06b"/>'
                    f'<text x="{x0 + wm + we + 4:.1f}" y="{y + 13}">{E(_ms(m))} / {E(_ms(ev))}</text>')
    width = left + 2 * panel + 170
    height = 24 + len(turns) * h
    return (f'<svg id="{anchor}-chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="tokens and time per turn"><title>Tokens and time per turn</title>{"".join(body)}</svg>')


# ------------------------------------------------------------------ sections

def _runs_table(summaries: list[dict]) -> str:
    head = ("<tr><th>run</th><th>status</th><th>task</th><th>model</th><th class=num>turns</th>"
            "<th class=num>input tok</th><th class=num>output tok</th><th class=num>cost</th>"
            "<th class=num>duration</th><th>error</th></tr>")
    rows = []
    for s in reversed(summaries):          # newest first
        task = E(s["task"]) if s["task"] else f'<span class=meta>(private; {_num(s["task_chars"])} chars)</span>' \
            if s["task_chars"] is not None else '<span class=meta>-</span>'
        err = s["error"]
        err_text = E(f'{err["kind"]}/{err["reason"]}') if err else ""
        kinds = ", ".join(dict.fromkeys(s["error_kinds"]))
        if kinds:
            err_text += (" " if err_text else "") + f'<span class=meta>({E(kinds)})</span>'
        search = " ".join(str(x) for x in (s["id"], s["task"] or "", s["model"] or "",
                                           f'{err["kind"]}/{err["reason"]}' if err else "", kinds)).lower()
        tok_in = _num(s["input_tokens"]) + (f'<span class=meta> +{E(str(s["unreported_calls"]))}?</span>'
                                            if s["unreported_calls"] else "")
        rows.append(f'<tr data-run="{E(s["id"])}" data-status="{E(s["status"])}" data-search="{E(search)}">'
                    f'<td><a href="#{_anchor(s["id"])}">{E(s["id"])}</a></td><td>{_badge(s["status"])}</td>'
                    f'<td>{task}</td><td>{E(s["model"] or "-")}</td><td class=num>{E(str(s["turns"]))}</td>'
                    f'<td class=num>{tok_in}</td><td class=num>{_num(s["output_tokens"])}</td>'
                    f'<td class=num>{E(_cost(s["cost_usd"]))}</td><td class=num>{E(_ms(s["duration_ms"]))}</td>'
                    f'<td>{err_text}</td></tr>')
    return f'<table id="runs">{head}{"".join(rows)}</table>'


def _facts(run: Run, s: dict) -> str:
    start = run.first("run_start") or {}
    models = start.get("models") or {}
    model_text = ", ".join(f'{a} = {m.get("provider")}:{m.get("model")}' for a, m in models.items()
                           if isinstance(m, dict))
    task = s["task"]
    if run.has_private:
        full = run.task_text()
        task_html = f'<div class="text">{E(full)}</div>' if full else "-"
    elif task is None and s["task_chars"] is not None:
        task_html = f'<span class=meta>private ({E(str(s["task_chars"]))} chars, {E(s["task_sha256"] or "")})</span>'
    else:
        task_html = "-"
    rows = [("task", task_html), ("command", E(s["command"] or "-")), ("models", E(model_text or "-")),
            ("started", _when(s["started"])), ("duration", E(_ms(s["duration_ms"]))),
            ("turns", E(str(s["turns"]))),
            ("model calls", E(str(s["calls"])) + (f' ({E(str(s["failed_calls"]))} failed)' if s["failed_calls"]
                                                   else "")
             + (f' ({E(str(s["unreported_calls"]))} without reported usage)' if s["unreported_calls"] else "")),
            ("tokens", f'{_num(s["input_tokens"])} input ({_num(s["cached_tokens"])} cached), '
                       f'{_num(s["output_tokens"])} output'),
            ("cost", E(_cost(s["cost_usd"])))]
    if s["error"]:
        rows.append(("error", f'<span class="err-text">{E(s["error"]["kind"])}/{E(s["error"]["reason"])}</span>'))
    if s["bad_lines"]:
        rows.append(("skipped lines", f'<span class="err-text">{E(str(s["bad_lines"]))} malformed trace '
                                      f'line(s) skipped</span>'))
    return '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"


def _preludes(run: Run) -> str:
    p = run.preludes()
    if not p:
        return ""
    items = []
    wf = p.get("workflow") or []
    if wf:
        items.append("<li>workflow: " + ", ".join(f'<code>{E(x.get("namespace", "?"))}</code>' for x in wf) + "</li>")
    for mission, lst in (p.get("missions") or {}).items():
        names = ", ".join(f'<code>{E(x.get("namespace", "?"))}</code> <span class=meta>({E(x.get("origin", ""))})'
                          f'</span>' for x in lst) or '<span class=meta>none</span>'
        items.append(f"<li>mission <b>{E(mission)}</b>: {names}</li>")
    return f'<details class="preludes"><summary>Preludes loaded</summary><ul>{"".join(items)}</ul></details>'


def _turn(run: Run, t: dict, anchor: str) -> str:
    resp = t.get("response") or {}
    ev = t.get("evaluation") or {}
    err = ev.get("error") if isinstance(ev.get("error"), dict) else None
    outcome = ev.get("outcome")
    cls = "turn" + (" has-error" if err else "") + (" returned" if outcome == "returned" else "")
    tokens = resp.get("tokens")
    tok_text = (f'{_num(tokens.get("input"))} in / {_num(tokens.get("output"))} out' if isinstance(tokens, dict)
                else "usage not reported" if resp.get("usage") == "unreported" else "")
    head = (f'<h3>Turn {E(str(t["turn"]))} <small>{E(str(resp.get("alias") or ""))}'
            f'{" (" + E(str(resp.get("model"))) + ")" if resp.get("model") else ""}</small>'
            f'<small>model call {E(_ms(resp.get("duration_ms")))}</small><small>{E(tok_text)}</small>'
            f'{"<small>finish: " + E(str(resp.get("finish_reason"))) + "</small>" if resp.get("finish_reason") else ""}'
            f'</h3>')
    parts = [head]
    if resp.get("status") == "error":
        e = resp.get("error") or {}
        parts.append(f'<p class="err-text">model call failed: {E(str(e.get("kind")))}/{E(str(e.get("reason")))}</p>')
    if run.has_private and t.get("text"):
        parts.append(f'<div class="text" title="model text">{E(t["text"])}</div>')
    program = t.get("program")
    if program is not None:
        err_text = None
        if err:
            err_text = f'{err.get("kind")}' + (f': {t.get("message")}' if t.get("message") else "")
        parts.append(render_code(program, err.get("line") if err else None, err.get("col") if err else None,
                                 err_text))
    elif ev.get("program") or resp.get("program"):
        p = ev.get("program") or resp.get("program")
        parts.append(f'<p class=meta>program: {E(str(p.get("lines")))} lines, {E(str(p.get("chars")))} chars, '
                     f'{E(str(p.get("sha256")))} (private)</p>')
    if ev:
        where = f' at line {err.get("line")}, column {err.get("col")}' if err and err.get("line") else ""
        good = outcome in ("continued", "returned")
        label = f'{outcome}' + (f' - {err.get("kind")}' if err and err.get("kind") else "") + \
            (f' ({err.get("reason")})' if err and err.get("reason") else "")
        parts.append(f'<p>result: <span class="outcome {"good" if good else "bad"}">{E(label)}</span>'
                     f'{E(where)} <span class=meta>in {E(_ms(ev.get("duration_ms")))}; {E(str(ev.get("prints", 0)))} '
                     f'print lines</span></p>')
        if err and run.has_private and t.get("message") and program is None:
            parts.append(f'<p class="err-text">{E(err.get("kind") or "")}: {E(t["message"])}</p>')
        if run.has_private and t.get("prints"):
            parts.append("<div>prints:</div>" + _text_block("\n".join(t["prints"])))
        if run.has_private and t.get("observation"):
            parts.append("<div>observation:</div>" + _text_block(t["observation"]))
    if t.get("tool_calls"):
        rows = []
        for c in t["tool_calls"]:
            extra = ""
            if run.has_private:
                extra = (f'<details><summary>arguments and result</summary>{_text_block(c.get("args"))}'
                         f'{_text_block(c.get("result"))}</details>')
            rows.append(f'<tr><td><code>tool/{E(str(c.get("name")))}</code></td><td>{E(str(c.get("effect")))}</td>'
                        f'<td>{E(str(c.get("status")))}</td><td class=num>{E(_ms(c.get("duration_ms")))}</td>'
                        f'<td>{extra}</td></tr>')
        parts.append('<table class="tools"><tr><th>tool call</th><th>effect</th><th>status</th>'
                     f'<th class=num>duration</th><th></th></tr>{"".join(rows)}</table>')
    for p in t.get("policy") or []:
        if p.get("kind") == "policy_fallback":
            what = p.get("function") or p.get("hook")
            parts.append(f'<p class="err-text">policy fallback: <code>{E(str(what))}</code> '
                         f'{E(str(p.get("reason")))}{" (" + E(str(p.get("detail"))) + ")" if p.get("detail") else ""}'
                         f' <span class=meta>the shipped behaviour was used</span></p>')
        elif p.get("kind") == "compaction":
            parts.append(f'<p class=meta>compaction: request {E(str(p.get("before_chars")))} -&gt; '
                         f'{E(str(p.get("after_chars")))} chars (budget {E(str(p.get("budget_chars")))}), '
                         f'{len(p.get("turns_summarized") or [])} turns summarized'
                         f'{", structural trimmer" if p.get("fallback_trimmer") else ""}</p>')
    for a in t.get("annotations") or []:
        if a.get("kind") == "abort":
            parts.append(f'<p class="err-text">abort: {E(str(a.get("reason")))}</p>')
    if run.has_private and t.get("feedback"):
        text = "\n\n".join(m.get("content") or "" for m in t["feedback"])
        parts.append(f'<details class="feedback" open><summary>feedback sent to turn {E(str(t["turn"] + 1))}</summary>'
                     f'{_text_block(text)}</details>')
    return f'<article class="{cls}" id="{anchor}-t{E(str(t["turn"]))}">{"".join(parts)}</article>'


def _final(run: Run) -> str:
    o = run.outcome()
    status = o.get("status", "incomplete")
    parts = [f'<h3>Outcome {_badge(status)}</h3>']
    if status == "ok":
        if "value" in o:
            parts.append("<div>value:</div>" + (_text_block(o["value"]) if o["value"] is not None
                                                else _text_block("nil")))
        else:
            v = o.get("value_info") if isinstance(o.get("value_info"), dict) else {}
            parts.append(f'<p class=meta>value: {E(str(v.get("type")))}, {E(str(v.get("bytes")))} bytes (private)</p>')
    elif status in ("failed", "crashed"):
        err = o.get("error") or {}
        parts.append(f'<p class="err-text">{E(str(err.get("kind") or o.get("exception") or ""))}/'
                     f'{E(str(err.get("reason") or ""))}</p>')
        if err.get("details"):
            parts.append(_text_block(err["details"]))
        if o.get("message"):
            parts.append(f'<p>{E(o["message"])}</p>')
    else:
        parts.append("<p class=meta>the run has not finished (or stopped without writing its end)</p>")
    if o.get("prints"):
        parts.append("<div>prints:</div>" + _text_block("\n".join(o["prints"])))
    return f'<div class="final {E(status)}">{"".join(parts)}</div>'


def render_run(run: Run, summary: dict | None = None) -> str:
    s = summary or run.summary()
    anchor = _anchor(run.id)
    turns = run.turns()
    search = " ".join(str(x) for x in (s["id"], s["task"] or "", s["model"] or "",
                                       (s["error"] or {}).get("kind") or "", " ".join(s["error_kinds"]))).lower()
    parts = [f'<section class="run" id="{anchor}" data-run="{E(run.id)}" data-status="{E(s["status"])}" '
             f'data-search="{E(search)}"><h2>{E(run.id)} {_badge(s["status"])}</h2>', _facts(run, s)]
    if not run.has_private:
        parts.append('<p class="note">Private evidence was not recorded for this run: the page shows sizes, '
                     'digests, timings, token counts and error kinds only. Record with <code>--inspect</code> '
                     'to see prompts, programs, results and feedback.</p>')
    parts.append(_preludes(run))
    parts.append(chart_turns(turns, anchor))
    parts.extend(_turn(run, t, anchor) for t in turns)
    parts.append(_final(run))
    parts.append("</section>")
    return "".join(parts)


def render_app(directory: str, runs: list[Run]) -> str:
    """The part of the page that changes with the runs (swapped in by the live page)."""
    summaries = [r.summary() for r in runs]
    counts: dict = {}
    for s in summaries:
        counts[s["status"]] = counts.get(s["status"], 0) + 1
    count_text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no runs yet"
    parts = [f'<section id="overview"><p class="meta"><span id="shown">{len(runs)}</span> of {len(runs)} runs '
             f'shown ({E(count_text)})</p>', chart_runs(summaries), _runs_table(summaries), "</section>"]
    for run, s in zip(reversed(runs), reversed(summaries)):
        parts.append(render_run(run, s))
    return "".join(parts)


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script: 'sha256-<base64 digest>'."""
    import base64
    import hashlib
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"


def render_page(directory: str, runs: list[Run], *, live: bool = False, generated: str | None = None,
                public_only: bool = False) -> str:
    """The whole HTML document; `live` adds the update script (server-sent events from /events).

    Its Content-Security-Policy admits the page's two scripts by their hashes and nothing else.
    `public_only` says (in the header) that private evidence was left out (the live view without its token)."""
    connect = "'self'" if live else "'none'"
    scripts = [SCRIPT, LIVE_SCRIPT] if live else [SCRIPT]
    hashes = " ".join(script_hash(s) for s in scripts)   # the page's own scripts only: no 'unsafe-inline'
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src {hashes}; img-src data:; "
           f"connect-src {connect}; base-uri 'none'; form-action 'none'")
    statuses = ["ok", "failed", "running", "incomplete", "crashed"]
    options = "".join(f'<option value="{s}">{s}</option>' for s in statuses)
    generated = generated or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    live_note = '<span id="live">live</span> · ' if live else ""
    if public_only:
        live_note += "public view (open the address with the token printed at start for private evidence) · "
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ptclisp runs: {E(directory)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>Agent runs</h1><p class="meta">{live_note}{E(directory)} · generated {E(generated)}</p>'
        f'<div class="filters"><label>status <select id="f-status"><option value="">all</option>{options}</select>'
        '</label><input id="f-search" type="search" placeholder="search: run id, task, model, error kind">'
        "</div></header>"
        f'<main id="app">{render_app(directory, runs)}</main>'
        f"<script>{SCRIPT}</script>" + (f"<script>{LIVE_SCRIPT}</script>" if live else "") +
        "</body></html>\n")
