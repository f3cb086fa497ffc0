"""Reports of a benchmark: a terminal table, results.json and a self-contained HTML page.

`terminal_table(results)` - fixed-width text: one row per configuration,
then the paired comparisons.  `html_report(results)` - one HTML file with
inline CSS and inline SVG charts (pass rate per configuration with its 95 %
interval, mean input tokens per task, turns distribution, outcome kinds),
the same tables, and a few lines of script that mark each chart as rendered
once the browser has laid it out (`<body data-charts-rendered="N">`), which
the tests check in headless Chromium.  Imports nothing from ptclisp.
"""
from __future__ import annotations

import html
import math

PALETTE = ["#3b6fb6", "#e08a2c", "#4a9a5b", "#c4484b", "#8064a8", "#8c6d4f", "#d17ab6", "#6f7f8f"]
OUTCOME_COLORS = {"passed": "#4a9a5b", "wrong_answer": "#c4484b", "turn_limit": "#e08a2c",
                  "contract_failure": "#8064a8", "provider_failure": "#6f7f8f", "model_failed": "#8c6d4f",
                  "time_limit": "#d17ab6", "truncated": "#b0a030", "agent_failure": "#555555",
                  "harness_error": "#000000"}
#: Shades for the reasons of one failure kind (turn_limit:protocol_error, turn_limit:intermediate_result, ...).
REASON_SHADES = {"turn_limit": ["#e08a2c", "#f2b866", "#b8661a", "#f5d3a0", "#8f4d10"],
                 "provider_failure": ["#6f7f8f", "#9aa7b3", "#4d5966"]}


def outcome_color(label: str, labels: list) -> str:
    """The color of an outcome label; reasons of one kind get distinct shades of the kind's color."""
    kind = label.split(":")[0]
    shades = REASON_SHADES.get(kind)
    if shades and ":" in label:
        same = [x for x in labels if x.split(":")[0] == kind and ":" in x]
        return shades[same.index(label) % len(shades)]
    return OUTCOME_COLORS.get(kind, "#999999")


# ------------------------------------------------------------------------------------------------
# terminal
# ------------------------------------------------------------------------------------------------
def _num(x, digits=1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.{digits}f}"
    return f"{int(x):,}"


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _table(headers: list, rows: list) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    def fmt(cells):
        last = len(cells) - 1
        return "  ".join(str(c).ljust(w) if i in (0, last) else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    line = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(headers), line, *(fmt(r) for r in rows)])


def _failures_text(failures: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in failures.items()) or "-"


def terminal_table(results: dict) -> str:
    rows = []
    for c in results["configs"]:
        lo, hi = c["pass_rate_ci95"]
        cost = c["cost"]["total"]
        rows.append([c["config"], c["runs"], f"{c['passed']} ({_pct(c['pass_rate'])})",
                     f"{100 * lo:.0f}-{100 * hi:.0f}%", _num(c["turns"]["mean"], 2),
                     _num(c["tokens"]["mean_per_run"]["input"], 0), _num(c["tokens"]["mean_per_run"]["output"], 0),
                     _num(c["tokens"]["mean_per_run"]["cache_read"], 0),
                     "-" if cost is None else f"${cost:.4f}", _num(c["wall_s"]["mean"], 2) + "s",
                     _failures_text(c["failures"])])
    out = [_table(["config (model/variant/mode)", "runs", "passed", "95% CI", "turns", "in tok/run", "out tok/run",
                   "cached/run", "cost", "wall/run", "failures"], rows)]
    if results.get("comparisons"):
        crow = []
        for cmp in results["comparisons"]:
            lo, hi = cmp["diff_ci95"]
            ta, tb = cmp["mean_tokens_a"]["input"], cmp["mean_tokens_b"]["input"]
            ratio = f"x{tb / ta:.2f}" if ta else "-"
            crow.append([f"{cmp['b']} vs {cmp['a']}", cmp["pairs"], cmp["only_a"], cmp["only_b"],
                         f"{100 * cmp['diff']:+.1f} pts", f"[{100 * lo:+.1f}, {100 * hi:+.1f}]",
                         f"{cmp['mcnemar_p']:.3g}", ratio])
        out.append("")
        out.append(_table(["paired comparison (B vs A)", "pairs", "only A", "only B", "diff", "95% CI (bootstrap)",
                           "McNemar p", "input tokens B/A"], crow))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# SVG charts
# ------------------------------------------------------------------------------------------------
E = html.escape


def _svg(width: int, height: int, body: list, title: str, chart_id: str) -> str:
    return (f'<svg class="chart" id="{chart_id}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{E(title)}">'
            f'<title>{E(title)}</title>' + "".join(body) + "</svg>")


