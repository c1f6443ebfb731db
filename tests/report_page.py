#!/usr/bin/python3
# report_page.py: gt-report's page in headless Chromium, driven through the
# DevTools protocol over a pipe (--remote-debugging-pipe: JSON messages
# ending in NUL on file descriptors 3 and 4; no websocket library needed).
#
#   report_page.py URL OUTDIR
#
# For each width, 1280 and 400 CSS pixels (the second as a phone: mobile
# emulation, touch), it loads the page, measures element boxes with a
# script evaluated in the page, and takes a screenshot of the whole page
# (OUTDIR/page-WIDTH.png). At 400 it then steps the game viewer with real
# input events (clicks on its buttons, arrow keys on the board) and counts
# the stones it draws after each step. Prints one JSON object:
#   {"1280": LAYOUT, "400": LAYOUT, "viewer": {...}, "shots": [...]}
# LAYOUT: {"vw": the viewport's width (less a scroll bar), "iw": the window's, "releases": {"right", "in_scroll",
# "box_left", "box_right", "overflows", "hint"}, "plots": [{"src",
# "left", "right", "scale"}], "overflow_x": the document's scroll width
# beyond the viewport}. viewer: {"sgf": the SGF file of the game shown,
# "steps": [[what, stones drawn, the move counter's text], ...]}.
# The caller checks them (tests/cmd/report-page.t); the stone counts are
# checked against this file's own replay of the SGF (sgf_counts), which
# shares nothing with the page's script.
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LAYOUT = r"""
(() => {
  const vw = document.documentElement.clientWidth;
  const out = { vw: vw, iw: window.innerWidth, overflow_x: document.documentElement.scrollWidth - vw, plots: [] };
  const t = document.querySelector('#networks table');
  if (t) {
    const r = t.getBoundingClientRect();
    let s = t.parentElement, box = null;
    for (; s && s !== document.body; s = s.parentElement) {
      const ox = getComputedStyle(s).overflowX;
      if (ox === 'auto' || ox === 'scroll') { box = s; break; }
    }
    const hint = document.querySelector('#networks .hint');
    out.releases = { left: r.left, right: r.right, in_scroll: !!box,
      box_left: box ? box.getBoundingClientRect().left : null,
      box_right: box ? box.getBoundingClientRect().right : null,
      overflows: box ? box.scrollWidth > box.clientWidth : r.right > vw,
      hint: !!(hint && hint.offsetParent !== null && hint.getBoundingClientRect().height > 0) };
  }
  for (const img of document.querySelectorAll('#networks figure img, #data figure img')) {
    const r = img.getBoundingClientRect();
    out.plots.push({ src: img.currentSrc.split('/').pop(), left: r.left, right: r.right,
                     scale: img.naturalWidth ? r.width / img.naturalWidth : 0 });
  }
  return JSON.stringify(out);
})()
"""

STATE = r"""
(() => {
  const v = document.getElementById('viewer');
  const c = v && v.querySelector('.vcount');
  return JSON.stringify({ stones: v ? v.querySelectorAll('svg .stone').length : -1,
                          count: c ? c.textContent : null });
})()
"""


