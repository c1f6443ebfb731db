#!/usr/bin/python3
# report_check.py: checks of a page made by gt-report, for tests/cmd/report*.t.
#
#   report_check.py page SITE         the page against its status.json: every
#       value marked with data-j equals the one its JSON pointer names (within
#       the rounding of its format); no digit stands outside a marked value
#       (but in a few fixed labels); every link and image is a file under
#       SITE (or the store beside it) or an anchor of the page; no script but the site's viewer.js, no
#       style sheet or image from elsewhere
#   report_check.py shot PNG     a screenshot is not blank: it has many
#       colours, at least 3% of its pixels differ from the background, and
#       the plots and the boards of the recent games were drawn (their
#       colours are there)
#   report_check.py hostile STORE TRAINER NOW   adds to a store that holds one
#       signed release (gt-publish) and one batch of games: hostile history
#       lines, 10,000 workers among them names with HTML, quotes and control
#       characters, a trainer folder with reasons that are HTML, learning
#       units, and the games rewritten as the current network's with a
#       hostile worker; NOW (seconds since the epoch) dates them
#   report_check.py sources SITE STORE [TRAINER]   status.json against the
#       files it was computed from, recomputed here: the current network,
#       every release and its chained Elo, the contributors and their order,
#       the totals, the data by generation
# Prints what it checked; exits 1 with the first differences listed.
import html.parser
import json
import math
import os
import re
import sys
import struct
import urllib.parse
import zlib

LABELS = ["95%", "sha256"]   # the page's own words that hold digits
fails = []


def fail(msg):
    fails.append(msg)


def pointer(doc, p):
    """The value at JSON pointer p (RFC 6901), or KeyError."""
    v = doc
    for part in p.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        v = v[int(part)] if isinstance(v, list) else v[part]
    return v


def near(a, b, tol):
    return abs(a - b) <= tol + 1e-9 * max(1, abs(b))