def _text(x, y, s, anchor="start", size=11, cls="lbl", extra="") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" class="{cls}"{extra}>{E(str(s))}</text>'


def chart_pass_rates(configs: list) -> str:
    label_w, plot_w, row_h, top = 260, 420, 26, 28
    h = top + row_h * len(configs) + 34
    body = [_text(label_w, 16, "pass rate (bars) with 95% Wilson interval (whiskers)", size=12, cls="cap")]
    for pct in (0, 25, 50, 75, 100):
        x = label_w + plot_w * pct / 100
        body.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{h - 28}" class="grid"/>')
        body.append(_text(x, h - 14, f"{pct}%", anchor="middle", size=10))
    for i, c in enumerate(configs):
        y = top + i * row_h
        color = PALETTE[i % len(PALETTE)]
        w = plot_w * c["pass_rate"]
        lo, hi = c["pass_rate_ci95"]
        body.append(_text(label_w - 8, y + row_h / 2 + 4, c["config"], anchor="end"))
        body.append(f'<rect class="mark" x="{label_w}" y="{y + 4}" width="{max(w, 0.5):.1f}" height="{row_h - 8}" '
                    f'fill="{color}"><title>{E(c["config"])}: {100 * c["pass_rate"]:.1f}% '
                    f'({c["passed"]}/{c["runs"]})</title></rect>')
        x1, x2, ym = label_w + plot_w * lo, label_w + plot_w * hi, y + row_h / 2
        body.append(f'<line class="whisker" x1="{x1:.1f}" y1="{ym}" x2="{x2:.1f}" y2="{ym}"/>'
                    f'<line class="whisker" x1="{x1:.1f}" y1="{ym - 5}" x2="{x1:.1f}" y2="{ym + 5}"/>'
                    f'<line class="whisker" x1="{x2:.1f}" y1="{ym - 5}" x2="{x2:.1f}" y2="{ym + 5}"/>')
        body.append(_text(label_w + plot_w + 8, ym + 4, f"{100 * c['pass_rate']:.1f}%"))
    return _svg(label_w + plot_w + 60, h, body, "Pass rate per configuration", "chart-pass-rate")


def chart_tokens_per_task(tasks: list, config_names: list) -> str:
    values = [t["by_config"].get(c, {}).get("mean_tokens_input") for t in tasks for c in config_names]
    positive = [v for v in values if v]
    vmax = max(positive, default=1)
    vmin = min(positive, default=1)
    log_scale = vmax / max(vmin, 1) > 50
    group_w = max(10, 4 * len(config_names) + 6)
    bar_w = (group_w - 4) / max(1, len(config_names))
    left, top, plot_h = 64, 30, 220
    width = left + group_w * len(tasks) + 20
    height = top + plot_h + 110

    def scale(v):
        if not v:
            return 0.0
        if log_scale:
            lo = math.log10(max(1, vmin) / 2)
            return plot_h * (math.log10(v) - lo) / (math.log10(vmax) - lo or 1)
        return plot_h * v / vmax
    body = [_text(left, 16, "mean input tokens per run, by task" + (" (log scale)" if log_scale else ""),
                  size=12, cls="cap")]
    ticks = ([10 ** e for e in range(0, 9) if vmin / 2 <= 10 ** e <= vmax] if log_scale
             else [vmax * f for f in (0, 0.25, 0.5, 0.75, 1)])
    for t in ticks:
        y = top + plot_h - scale(t)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" class="grid"/>')
        body.append(_text(left - 4, y + 4, _num(float(t), 0), anchor="end", size=10))
    for i, t in enumerate(tasks):
        x0 = left + i * group_w + 2
        for j, c in enumerate(config_names):
            v = t["by_config"].get(c, {}).get("mean_tokens_input")
            if v is None:
                continue
            bh = scale(v)
            body.append(f'<rect class="mark" x="{x0 + j * bar_w:.1f}" y="{top + plot_h - bh:.1f}" '
                        f'width="{max(bar_w - 0.5, 0.5):.1f}" height="{max(bh, 0.5):.1f}" fill="{PALETTE[j % len(PALETTE)]}">'
                        f'<title>{E(t["task"])} - {E(c)}: {v:,.0f} input tokens</title></rect>')
        cx = x0 + group_w / 2
        body.append(_text(cx, top + plot_h + 8, t["task"], anchor="end", size=9,
                          extra=f' transform="rotate(-60 {cx:.1f} {top + plot_h + 8})"'))
    return _svg(width, height, body, "Input tokens per task", "chart-tokens")


