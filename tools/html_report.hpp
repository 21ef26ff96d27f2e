#pragma once
// The --html reports of `costdsl plan` and `costdsl eval`: one self-contained page each
// (styles, script and pictures inline; nothing fetched), to open in a browser or attach.
//
// The page embeds the command's --json object in <script type="application/json"
// id="costdsl-data"> and its tables are drawn from that object by the inline script, so
// the page and --json cannot disagree. The pictures are the ones --svg writes, inline.
// Once drawn, <body data-render-ms> holds performance.now(): the time from navigation to
// the page being drawn (tests/tools/html_test.py reads it).
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "svg_writer.hpp"

namespace costdsl::cli {

// JSON for a <script> element: every '<' written as \u003c (still the same JSON), so no
// string in the data can end the element ("</script>") or open a comment ("<!--") that
// would change how the HTML parser reads what follows.
inline std::string script_json(const nlohmann::json& j) {
  // Names from config files may hold bytes that are not UTF-8: replaced, not thrown.
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (const char ch : text) {
    if (ch == '<') {
      out += "\\u003c";
    } else {
      out += ch;
    }
  }
  return out;
}

// An SVG document (svg_writer.hpp's) as an element of an HTML page: the XML declaration
// is not allowed there.
inline std::string inline_svg(std::string_view svg) {
  if (svg.starts_with("<?xml")) {
    const std::size_t end = svg.find("?>");
    if (end != std::string_view::npos) svg.remove_prefix(end + 2);
  }
  while (!svg.empty() && (svg.front() == '\n' || svg.front() == ' ')) svg.remove_prefix(1);
  return std::string(svg);
}

namespace detail {

inline constexpr std::string_view html_style = R"CSS(
body{font:14px/1.4 Helvetica,Arial,sans-serif;color:#111;margin:20px 28px;max-width:1500px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:26px 0 6px}
pre.header{background:#f6f6f6;padding:8px 10px;font-size:12px;white-space:pre-wrap;margin:8px 0}
.note{color:#555;font-size:12px;margin:4px 0}
svg{max-width:100%;height:auto;display:block}
table.sortable{border-collapse:collapse;font-size:12px}
table.sortable th{position:sticky;top:0;background:#e9eef5;cursor:pointer;user-select:none;padding:4px 6px;
 text-align:left;border-bottom:1px solid #999;white-space:nowrap}
table.sortable th[aria-sort=ascending]::after{content:" \25B2"}table.sortable th[aria-sort=descending]::after{content:" \25BC"}
table.sortable td{padding:2px 6px;border-bottom:1px solid #eee;white-space:nowrap}
table.sortable tr:hover td{background:#fff8dc}
.num{text-align:right;font-variant-numeric:tabular-nums}
.v-meets{color:#186a1e;font-weight:bold}.v-misses{color:#a01818}.v-stopped_early{color:#8a5a00}
.flag{display:inline-block;font-size:10px;padding:0 4px;margin-right:3px;border-radius:3px;background:#fde2a8;color:#5a3b00}
.flag-NO_COVERAGE{background:#f7b4b4;color:#600}.flag-ANALYTIC{background:#d8e4f8;color:#123a70}
.mark{font-size:10px;color:#1f4f99;margin-right:4px}
.bar{display:flex;height:26px;max-width:900px;border:1px solid #999;margin:6px 0}
.bar div{overflow:hidden;white-space:nowrap;font-size:11px;line-height:26px;padding-left:4px;color:#fff}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:13px;margin:6px 0}
dl.facts dt{color:#555}dl.facts dd{margin:0}
code{background:#f2f2f2;padding:1px 3px}
)CSS";

// Shared by both pages: the data, escaping, number formats, the sortable table; then the
// page's own renderer, picked by <body data-kind>.
inline constexpr std::string_view html_script = R"JS(
"use strict";
const data = JSON.parse(document.getElementById("costdsl-data").textContent);
const ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
const esc = s => String(s).replace(/[&<>"']/g, c => ESC[c]);
const fixed = (v, d) => (typeof v === "number" && isFinite(v)) ? v.toFixed(d) : "–";
const flags = list => (list || []).map(f => `<span class="flag flag-${esc(f)}">${esc(f)}</span>`).join("");
const $ = id => document.getElementById(id);

// columns: {key, head, title?, num?, get(row, i) -> sort key, show(row, i) -> cell HTML}.
// A click on a header sorts by it (numbers largest first, text A to Z; again: reversed);
// ties keep the data's order. Cells are written as one string: fast for thousands of rows.
function sortable(table, columns, rows, initial) {
  const head = table.createTHead(), body = table.tBodies[0] || table.createTBody();
  let order = rows.map((_, i) => i), by = -1, dir = 1;
  head.innerHTML = "<tr>" + columns.map((c, i) =>
    `<th data-key="${esc(c.key)}" data-col="${i}"${c.num ? ' class="num"' : ""}` +
    `${c.title ? ` title="${esc(c.title)}"` : ""}>${esc(c.head)}</th>`).join("") + "</tr>";
  const draw = () => {
    body.innerHTML = order.map(r => `<tr data-row="${r}">` + columns.map(c =>
      `<td class="${esc(c.key)}${c.num ? " num" : ""}">${c.show(rows[r], r)}</td>`).join("") + "</tr>").join("");
  };
  const sort = i => {
    const c = columns[i], get = c.get;
    dir = by === i ? -dir : (c.num ? -1 : 1);
    by = i;
    const keys = rows.map((r, k) => { const v = get(r, k); return v === null || v === undefined ? -Infinity : v; });
    order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0) * dir || a - b);
    for (const th of head.querySelectorAll("th"))
      if (+th.dataset.col === i) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    draw();
  };
  head.addEventListener("click", e => { const th = e.target.closest("th"); if (th) sort(+th.dataset.col); });
  if (initial !== undefined) sort(columns.findIndex(c => c.key === initial)); else draw();
}

function planPage(d) {
  const rows = d.candidates, q = "p" + d.sla.percentile;
  const top = new Set(), front = new Set();
  for (const m in d.top) for (const i of d.top[m]) top.add(i);
  for (const m in d.pareto) for (const i of d.pareto[m]) front.add(i);
  const label = r => r.mode === "aggregated" ? `agg ${r.parallel} ×${r.replicas}`
    : `disagg ${r.prefill.workers}×${r.prefill.parallel} + ${r.workers}×${r.parallel} ×${r.replicas}`;
  const n = (key, head, digits, get, title) => ({key, head, title, num: true, get, show: r => fixed(get(r), digits)});
  const columns = [
    {key: "index", head: "#", num: true, title: "the deployment's index in the JSON's candidates", get: (r, i) => i,
     show: (r, i) => String(i)},
    {key: "mode", head: "mode", get: r => r.mode, show: r => esc(r.mode)},
    {key: "deployment", head: "deployment", title: "workers × parallelism, × replicas", get: label,
     show: r => esc(label(r))},
    n("gpus", "GPUs", 0, r => r.gpus),
    n("batch", "batch", 0, r => r.batch, "batch cap per worker (per DP group)"),
    n("token_budget", "budget", 0, r => r.token_budget, "new tokens per iteration"),
    n("concurrency", "concurrency", 0, r => r.concurrency),
    n("tokens_per_s_gpu", "tokens/s/GPU", 1, r => r.tokens_per_s_gpu),
    n("tokens_per_s_user", "tokens/s/user", 1, r => r.tokens_per_s_user),
    n("ttft", `TTFT ${q} ms`, 1, r => r.ttft_ms[q]),
    n("tpot", `TPOT ${q} ms`, 2, r => r.tpot_ms[q]),
    n("latency", `latency ${q} s`, 2, r => r.latency_s[q]),
    n("sla_ratio", "SLA ratio", 2, r => r.sla_ratio, "the largest percentile / limit: ≤ 1 meets the SLA"),
    {key: "status", head: "verdict", get: r => r.status, show: r => `<span class="v-${esc(r.status)}">${esc(r.status)}</span>`},
    {key: "marks", head: "", title: "top: among the best listed; frontier: on its mode's Pareto frontier",
     get: (r, i) => (top.has(i) ? 2 : 0) + (front.has(i) ? 1 : 0),
     show: (r, i) => (top.has(i) ? '<span class="mark">top</span>' : "") + (front.has(i) ? '<span class="mark">frontier</span>' : "")},
  ];
  sortable($("rows"), columns, rows, "tokens_per_s_gpu");
  const meets = rows.filter(r => r.status === "meets").length;
  $("rows-note").textContent = `${rows.length} deployments simulated, ${meets} meet the SLA. Click a header to sort.`;

  // The chosen deployment: the first of each mode's top list, most tokens/s/GPU.
  let best = -1;
  for (const m in d.top)
    if (d.top[m].length && (best < 0 || rows[d.top[m][0]].tokens_per_s_gpu > rows[best].tokens_per_s_gpu)) best = d.top[m][0];
  const box = $("best");
  if (best < 0) { box.innerHTML = '<p class="note">No deployment meets the SLA.</p>'; return; }
  const r = rows[best], ttft = r.ttft_ms.mean, stream = Math.max(0, r.latency_s.mean * 1e3 - ttft);
  const whole = ttft + stream || 1, pct = v => (100 * v / whole).toFixed(1);
  const first = `first token ${fixed(ttft, 1)} ms`, rest = `streaming ${d.osl - 1} tokens ${fixed(stream, 1)} ms`;
  const kv = d.isl + Math.floor(d.osl / 2);
  const source = /[\/.]/.test(d.model) ? `--model-config ${d.model}` : `--arch ${d.model}`;
  const eval_cmd = `costdsl eval ${source} --gpu ${d.gpu} --tp ${r.tp}` + (r.ep > 1 ? ` --ep ${r.ep}` : "") +
    (r.hp > 1 ? ` --hp ${r.hp}` : "") + ` --decode ${r.batch}x${kv} --html eval.html`;
  box.innerHTML =
    `<p><b>#${best}: ${esc(label(r))}</b>, batch ${r.batch}, budget ${r.token_budget} ` +
    `<span class="v-${esc(r.status)}">${esc(r.status)}</span></p>` +
    `<div class="bar" title="a request's mean time: to its first token, then streaming the rest">` +
    `<div style="width:${pct(ttft)}%;background:#1f77b4" title="${first}">${first}</div>` +
    `<div style="width:${pct(stream)}%;background:#2ca02c" title="${rest}">${rest}</div></div>` +
    `<dl class="facts">` +
    `<dt>tokens/s/GPU</dt><dd>${fixed(r.tokens_per_s_gpu, 1)}</dd><dt>tokens/s/user</dt><dd>${fixed(r.tokens_per_s_user, 1)}</dd>` +
    `<dt>TTFT ms p50 / p90 / p99</dt><dd>${fixed(r.ttft_ms.p50, 1)} / ${fixed(r.ttft_ms.p90, 1)} / ${fixed(r.ttft_ms.p99, 1)}</dd>` +
    `<dt>TPOT ms p50 / p90 / p99</dt><dd>${fixed(r.tpot_ms.p50, 2)} / ${fixed(r.tpot_ms.p90, 2)} / ${fixed(r.tpot_ms.p99, 2)}</dd>` +
    `<dt>latency s p50 / p90 / p99</dt><dd>${fixed(r.latency_s.p50, 2)} / ${fixed(r.latency_s.p90, 2)} / ${fixed(r.latency_s.p99, 2)}</dd>` +
    (r.mode === "disaggregated" ? `<dt>KV hand-off per request</dt><dd>${fixed(r.transfer_ms, 3)} ms</dd>` : "") +
    `<dt>requests measured / finished</dt><dd>${r.measured} / ${r.finished}, ${r.iterations} iterations</dd></dl>` +
    `<p class="note">Below: one decode iteration of its ${r.mode === "disaggregated" ? "decode" : ""} worker at ` +
    `batch ${r.batch}, KV ${kv} (hover a box for its time, share and coverage). The same as a page of its own: ` +
    `<code>${esc(eval_cmd)}</code></p>`;
}

function evalPage(d) {
  const slots = d.slots, nodes = d.manifest.nodes, total = d.total.time_ms;
  // A slot's copies: the product of the Scale factors above its leaf.
  const copies = new Array(slots.length).fill(0);
  const walk = (i, c) => {
    const n = nodes[i];
    if (n.kind === "leaf") { copies[n.slot] += c; return; }
    const k = n.kind === "scale" ? c * n.n : c;
    for (let j = n.children[0]; j < n.children[0] + n.children[1]; ++j) walk(j, k);
  };
  if (nodes.length) walk(0, 1);
  const family = i => d.manifest.slots[i] ? d.manifest.slots[i].family : "";
  const contribution = (s, i) => s.time_ms * copies[i];
  const columns = [
    {key: "index", head: "#", num: true, get: (s, i) => i, show: (s, i) => String(i)},
    {key: "name", head: "slot", get: s => s.name, show: s => esc(s.name)},
    {key: "kind", head: "kind", get: s => s.kind, show: s => esc(s.kind)},
    {key: "family", head: "family", get: (s, i) => family(i), show: (s, i) => esc(family(i))},
    {key: "time", head: "time ms (one copy)", num: true, get: s => s.time_ms, show: s => fixed(s.time_ms, 4)},
    {key: "copies", head: "copies", num: true, get: (s, i) => copies[i], show: (s, i) => String(copies[i])},
    {key: "contribution", head: "time ms × copies", num: true, get: contribution, show: (s, i) => fixed(contribution(s, i), 4)},
    {key: "share", head: "share", num: true, title: "time × copies / the iteration's total (lanes of a Max or a Parallel run at once, so their shares overlap)",
     get: contribution, show: (s, i) => total > 0 ? (100 * contribution(s, i) / total).toFixed(2) + "%" : "–"},
    {key: "coverage", head: "coverage", get: s => (s.coverage || []).join(" "), show: s => flags(s.coverage)},
    {key: "backend", head: "backend", get: s => s.backend || "", show: s => esc(s.backend || "")},
    {key: "measured_by", head: "measured by", get: s => s.measured_by || "", show: s => esc(s.measured_by || "")},
  ];
  if (d.bounds)
    columns.splice(7, 0, {key: "lower_bound", head: "bound ms", num: true, title: "the leaf at the hardware roof (one copy)",
                          get: s => s.lower_bound_ms, show: s => fixed(s.lower_bound_ms, 4)});
  sortable($("rows"), columns, slots, "contribution");
  $("total").innerHTML = `total <b>${fixed(total, 4)} ms</b> ${flags(d.total.coverage)} · ` +
    `${slots.length} slots · ${(d.total.flops / 1e12).toFixed(3)} TFLOP · ${(d.total.bytes / 1e9).toFixed(3)} GB · ` +
    `${fixed(d.total.energy_j, 3)} J`;
}

if (document.body.dataset.kind === "plan") planPage(data); else evalPage(data);
document.body.dataset.renderMs = performance.now().toFixed(1);
)JS";

inline std::string html_page(std::string_view kind, std::string_view title, std::string_view body,
                             const nlohmann::json& data) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
      "<style>{}</style></head>\n<body data-kind=\"{}\">\n{}\n"
      "<script type=\"application/json\" id=\"costdsl-data\">{}</script>\n<script>{}</script>\n</body></html>\n",
      xml_escape(title), html_style, kind, body, script_json(data), html_script);
}

}  // namespace detail

// `costdsl plan --html`: data is plan_json(...), header the text plan prints above its
// tables, chart pareto_svg(...) (its frontier points carry their deployment as <title>),
// icicle the chosen deployment's decode iteration (icicle_svg; empty: none meets the SLA).
inline std::string plan_html(std::string_view title, std::string_view header, std::string_view chart,
                             const nlohmann::json& data, std::string_view icicle = {}) {
  const std::string body = fmt::format(
      "<h1>{}</h1>\n<pre class=\"header\">{}</pre>\n"
      "<h2>Pareto frontier</h2>\n<p class=\"note\">Hover a point for its deployment.</p>\n"
      "<div id=\"chart\">{}</div>\n"
      "<h2>The chosen deployment: where a request's time goes</h2>\n<div id=\"best\"></div>\n"
      "<div id=\"best-icicle\">{}</div>\n"
      "<h2>Every simulated deployment</h2>\n<p class=\"note\" id=\"rows-note\"></p>\n"
      "<table class=\"sortable\" id=\"rows\"><tbody></tbody></table>",
      xml_escape(title), xml_escape(header), inline_svg(chart), icicle.empty() ? "" : inline_svg(icicle));
  return detail::html_page("plan", title, body, data);
}

// `costdsl eval --html`: data is the --json object {total, slots, manifest[, bounds]},
// icicle icicle_svg(...).
inline std::string eval_html(std::string_view title, std::string_view subtitle, std::string_view icicle,
                             const nlohmann::json& data) {
  const std::string body = fmt::format(
      "<h1>{}</h1>\n<p>{}</p>\n<p id=\"total\"></p>\n"
      "<h2>Where the iteration's time goes</h2>\n<p class=\"note\">Hover a box for its time, share and coverage.</p>\n"
      "<div id=\"icicle\">{}</div>\n"
      "<h2>Slots</h2>\n<p class=\"note\">One row per leaf of the tree. Click a header to sort.</p>\n"
      "<table class=\"sortable\" id=\"rows\"><tbody></tbody></table>",
      xml_escape(title), xml_escape(subtitle), inline_svg(icicle));
  return detail::html_page("eval", title, body, data);
}

}  // namespace costdsl::cli