def check_value(fmt, text, v, where):
    """Whether the text shown in format fmt is the JSON value v."""
    if v is None or v == "":
        return text == "\u2013"
    if fmt == "text":
        if isinstance(v, str):
            v = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "?", v)
        return text == (v if isinstance(v, str) else json.dumps(v))
    if fmt in ("time", "date"):
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", v):
            return text == v
        return text == (v[:10] + " " + v[11:16] if fmt == "time" else v[:10])
    if fmt == "elo" and isinstance(v, str):
        return v in ("+inf", "-inf") and text == v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if fmt == "int":
        if not re.fullmatch(r"-?\d{1,3}(,\d{3})*", text):
            return False
        return near(int(text.replace(",", "")), v, 0.5)
    if fmt == "elo":
        return re.fullmatch(r"[+-]\d+", text) is not None and near(int(text), v, 0.5)
    if fmt in ("f1", "f2"):
        d = int(fmt[1])
        return re.fullmatch(r"-?\d+\.\d{%d}" % d, text) is not None and near(float(text), v, 0.5 * 10 ** -d)
    if fmt == "pct":
        return re.fullmatch(r"-?\d+\.\d%", text) is not None and near(float(text[:-1]) / 100, v, 0.0005)
    if fmt == "bytes":
        m = re.fullmatch(r"(-?\d+(?:\.\d)?) (B|KiB|MiB|GiB|TiB)", text)
        if not m:
            return False
        k = 1024 ** ["B", "KiB", "MiB", "GiB", "TiB"].index(m.group(2))
        return near(float(m.group(1)) * k, v, 0.5 if k == 1 else 0.05 * k)
    fail("%s: unknown format %s" % (where, fmt))
    return False


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # open elements: (tag, data-j or None, class)
        self.values = []         # (pointer, format, text)
        self.loose = []          # text outside marked values
        self.links = []          # (tag, attribute, value)
        self.ids = set()
        self.forbidden = []
        self.scripts = 0
        self.title = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        # one script: the site's own viewer.js, by its file
        if tag == "script" and (a.get("src") != "viewer.js" or self.scripts):
            self.forbidden.append("script other than viewer.js")
        if tag == "script":
            self.scripts += 1
        if tag in ("iframe", "object", "embed") or (tag == "link" and "stylesheet" in (a.get("rel") or "")):
            self.forbidden.append(tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.forbidden.append("%s %s" % (tag, k))
            if k in ("href", "src") and v is not None:
                self.links.append((tag, k, v))
        if "id" in a:
            self.ids.add(a["id"])
        if tag in ("meta", "img", "br", "link", "input", "hr"):
            return
        self.stack.append([tag, a.get("data-j"), a.get("class", ""), ""])

    def handle_endtag(self, tag):
        while self.stack:
            t, j, cls, text = self.stack.pop()
            if j is not None:
                self.values.append((j, cls[2:] if cls.startswith("f-") else "?", text))
            if t == tag:
                break

    def handle_data(self, data):
        inside = [e for e in self.stack if e[1] is not None]
        if inside:
            inside[-1][3] += data
        elif self.stack and self.stack[-1][0] == "title":
            self.title += data
        elif not (self.stack and self.stack[-1][0] == "style"):
            self.loose.append(data)


def check_page(site):
    page = Page()
    page.feed(open(os.path.join(site, "index.html"), encoding="utf-8").read())
    page.close()
    status = json.load(open(os.path.join(site, "status.json"), encoding="utf-8"))
    for tag in page.forbidden:
        fail("the page has a %s" % tag)
    for p, fmt, text in page.values:
        try:
            v = pointer(status, p)
        except (KeyError, IndexError, ValueError, TypeError):
            v = None
            if text != "\u2013":
                fail("%s: shown as %r but not in status.json" % (p, text))
            continue
        if not check_value(fmt, text, v, p):
            fail("%s: shown as %r (%s), status.json has %r" % (p, text, fmt, v))
    loose = " ".join(page.loose)
    for label in LABELS:
        loose = loose.replace(label, "")
    for m in re.finditer(r"\d", loose):
        fail("a digit outside the marked values: ...%s..." % loose[max(0, m.start() - 40):m.end() + 40])
        break
    series = status.get("series")
    want_title = "gt run " + series if series else "gt run status"
    if page.title != want_title:
        fail("title %r, want %r" % (page.title, want_title))
    nfile = 0
    store = os.path.dirname(os.path.abspath(site.rstrip("/")))
    for tag, attr, url in page.links:
        u = urllib.parse.urlsplit(url)
        if url.startswith("#"):
            if url[1:] not in page.ids:
                fail("anchor %s: no such id" % url)
            continue
        if u.scheme in ("http", "https", "data", "javascript") or url.startswith("//"):
            fail("%s %s=%s: not a file of the site or the store" % (tag, attr, url))
            continue
        path = urllib.parse.unquote(u.path)
        full = path if u.scheme == "file" else os.path.normpath(os.path.join(site, path))
        if u.scheme not in ("", "file"):
            fail("%s %s=%s: an unexpected scheme" % (tag, attr, url))
        elif not os.path.isfile(full):
            fail("%s %s=%s: no such file %s" % (tag, attr, url, full))
        elif not os.path.abspath(full).startswith(store + os.sep):
            fail("%s %s=%s: outside the store" % (tag, attr, url))
        else:
            nfile += 1
    print("checked %d values, %d links to files, %d anchors" %
          (len(page.values), nfile, sum(1 for _, _, u in page.links if u.startswith("#"))))
    if len(page.values) < 10:
        fail("only %d marked values" % len(page.values))


def png_pixels(path):
    """An 8-bit RGB or RGBA PNG as an array (height, width, channels), with
    zlib and numpy only (Debian's python3 has no PIL). The rows' filters
    (PNG 1.2, section 6) are undone one anti-diagonal at a time: a pixel
    depends only on its left, upper and upper-left neighbours."""
    import numpy as np
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    if depth != 8 or interlace or ctype not in (2, 6):
        raise ValueError("only 8-bit RGB or RGBA, not interlaced")
    ch = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, w * ch + 1)
    filt = raw[:, 0].astype(np.int32)
    lines = raw[:, 1:].reshape(h, w, ch).astype(np.int32)
    rec = np.zeros((h + 1, w + 1, ch), np.int32)   # row 0 and column 0: zeros
    for d in range(h + w - 1):
        ys = np.arange(max(0, d - w + 1), min(h - 1, d) + 1)
        xs = d - ys
        a, b, c = rec[ys + 1, xs], rec[ys, xs + 1], rec[ys, xs]
        f = filt[ys][:, None]
        p = a + b - c
        pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
        paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
        pred = np.select([f == 1, f == 2, f == 3, f == 4], [a, b, (a + b) // 2, paeth], 0)
        rec[ys + 1, xs + 1] = (lines[ys, xs] + pred) & 255
    return rec[1:, 1:].astype(np.uint8)


def check_shot(path):
    import numpy as np
    img = png_pixels(path)
    rgb = img[:, :, :3].reshape(-1, 3).astype(np.int64)
    keys = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
    vals, counts = np.unique(keys, return_counts=True)
    ink = 1 - counts.max() / len(keys)
    # the plots' blue (plots.gp, 0x1f5fa8) and the boards' wood
    # (lib/report.c): the blue as drawn, blended with the plots' white by
    # the antialiasing of sloping lines (coverage a of at least a half:
    # the red channel gives a, the green and blue must follow it)
    r, g, b = rgb[:, 0], rgb[:, 1], rgb[:, 2]
    a = (255 - r) / (255.0 - 0x1f)
    near = (a >= 0.5) & (a <= 1.02) & (np.abs(g - (255 - a * (255 - 0x5f))) <= 8) & \
        (np.abs(b - (255 - a * (255 - 0xa8))) <= 8)
    blue = int(np.count_nonzero(near))
    wood = int(np.count_nonzero(keys == 0xdcb35c))
    print("screenshot %dx%d: %d colours, %.1f%% of the pixels not the background, "
          "%d of the plots' blue, %d of the boards' wood" %
          (img.shape[1], img.shape[0], len(vals), 100 * ink, blue, wood))
    if len(vals) < 50 or ink < 0.03:
        fail("the screenshot is blank or nearly so")
    # (the page's links come near that blue too: some 700 pixels)
    if blue < 1500:
        fail("no plot was drawn")
    if wood < 2000:
        fail("no board was drawn")


def lines(path):
    if not os.path.exists(path):
        return []
    out = []
    for l in open(path, encoding="utf-8"):
        l = l.strip()
        if l:
            try:
                out.append(json.loads(l))
            except ValueError:
                pass
    return out


def gain(stats):
    """The chained Elo's rule, as share/gt/examples/9x9-from-zero has it."""
    elo, ci = stats.get("elo"), stats.get("elo_ci95") or [None, None]
    w, l = stats.get("wins", 0), stats.get("losses", 0)
    if isinstance(elo, (int, float)):
        return elo
    if w > 0 and l == 0:
        return ci[0] if ci[0] is not None and ci[0] > 0 else 0
    if l > 0 and w == 0:
        return ci[1] if ci[1] is not None and ci[1] < 0 else 0
    return 0


def same(got, want, what):
    if isinstance(want, float) or isinstance(got, float):
        if got is None or want is None or not math.isclose(got, want, rel_tol=1e-9, abs_tol=0.011):
            fail("%s: status.json has %r, the sources give %r" % (what, got, want))
    elif got != want:
        fail("%s: status.json has %r, the sources give %r" % (what, got, want))


def check_sources(site, store, trainer):
    st = json.load(open(os.path.join(site, "status.json"), encoding="utf-8"))
    latest_path = os.path.join(store, "models", "latest.json")
    if os.path.exists(latest_path):
        latest = json.load(open(latest_path, encoding="utf-8"))
        for k in ("name", "sha256", "bytes", "steps"):
            same(st["current"][k], latest[k], "current." + k)
    else:
        same(st["current"], None, "current")
    hist = lines(os.path.join(store, "models", "history.ndjson"))
    rel = [h for h in hist if h.get("released") is True]
    same(st["decisions"], len(hist), "decisions")
    same(st["releases_total"], len(rel), "releases_total")
    chain = 0
    chains = []
    for h in rel:
        chain += gain(h["stats"])
        chains.append(chain)
    shown = st["releases"]
    for i, r in enumerate(shown):
        h, c = rel[len(rel) - 1 - i], chains[len(rel) - 1 - i]
        same(r["n"], len(rel) - i, "releases[%d].n" % i)
        same(r["name"], h["candidate"][:100], "releases[%d].name" % i)
        same(r["steps"], h["steps"], "releases[%d].steps" % i)
        for k in ("wins", "draws", "losses", "games"):
            same(r[k], h["stats"][k], "releases[%d].%s" % (i, k))
        same(r["chain"], round(c, 2), "releases[%d].chain" % i)
        m = re.search(r"-d(\d+)(?=[-.]|$)", h["candidate"])
        same(r["rows"], int(m.group(1)) if m else None, "releases[%d].rows" % i)
    if st["current"] and shown:
        same(st["current"]["chain"], shown[0]["chain"], "current.chain")
    contrib_path = os.path.join(store, "stats", "contributions.json")
    workers = json.load(open(contrib_path, encoding="utf-8"))["workers"] if os.path.exists(contrib_path) else {}
    order = sorted(workers.items(), key=lambda kv: (-kv[1]["games"], kv[0].encode()))
    same(st["workers"]["total"], len(order), "workers.total")
    listed = st["workers"]["list"]
    for i, w in enumerate(listed):
        name, v = order[i]
        shown = w["name"].encode()
        if not (len(shown) <= 100 and name.encode()[:len(shown)] == shown and len(shown) >= min(97, len(name.encode()))):
            fail("workers.list[%d].name: %r is not %r cut to 100 bytes" % (i, w["name"], name))
        for k in ("games", "positions", "rejected"):
            same(w[k], v[k], "workers.list[%d].%s" % (i, k))
        same(w["last"], v["last"], "workers.list[%d].last" % i)
    rest = order[len(listed):]
    if rest:
        same(st["workers"]["others"]["count"], len(rest), "workers.others.count")
        same(st["workers"]["others"]["games"], sum(v["games"] for _, v in rest), "workers.others.games")
    else:
        same(st["workers"]["others"], None, "workers.others")
    for k in ("games", "positions", "rejected"):
        same(st["data"][k], sum(v[k] for v in workers.values()), "data." + k)
    if trainer:
        gens = sorted(d for d in os.listdir(os.path.join(trainer, "gen"))
                      if os.path.exists(os.path.join(trainer, "gen", d, "validate.json")))
        vals = [json.load(open(os.path.join(trainer, "gen", d, "validate.json"))) for d in gens]
        same(st["data"]["generations"], len(gens), "data.generations")
        same(sum(b["games"] for b in st["data"]["per_day"]), sum(v["records_out"] for v in vals),
             "the games of data.per_day")
        same(sum(b["rejected"] for b in st["data"]["per_day"]), sum(v["rejected"] for v in vals),
             "the rejects of data.per_day")
        reasons = {}
        for v in vals:
            for k, n in v.get("rejects_by_reason", {}).items():
                reasons[k] = reasons.get(k, 0) + n
        same(sum(x["count"] for x in st["data"]["reasons"]) + st["data"]["reasons_others"],
             sum(reasons.values()), "the rejects by reason")
    print("checked status.json against %d releases, %d workers" % (len(rel), len(workers)))


EVIL = ['<script>alert("x")</script>', "a\"b'c&d<e>", "ctrl\u0001\u001fname",
        "\u00e9" * 300, "", "12345", "\u202eRTL", "<img src=x onerror=alert(1)>"]


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))



