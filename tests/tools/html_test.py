#!/usr/bin/env python3
"""`costdsl plan --html` and `costdsl eval --html` as a browser shows them: each page is
loaded in headless Chromium, its DOM after the inline script ran is parsed, and the
tables drawn are checked against the command's --json (rows, figures, verdicts, coverage
flags), the chart against the frontier, the embedded JSON against --json, a header click
against the sort order; the page must be self-contained, at most 1 MB, drawn in at most
1 s (the page's own <body data-render-ms>), and must survive names holding "</script>".
Exits 77 (skipped) without Chromium ($CHROMIUM, or chromium / chromium-browser / google-chrome on PATH).

usage: html_test.py COSTDSL
"""
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from cli_checks import Checks

costdsl = sys.argv[1]
root = pathlib.Path(__file__).resolve().parents[2]
browser = os.environ.get("CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
if not browser:
    print("html_test: no Chromium (apt-get install chromium): skipped")
    sys.exit(77)

checks = Checks(costdsl)
failures, run, check = checks.failures, checks.run, checks.check
PLAN = ["plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "8", "--isl", "1000", "--osl", "50",
        "--ttft", "500", "--tpot", "30"]
EVAL = ["eval", "--arch", "llama3_8b", "--gpu", "h100", "--prefill", "0:512", "--decode", "8x1024", "--bounds"]
MAX_BYTES, MAX_RENDER_MS = 1 << 20, 1000.0


class Dom(html.parser.HTMLParser):
    """What the checks read from a rendered page: the table, the chart's points, ids, links."""
    VOID = {"meta", "br", "img", "input", "link", "hr", "wbr", "source"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.rows = []    # per <tr data-row>: (row index, {td class's first word: text}, [flag texts in it])
        self.points = []  # per <circle class="point">: its <title> text
        self.by_id = {}   # element id -> its text
        self.links = []   # every src / href value
        self._open = []   # open elements: [tag, id or None, text]
        self._cell = self._flag = None
        self._point = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        self.links += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "body":
            self.body = a
        elif tag == "tr" and "data-row" in a:
            self.rows.append((int(a["data-row"]), {}, []))
        elif tag == "td" and self.rows:
            self._cell = [cls[0] if cls else "", ""]
        elif tag == "circle" and "point" in cls:
            self._point = True
        elif tag == "span" and "flag" in cls and self._cell is not None:
            self._flag = ""
        if tag not in self.VOID:
            self._open.append([tag, a.get("id"), ""])

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1][1][self._cell[0]] = self._cell[1].strip()
            self._cell = None
        elif tag == "span" and self._flag is not None:
            self.rows[-1][2].append(self._flag.strip())
            self._flag = None
        elif tag == "circle":
            self._point = False
        while self._open:  # the DOM dump closes every element it opens
            t, ident, txt = self._open.pop()
            if ident:
                self.by_id[ident] = txt.strip()
            if t == tag:
                break

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data
        if self._flag is not None:
            self._flag += data
        for o in self._open:
            if o[1]:
                o[2] += data
        if self._point and self.lasttag == "title":
            self.points.append(data.strip())
            self._point = False


def render(page, extra_script=""):
    """The DOM Chromium has once the page's scripts ran; extra_script runs after them."""
    if extra_script:
        text = page.read_text(encoding="utf-8")
        at = text.rindex("</body>")
        page = page.with_name(page.stem + "-extra.html")
        page.write_text(text[:at] + "<script>" + extra_script + "</script>" + text[at:], encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([browser, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
                            f"--user-data-dir={profile}", "--virtual-time-budget=2000", "--dump-dom",
                            page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and "</html>" in r.stdout, f"chromium on {page}: exit {r.returncode}\n{r.stderr[-2000:]}")
    dom = Dom()
    dom.feed(r.stdout)
    outside = [link for link in dom.links if re.match(r"\s*(https?:)?//", link)]
    check(not outside, f"{page.name}: the rendered page links outside: {outside}")
    return dom


def embedded(page_text):
    m = re.search(r'<script type="application/json" id="costdsl-data">(.*?)</script>', page_text, re.S)
    check(m is not None, "the page embeds no costdsl-data JSON")
    try:
        return json.loads(m.group(1)) if m else {}
    except json.JSONDecodeError as e:
        check(False, f"the page's costdsl-data is not JSON: {e}")
        return {}


def common(page, what):
    """Size, self-containedness, the render time; returns the page's text."""
    text = page.read_text(encoding="utf-8")
    size = page.stat().st_size
    check(size <= MAX_BYTES, f"{what}: the page is {size} bytes, over {MAX_BYTES}")
    external = re.findall(r'(?:src|href)\s*=\s*["\']?\s*(?:https?:)?//', text) + re.findall(r"url\(\s*['\"]?https?:", text)
    check(not external and "<link" not in text and "<script src" not in text,
          f"{what}: the page loads something from outside: {external}")
    return text


def render_time(dom, what):
    ms = dom.body.get("data-render-ms")
    check(ms is not None, f"{what}: <body data-render-ms> was not set: the inline script did not finish")
    if ms is not None:
        check(0 < float(ms) <= MAX_RENDER_MS, f"{what}: drawn in {ms} ms, over {MAX_RENDER_MS}")
        print(f"{what}: drawn in {ms} ms")


def close(text, value, tol):
    try:
        return abs(float(text) - value) <= tol
    except ValueError:
        return False


with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)

    # plan: the table is every deployment of --json, the chart its frontiers.
    page = d / "plan.html"
    run(*PLAN, "--html", str(page))
    j = json.loads(run(*PLAN, "--json").stdout or "{}")
    cands = j.get("candidates", [])
    check(len(cands) >= 20, f"expected a real search, got {len(cands)} deployments")
    text = common(page, "plan")
    check(embedded(text) == j, "plan: the JSON in the page differs from --json")
    sort_probe = """
      const ids = () => [...document.querySelectorAll('#rows tbody tr')].map(tr => tr.dataset.row).join(',');
      const th = document.querySelector('#rows th[data-key="tokens_per_s_user"]');
      document.body.dataset.initial = ids() + ';' + document.querySelector('#rows th[aria-sort]').dataset.key;
      th.click(); document.body.dataset.afterOne = ids() + ';' + th.getAttribute('aria-sort');
      th.click(); document.body.dataset.afterTwo = ids() + ';' + th.getAttribute('aria-sort');"""
    dom = render(page, sort_probe)
    render_time(dom, "plan")
    check(len(dom.rows) == len(cands), f"plan: {len(dom.rows)} table rows for {len(cands)} deployments")
    check(sorted(i for i, _, _ in dom.rows) == list(range(len(cands))), "plan: the rows are not each deployment once")
    for i, cells, _ in dom.rows:
        c = cands[i] if i < len(cands) else {}
        ok = (close(cells.get("tokens_per_s_gpu", ""), c.get("tokens_per_s_gpu", -1), 0.051) and
              close(cells.get("tokens_per_s_user", ""), c.get("tokens_per_s_user", -1), 0.051) and
              cells.get("status") == c.get("status") and cells.get("mode") == c.get("mode") and
              cells.get("gpus") == str(c.get("gpus")))
        check(ok, f"plan: row {i} shows {cells}, the JSON has {c}")
    ids, _, key = dom.body.get("data-initial", ";").partition(";")
    gpus = [cands[int(i)]["tokens_per_s_gpu"] for i in ids.split(",") if i]
    check(len(gpus) == len(cands) and gpus == sorted(gpus, reverse=True) and key == "tokens_per_s_gpu",
          f"plan: the table does not start sorted by tokens/s/GPU, marked so ({key}): {gpus[:8]}...")
    verdicts = {c["status"] for c in cands}
    check("meets" in verdicts and len(verdicts) > 1, f"plan: expected more than one verdict in this search: {verdicts}")
    for probe, order in (("data-after-one", "descending"), ("data-after-two", "ascending")):
        ids, _, aria = dom.body.get(probe, ";").partition(";")
        users = [cands[int(i)]["tokens_per_s_user"] for i in ids.split(",") if i]
        check(len(users) == len(cands) and users == sorted(users, reverse=order == "descending") and aria == order,
              f"plan: a click on tokens/s/user did not sort {order} ({aria}): {users[:8]}...")
    front = sum(len(v) for v in j.get("pareto", {}).values())
    check(front > 0 and len(dom.points) == front, f"plan: {len(dom.points)} frontier points drawn, the JSON has {front}")
    check(all("tokens/s/GPU" in t for t in dom.points), f"plan: a frontier point lacks its hover text: {dom.points[:3]}")
    best = dom.by_id.get("best", "")
    check("first token" in best and "costdsl eval" in best, f"plan: the chosen deployment's section is empty: {best!r}")
    # Its decode iteration as an icicle, inline: boxes whose hover text names the slots.
    best_icicle = text.split('id="best-icicle"', 1)[-1].split("</div>", 1)[0] if 'id="best-icicle"' in text else ""
    check("<svg" in best_icicle and best_icicle.count("<rect") > 10 and "attn" in best_icicle,
          "plan: the chosen deployment's icicle is missing from its section")
    check(str(len(cands)) in dom.by_id.get("rows-note", ""), f"plan: the note lacks the count: {dom.by_id}")

    # eval: the slots table is --json's slots, the total shown, the icicle inline.
    page = d / "eval.html"
    run(*EVAL, "--html", str(page))
    j = json.loads(run(*EVAL, "--json").stdout or "{}")
    slots = j.get("slots", [])
    text = common(page, "eval")
    check(embedded(text) == j, "eval: the JSON in the page differs from --json")
    check('class="icicle"' in text, "eval: the page lacks the icicle")
    dom = render(page)
    render_time(dom, "eval")
    check(len(dom.rows) == len(slots) > 0, f"eval: {len(dom.rows)} table rows for {len(slots)} slots")
    check(sorted(i for i, _, _ in dom.rows) == list(range(len(slots))), "eval: the rows are not each slot once")
    flagged = 0
    for i, cells, row_flags in dom.rows:
        s = slots[i] if i < len(slots) else {}
        ok = (cells.get("name") == s.get("name") and cells.get("kind") == s.get("kind") and
              close(cells.get("time", ""), s.get("time_ms", -1), 0.00051) and
              cells.get("measured_by", "") == (s.get("measured_by") or "") and row_flags == s.get("coverage"))
        check(ok, f"eval: row {i} shows {cells} {row_flags}, the JSON has {s}")
        flagged += bool(row_flags)
    check(flagged > 0, "eval: expected some slots with coverage flags (ANALYTIC leaves) in this iteration")
    total = j.get("total", {}).get("time_ms", -1)
    check(f"{total:.4f} ms" in dom.by_id.get("total", ""), f"eval: the total {total} ms is not shown: {dom.by_id.get('total')}")

    # A name holding "</script><!--" stays text: the page still parses and renders.
    cfg = d / "a<" / "script><!--x" / "config.json"
    cfg.parent.mkdir(parents=True)
    shutil.copy(root / "data" / "models" / "llama3_8b.json", cfg)
    page = d / "odd.html"
    odd = ["plan", "--model-config", str(cfg), "--gpu", "h100", "--gpus", "2", "--isl", "1000", "--osl", "50",
           "--tpot", "30"]
    run(*odd, "--html", str(page))
    if page.exists():
        text = page.read_text(encoding="utf-8")
        check(embedded(text).get("model") == str(cfg), "odd name: the embedded JSON lost the model's name")
        dom = render(page)
        render_time(dom, "odd name")
        n = len(embedded(text).get("candidates", []))
        check(n > 0 and len(dom.rows) == n, f"odd name: {len(dom.rows)} rows drawn for {n} deployments")

    # An unwritable path: exit 2, the message names the option and the path.
    bad = d / "no-such-dir" / "p.html"
    for args in (PLAN, EVAL):
        r = run(*args, "--html", str(bad), expect=2)
        check("--html" in r.stderr and str(bad) in r.stderr, f"{args[0]} --html to {bad}: unclear error {r.stderr!r}")

checks.finish("html")