def chart_turns(configs: list) -> str:
    max_t = max((int(t) for c in configs for t in c["turns"]["distribution"]), default=1)
    max_n = max((n for c in configs for n in c["turns"]["distribution"].values()), default=1)
    left, top, plot_h = 44, 30, 180
    group_w = max(24, 8 * len(configs) + 8)
    bar_w = (group_w - 8) / max(1, len(configs))
    width = left + group_w * max_t + 20
    height = top + plot_h + 40
    body = [_text(left, 16, "runs by number of turns", size=12, cls="cap")]
    for f in (0, 0.5, 1):
        y = top + plot_h - plot_h * f
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" class="grid"/>')
        body.append(_text(left - 4, y + 4, _num(max_n * f, 1), anchor="end", size=10))
    for t in range(1, max_t + 1):
        x0 = left + (t - 1) * group_w + 4
        body.append(_text(x0 + (group_w - 8) / 2, top + plot_h + 16, t, anchor="middle", size=10))
        for j, c in enumerate(configs):
            n = c["turns"]["distribution"].get(str(t), 0)
            if not n:
                continue
            bh = plot_h * n / max_n
            body.append(f'<rect class="mark" x="{x0 + j * bar_w:.1f}" y="{top + plot_h - bh:.1f}" '
                        f'width="{max(bar_w - 1, 0.5):.1f}" height="{bh:.1f}" fill="{PALETTE[j % len(PALETTE)]}">'
                        f'<title>{E(c["config"])}: {n} runs took {t} turn(s)</title></rect>')
    body.append(_text(left + (width - left) / 2, height - 4, "turns", anchor="middle", size=10))
    return _svg(width, height, body, "Turns distribution", "chart-turns")