def make_plain(store, trainer, now):
    """A plain run's store beside the real release and games already there:
    eight releases before it over a week, their 95% intervals of both
    kinds (holding 0 and not), five workers, three generations in the
    last week (one in the last day) and hours by generation."""
    real = open(os.path.join(store, "models", "history.ndjson")).read()
    ivals = [(200.0, 150.0, 260.0), (90.5, 40.0, 140.0), (35.0, -10.0, 80.0), (60.0, 12.5, 110.0),
             (20.0, -30.0, 70.0), (45.0, 5.0, 85.0), (10.0, -25.5, 45.0), (30.0, 2.0, 58.0)]
    with open(os.path.join(store, "models", "history.ndjson"), "w") as f:
        for i, (e, lo, hi) in enumerate(ivals):
            f.write(json.dumps({"time": iso(now - (8 - i) * 20 * 3600), "series": "plain",
                                "candidate": "plain-b6c64-s%d-d%d.bin.gz" % (1000 * (i + 1), 250000 * (i + 1)),
                                "steps": 1000 * (i + 1), "released": True,
                                "stats": {"a": "candidate", "b": "none" if i == 0 else "plain-b6c64-s%d" % (1000 * i),
                                          "games": 40, "wins": 24, "draws": 0, "losses": 16, "elo": e,
                                          "elo_ci95": [lo, hi]}}) + "\n")
        f.write(real)
    workers = {w: {"games": 100 * (i + 1), "positions": 8000 * (i + 1), "rejected": i, "generations": 3,
                   "last": iso(now - 600 * i)} for i, w in enumerate(["alice", "bob", "carol", "dave", "erin"])}
    os.makedirs(os.path.join(store, "stats"), exist_ok=True)
    json.dump({"workers": workers, "generations": ["g1", "g2", "g3"], "updated": iso(now)},
              open(os.path.join(store, "stats", "contributions.json"), "w"))
    for n, age in ((1, 5 * 86400), (2, 2 * 86400), (3, 3600)):
        d = os.path.join(trainer, "gen", "%04d" % n)
        os.makedirs(d, exist_ok=True)
        json.dump({"records_in": 500, "records_out": 490 + n, "positions": 40000 + n, "rejected": 10 - n,
                   "rejects_by_reason": {"move": 10 - n}}, open(os.path.join(d, "validate.json"), "w"))
        os.utime(os.path.join(d, "validate.json"), (now - age, now - age))
    with open(os.path.join(trainer, "generations.ndjson"), "w") as f:
        for n in (1, 2, 3):
            f.write(json.dumps({"generation": n, "games": 490 + n, "rows": 40000, "steps": 1000 * n,
                                "candidate": "plain-b6c64-s%d-d%d.bin.gz" % (1000 * (n + 6), 250000 * (n + 6)),
                                "reference": "none", "released": True}) + "\n")
    with open(os.path.join(trainer, "hours.ndjson"), "w") as f:
        for i in range(8):
            f.write(json.dumps({"name": "plain-b6c64-s%d-d%d.bin.gz" % (1000 * (i + 1), 250000 * (i + 1)),
                                "cpu_hours": 10.0 * (i + 1)}) + "\n")