class Chrome:
    def __init__(self, tmp):
        to_chrome = os.pipe()
        from_chrome = os.pipe()
        cr, cw = to_chrome[0], from_chrome[1]

        def fds():
            # by way of fresh descriptors (above 6): either end may be 3 or
            # 4 already, and dup2 onto itself would leave it close-on-exec
            a, b = os.dup(cr), os.dup(cw)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.p = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", "--user-data-dir=" + tmp, "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cr)
        os.close(cw)
        self.w = os.fdopen(to_chrome[1], "wb", buffering=0)
        self.r = os.fdopen(from_chrome[0], "rb", buffering=0)
        self.buf = b""
        self.id = 0
        self.events = []
        self.session = None

    def read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.id += 1
        m = {"id": self.id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        self.w.write(json.dumps(m).encode() + b"\0")
        while True:
            x = self.read()
            if x.get("id") == self.id:
                if "error" in x:
                    raise RuntimeError("%s: %s" % (method, x["error"]))
                return x.get("result", {})
            self.events.append(x)

    def wait_event(self, name, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    del self.events[i]
                    return e
            self.events.append(self.read())
        raise RuntimeError("no %s in %d s" % (name, timeout))

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("in the page: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def sgf_counts(text):
    """The stones on the board after each move of an SGF game (setup
    first), replayed here with captures (the opponent's strings without
    liberties, then the mover's own)."""
    m = re.search(r"SZ\[(\d+)\]", text)
    n = int(m.group(1)) if m else 19
    board = {}

    def pt(s):
        return (ord(s[0]) - 97, ord(s[1]) - 97) if len(s) == 2 and (n > 19 or s != "tt") else None

    for key, col in (("AB", "B"), ("AW", "W")):
        for m in re.finditer(key + r"((?:\[[a-z]{2}\]\s*)+)", text):
            for s in re.findall(r"\[([a-z]{2})\]", m.group(1)):
                board[pt(s)] = col

    def string(p):
        col, seen, stack, libs = board[p], {p}, [p], set()
        while stack:
            x, y = stack.pop()
            for q in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if not (0 <= q[0] < n and 0 <= q[1] < n) or q in seen:
                    continue
                if q not in board:
                    libs.add(q)
                elif board[q] == col:
                    seen.add(q)
                    stack.append(q)
        return seen, libs

    counts = [len(board)]
    for col, s in re.findall(r";\s*([BW])\[([a-z]*)\]", text):
        p = pt(s)
        if p:
            board[p] = col
            x, y = p
            for q in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if q in board and board[q] != col:
                    g, libs = string(q)
                    if not libs:
                        for r in g:
                            del board[r]
            g, libs = string(p)
            if not libs:
                for r in g:
                    del board[r]
        counts.append(len(board))
    return counts


def center(c, sel):
    r = c.eval("(() => { const b = document.querySelector(%s); b.scrollIntoView({block: 'center'});"
               " const r = b.getBoundingClientRect(); return JSON.stringify([r.left + r.width / 2,"
               " r.top + r.height / 2]); })()" % json.dumps(sel))
    return json.loads(r)


def click(c, sel):
    x, y = center(c, sel)
    for t in ("mousePressed", "mouseReleased"):
        c.call("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})


def key(c, name, code):
    for t in ("keyDown", "keyUp"):
        c.call("Input.dispatchKeyEvent", {"type": t, "key": name, "code": name,
                                          "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})


def main():
    url, outdir = sys.argv[1], sys.argv[2]
    out = {"shots": []}
    with tempfile.TemporaryDirectory() as tmp:
        c = Chrome(tmp)
        try:
            t = c.call("Target.createTarget", {"url": "about:blank"}, session=False)
            c.session = c.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                               session=False)["sessionId"]
            c.call("Page.enable")
            c.call("Runtime.enable")
            for w in (1280, 400):
                mobile = w < 600
                c.call("Emulation.setDeviceMetricsOverride",
                       {"width": w, "height": 900 if not mobile else 860, "deviceScaleFactor": 1, "mobile": mobile})
                c.call("Emulation.setTouchEmulationEnabled", {"enabled": mobile})
                c.call("Page.navigate", {"url": url})
                c.wait_event("Page.loadEventFired")
                out[str(w)] = json.loads(c.eval(LAYOUT))
                m = c.call("Page.getLayoutMetrics")
                h = int(m["cssContentSize"]["height"])
                shot = c.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                         "clip": {"x": 0, "y": 0, "width": w, "height": min(h, 16000),
                                                                  "scale": 1}})
                path = os.path.join(outdir, "page-%d.png" % w)
                with open(path, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                out["shots"].append(path)
            # the viewer, at 400 pixels: clicks, then keys on the board
            v = {"sgf": c.eval("document.querySelector('figure.game a').getAttribute('href')"), "steps": []}
            v["steps"].append(["start"] + list(json.loads(c.eval(STATE)).values()))
            for i in range(5):
                click(c, '#viewer button[data-step="next"]')
                v["steps"].append(["next"] + list(json.loads(c.eval(STATE)).values()))
            click(c, '#viewer button[data-step="back"]')
            v["steps"].append(["back"] + list(json.loads(c.eval(STATE)).values()))
            click(c, '#viewer svg')
            for i in range(3):
                key(c, "ArrowRight", 39)
                v["steps"].append(["ArrowRight"] + list(json.loads(c.eval(STATE)).values()))
            key(c, "ArrowLeft", 37)
            v["steps"].append(["ArrowLeft"] + list(json.loads(c.eval(STATE)).values()))
            key(c, "End", 35)
            v["steps"].append(["End"] + list(json.loads(c.eval(STATE)).values()))
            click(c, '#viewer button[data-step="first"]')
            v["steps"].append(["first"] + list(json.loads(c.eval(STATE)).values()))
            out["viewer"] = v
        finally:
            c.close()
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:2] == ["sgf"]:
        print(json.dumps(sgf_counts(open(sys.argv[2]).read())))
    else:
        main()