def chart_outcomes(configs: list) -> str:
    label_w, plot_w, row_h, top = 260, 420, 24, 28
    kinds = []
    for c in configs:
        for k in ["passed", *c["failures"]]:
            if k not in kinds:
                kinds.append(k)
    legend_rows = math.ceil(len(kinds) / 3)
    h = top + row_h * len(configs) + 18 * legend_rows + 16
    body = [_text(label_w, 16, "outcome of each run", size=12, cls="cap")]
    for i, c in enumerate(configs):
        y = top + i * row_h
        body.append(_text(label_w - 8, y + row_h / 2 + 4, c["config"], anchor="end"))
        x = label_w
        counts = {"passed": c["passed"], **c["failures"]}
        for k in kinds:
            n = counts.get(k, 0)
            if not n:
                continue
            w = plot_w * n / c["runs"]
            body.append(f'<rect class="mark" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
                        f'fill="{outcome_color(k, kinds)}" stroke="#fff" stroke-width="0.5">'
                        f'<title>{E(c["config"])} - {E(k)}: {n}</title></rect>')
            x += w
    ly = top + row_h * len(configs) + 12
    for i, k in enumerate(kinds):
        lx = label_w + (i % 3) * 170
        yy = ly + (i // 3) * 18
        body.append(f'<rect x="{lx}" y="{yy - 9}" width="10" height="10" fill="{outcome_color(k, kinds)}"/>')
        body.append(_text(lx + 14, yy, k, size=10))
    return _svg(label_w + plot_w + 30, h, body, "Outcome kinds per configuration", "chart-outcomes")


# ------------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------------
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child,td:last-child{text-align:left}
.chart{display:block;margin:10px 0;overflow:visible}.grid{stroke:#e4e4e4;stroke-width:1}
.whisker{stroke:#222;stroke-width:1.4}.cap{font-weight:600}.lbl{fill:#333}
.pass{background:#e3f3e6}.partial{background:#fdf2dc}.fail{background:#f8e0e0}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
.meta{color:#666;font-size:12px}
"""

CHECK_SCRIPT = """
(function(){
  var n = 0;
  document.querySelectorAll('svg.chart').forEach(function(svg){
    var marks = svg.querySelectorAll('.mark'), drawn = 0;
    marks.forEach(function(m){ var b = m.getBBox(); if (b.width > 0 && b.height > 0) drawn++; });
    svg.setAttribute('data-marks-drawn', String(drawn));
    if (drawn > 0 && svg.getBoundingClientRect().width > 0) { svg.setAttribute('data-rendered', 'yes'); n++; }
  });
  document.body.setAttribute('data-charts-rendered', String(n));
})();
"""


def _text_table(headers: list, rows: list) -> str:
    """An HTML table of escaped text cells."""
    head = "<tr>" + "".join(f"<th>{E(h)}</th>" for h in headers) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{E(str(x))}</td>" for x in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


def _config_table(configs: list) -> str:
    rows = []
    for c in configs:
        lo, hi = c["pass_rate_ci95"]
        levels = " ".join(f"L{k}: {v['passed']}/{v['runs']}" for k, v in c["by_level"].items())
        cost = c["cost"]["total"]
        rows.append([
            c["config"], c["runs"], c["passed"], _pct(c["pass_rate"]), f"{_pct(lo)} - {_pct(hi)}", levels,
            _num(c["turns"]["mean"], 2), _num(c["tokens"]["mean_per_run"]["input"], 0),
            _num(c["tokens"]["mean_per_run"]["output"], 0), _num(c["tokens"]["mean_per_run"]["cache_read"], 0),
            "-" if cost is None else f"${cost:.4f}", _num(c["wall_s"]["mean"], 3) + " s",
            _failures_text(c["failures"])])
    return _text_table(["configuration", "runs", "passed", "pass rate", "95% CI", "by level", "mean turns",
                        "input tok/run", "output tok/run", "cached/run", "cost total", "wall/run", "failures"], rows)


def _comparison_table(comparisons: list) -> str:
    if not comparisons:
        return "<p class='meta'>No paired comparison: run at least two variants, modes or models.</p>"
    rows = []
    for c in comparisons:
        lo, hi = c["diff_ci95"]
        rows.append([
            f"{c['b']} vs {c['a']}", c["what"], c["pairs"], c["both_pass"], c["only_a"], c["only_b"], c["neither"],
            _pct(c["pass_rate_a"]), _pct(c["pass_rate_b"]), f"{100 * c['diff']:+.1f} pts",
            f"[{100 * lo:+.1f}, {100 * hi:+.1f}]", f"{c['mcnemar_p']:.3g}", _num(c["mean_tokens_a"]["input"], 0),
            _num(c["mean_tokens_b"]["input"], 0), _num(c["mean_turns_a"], 2), _num(c["mean_turns_b"], 2)])
    return _text_table(["B vs A", "kind", "pairs", "both pass", "only A", "only B", "neither", "pass A", "pass B",
                        "diff (B-A)", "95% CI (bootstrap)", "McNemar exact p", "input tok/run A", "input tok/run B",
                        "turns A", "turns B"], rows)


def _trace_links(s: dict, trace_view: str | None) -> str:
    """Links from a cell to the failed runs' timelines in the trace view."""
    if not trace_view:
        return ""
    failed = [t["id"] for t in s.get("trace_runs", ()) if not t["passed"]]
    return "".join(f' <a href="{E(trace_view)}#run-{E(rid)}" title="open this run\'s trace">trace</a>'
                   for rid in failed)


def _task_table(tasks: list, config_names: list, trace_view: str | None = None) -> str:
    head = "<tr><th>task</th><th>level</th>" + "".join(f"<th>{E(c)}</th>" for c in config_names) + "</tr>"
    rows = []
    for t in tasks:
        cells = []
        for c in config_names:
            s = t["by_config"].get(c)
            if not s:
                cells.append("<td>-</td>")
                continue
            cls = "pass" if s["passed"] == s["runs"] else "partial" if s["passed"] else "fail"
            kinds = ", ".join(sorted(set(s["outcomes"])))
            cells.append(f'<td class="{cls}" title="{E(kinds)}">{s["passed"]}/{s["runs"]}'
                         f'{"" if cls == "pass" else " " + E(kinds)}{_trace_links(s, trace_view)}</td>')
        rows.append(f"<tr><td>{E(t['task'])}</td><td>{t['level']}</td>{''.join(cells)}</tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def html_report(results: dict, title: str = "ptclisp agent benchmark", trace_view: str | None = None) -> str:
    """The report page; `trace_view` (a relative URL of the trace view) links each failed run to its trace."""
    configs = results["configs"]
    names = [c["config"] for c in configs]
    legend = "".join(f'<span style="background:{PALETTE[i % len(PALETTE)]}"></span>{E(n)}' for i, n in enumerate(names))
    suite = results.get("suite") or {}
    meta = " | ".join(E(f"{k}: {v}") for k, v in suite.items() if isinstance(v, (str, int, float)))
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{E(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{E(title)}</h1><p class='meta'>{meta}</p>",
        "<h2>Pass rate</h2>", chart_pass_rates(configs),
        "<h2>Summary</h2>", _config_table(configs),
        "<h2>Paired comparisons</h2>", _comparison_table(results.get("comparisons", [])),
        "<h2>Tokens per task</h2>", f"<p class='legend'>{legend}</p>",
        chart_tokens_per_task(results["tasks"], names),
        "<h2>Turns</h2>", f"<p class='legend'>{legend}</p>", chart_turns(configs),
        "<h2>Outcomes</h2>", chart_outcomes(configs),
        "<h2>Per task</h2>", _task_table(results["tasks"], names, trace_view),
        f"<script>{CHECK_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"