def make_hostile(store, trainer, now):
    latest = json.load(open(os.path.join(store, "models", "latest.json")))
    real = open(os.path.join(store, "models", "history.ndjson")).read()
    stats = lambda w, d, l, ci: {"a": "candidate", "b": "none", "games": w + d + l, "wins": w,
                                 "draws": d, "losses": l, "elo": None, "elo_ci95": ci}
    hist = [
        {"time": iso(now - 7200), "series": "<b>evil</b>", "candidate": "evil-b1c8-s100-d6400.bin.gz",
         "steps": 100, "released": True, "reason": "<i>reason</i> & 12 more",
         "stats": stats(10, 0, 0, [50.1, None])},
        {"time": iso(now - 5400), "candidate": "kept-s150.bin.gz", "steps": 150, "released": False,
         "stats": stats(1, 0, 9, [None, -10])},
        {"time": iso(now - 3600), "candidate": "<script>alert(2)</script>-s200", "steps": 200,
         "released": True, "stats": stats(0, 0, 10, [None, -80.25])},
        {"time": iso(now - 1800), "candidate": "x-b1c8-s250-d9000.bin.gz", "steps": 250, "released": True,
         "stats": dict(stats(6, 2, 2, [-20.5, 250.75]), elo=120.5)},
    ]
    with open(os.path.join(store, "models", "history.ndjson"), "w") as f:
        for h in hist:
            f.write(json.dumps(h) + "\n")
        f.write("this line is not JSON <script>\n")
        f.write(real)
    workers = {}
    for i in range(10000):
        g = (i * 7919) % 1000
        workers["w%05d" % i] = {"games": g, "positions": g * 80, "rejected": i % 3, "generations": 1,
                                "last": iso(now - i)}
    for i, name in enumerate(EVIL):
        workers[name] = {"games": 5000 + i, "positions": 1, "rejected": 7, "generations": 2,
                         "last": "<script>" if i == 0 else iso(now - 60)}
    os.makedirs(os.path.join(store, "stats"), exist_ok=True)
    json.dump({"workers": workers, "generations": ["g1"], "updated": iso(now)},
              open(os.path.join(store, "stats", "contributions.json"), "w"))
    reasons = {EVIL[7]: 4, "move": 3, "json": 2, 'a"b': 1}
    reasons.update({"r%02d" % i: 1 for i in range(20)})
    for n, age in ((1, 30 * 3600), (2, 2 * 3600), (3, 600)):
        d = os.path.join(trainer, "gen", "%04d" % n)
        os.makedirs(d, exist_ok=True)
        v = {"records_in": 60, "records_out": 50 + n, "positions": 4000 + n, "rejected": sum(reasons.values()),
             "rejects_by_reason": reasons, "rejects_by_worker": {EVIL[0]: 3}}
        json.dump(v, open(os.path.join(d, "validate.json"), "w"))
        json.dump({"generation": "g%d" % n, "workers": {EVIL[0]: {"games": 30, "positions": 2000},
                                                     "w00001": {"games": 20 + n, "positions": 2000}}},
                  open(os.path.join(d, "contrib.json"), "w"))
        os.utime(os.path.join(d, "validate.json"), (now - age, now - age))
    with open(os.path.join(trainer, "generations.ndjson"), "w") as f:
        for n in (1, 2, 3):
            f.write(json.dumps({"generation": n, "games": 50 + n, "rows": 1000, "candidate":
                                ["evil-b1c8-s100-d6400.bin.gz", "<b>bold</b>", "x-b1c8-s250-d9000.bin.gz"][n - 1],
                                "steps": 100 * n, "released": n != 2}) + "\n")
        f.write("{not json\n")
    os.makedirs(os.path.join(trainer, "data"), exist_ok=True)
    with open(os.path.join(trainer, "data", "manifest"), "w") as f:
        f.write(json.dumps({"file": "run_001/a.npz", "rows": 300000, "time": iso(now - 7200)}) + "\n")
        f.write(json.dumps({"file": "run_002/b.npz", "rows": 100000, "time": iso(now - 3600)}) + "\n")
        # the newest: shards of KataGo's keys, not in gt-train's window
        f.write(json.dumps({"file": "run_003/k.npz", "rows": 100000, "time": iso(now - 60), "keys": "katago"}) + "\n")
    with open(os.path.join(trainer, "hours.ndjson"), "w") as f:
        f.write(json.dumps({"generation": 1, "cpu_hours": 0.5}) + "\n")
        f.write(json.dumps({"generation": 3, "cpu_hours": 2.25}) + "\n")
        f.write(json.dumps({"name": latest["name"], "cpu_hours": 3.125}) + "\n")
    dl = os.path.join(store, "diloco")
    for sub in ("heartbeats", "versions", "deltas/u1", "deltas/evil"):
        os.makedirs(os.path.join(dl, sub), exist_ok=True)
    json.dump({"version": 3, "model": "v3.bin.gz", "sha256": "a" * 64, "bytes": 100, "params_sha256": "b" * 64,
               "time": now - 100}, open(os.path.join(dl, "current.json"), "w"))
    json.dump({"unit": "u1", "generation": "0123456789abcdef", "seq": 5, "version": 2, "deltas": 5,
               "samples": 640, "time": now - 60, "state": "training", "loss": 4.25},
              open(os.path.join(dl, "heartbeats", "u1.json"), "w"))
    json.dump({"unit": "evil", "state": "<svg onload=alert(1)>", "time": now - 3600, "deltas": 1},
              open(os.path.join(dl, "heartbeats", "evil.json"), "w"))
    open(os.path.join(dl, "heartbeats", "broken.json"), "w").write("{")
    ledgers = {1: [("u1", 0)], 2: [("u1", 1), ("evil", 0)], 3: [("u1", 2)]}
    for v, ds in ledgers.items():
        json.dump({"version": v, "samples": 128 * len(ds), "deltas": [
            {"unit": u, "name": "%d-x-1.delta" % b, "generation": "0", "seq": 1, "base_version": b,
             "samples": 128, "weight": 1} for u, b in ds]}, open(os.path.join(dl, "versions", "v%d.json" % v), "w"))
        os.utime(os.path.join(dl, "versions", "v%d.json" % v), (now - 1000 + v * 100,) * 2)
    open(os.path.join(dl, "deltas", "u1", "0-0123456789abcdef-1.delta"), "wb").write(b"x" * 1000)
    open(os.path.join(dl, "deltas", "u1", "1-0123456789abcdef-2.delta"), "wb").write(b"x" * 500)
    import gzip
    gdir = os.path.join(store, "games")
    for b in os.listdir(gdir):
        recs = [json.loads(l) for l in gzip.open(os.path.join(gdir, b), "rt")]
        with gzip.open(os.path.join(gdir, b), "wt") as f:
            for i, r in enumerate(recs):
                r["model"] = latest["name"][:-7]
                r["worker"] = EVIL[i % len(EVIL)]
                r["game_id"] = "<id>%d" % i
                f.write(json.dumps(r) + "\n")
            # the newest line: a second stone on E5
            bad = dict(recs[0], moves=["E5", "E5"], positions=[])
            f.write(json.dumps(bad) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "page":
        check_page(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "plain":
        make_plain(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "hostile":
        make_hostile(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "shot":
        check_shot(sys.argv[2])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "sources":
        check_sources(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else None)
    else:
        sys.exit(__doc__ if __doc__ else "usage: report_check.py page SITE | sources SITE STORE [TRAINER]")
    for f in fails[:20]:
        print("FAIL: " + f)
    sys.exit(1 if fails else 0)
