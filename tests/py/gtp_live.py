"""gtp_live.py ENGINE-ARGV-JSON: a GTP session as Lizzie and KaTrain run
one, with the analysis parsed as their parsers read it (re-implemented
here from their sources: Lizzie's Leelaz.parseLine and MoveData, KataGo's
GTP_Extensions.md keys). Prints one JSON object of what it saw."""
import json, select, subprocess, sys, time

argv = json.loads(sys.argv[1])
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
out = {}


def send(cmd):
    p.stdin.write(cmd + "\n")
    p.stdin.flush()


def response():
    lines = []
    while True:
        l = p.stdout.readline()
        if l == "":
            raise SystemExit("engine ended")
        if l == "\n":
            return lines
        lines.append(l.rstrip("\n"))


def analyze(cmd, seconds):
    """send an analysis command, read its lines for `seconds`, stop it with
    `name` as the clients do; returns the info lines"""
    send(cmd)
    infos, t0 = [], time.time()
    head = p.stdout.readline().rstrip("\n")
    while time.time() - t0 < seconds:
        r, _, _ = select.select([p.stdout], [], [], 0.05)
        if r:
            l = p.stdout.readline().rstrip("\n")
            if l.startswith("info"):
                infos.append(l)
    send("name")
    rest = response()  # the end of the analysis response
    infos += [l for l in rest if l.startswith("info")]
    after = response()
    return head, infos, after


def kata_items(line):
    """KataGo's line: info items of key value pairs up to pv, then pv
    vertices up to the next key (pvVisits, movesOwnership) or item"""
    items = []
    for chunk in line.split(" info ")[0:]:
        chunk = chunk[5:] if chunk.startswith("info ") else chunk
        t = chunk.split()
        o, i = {}, 0
        while i < len(t):
            if t[i] in ("pv", "pvVisits", "movesOwnership"):
                k = t[i]
                i += 1
                vals = []
                while i < len(t) and t[i] not in ("pv", "pvVisits", "movesOwnership", "rootInfo", "ownership"):
                    vals.append(t[i])
                    i += 1
                o[k] = vals
            elif t[i] in ("rootInfo", "ownership"):
                break
            else:
                o[t[i]] = t[i + 1]
                i += 2
        items.append(o)
    return items


# Lizzie's identification (Leelaz.java): "name" starting with KataGo turns
# its KataGo mode on; otherwise "version"'s minor number must be >= 15
send("1 name")
n = response()[0]
send("2 version")
v = response()[0]
out["name"], out["version"] = n, v
out["lizzie_katago"] = n.split(" ")[1].startswith("KataGo")
send("boardsize 9")
response()
send("clear_board")
response()
for m in ["B E5", "W C4", "B E3"]:
    send("play " + m)
    response()
# lz-analyze with avoid (Lizzie's avoid form), kata-analyze with allow
h, infos, after = analyze("lz-analyze W 5 avoid w D4,E4,F4,D5 1 avoid w F5 1 minmoves 40", 1.5)
it = [kata_items(l) for l in infos]
out["avoid"] = {"lines": len(infos), "moves": sorted({x["move"] for l in it for x in l}),
                "first": sorted({x["pv"][0] for l in it for x in l if x.get("pv")}),
                "after": after[0]}
h, infos, after = analyze("kata-analyze W 5 allow w C3,D3,F6 1 pvVisits true movesOwnership true rootInfo true", 1.5)
it = [kata_items(l) for l in infos]
last = it[-1] if it else []
out["allow"] = {"lines": len(infos), "moves": sorted({x["move"] for l in it for x in l}),
                "pvVisitsOk": all(len(x["pvVisits"]) == len(x["pv"]) and int(x["pvVisits"][0]) == int(x["visits"]) for x in last),
                "movesOwnership": sorted({len(x["movesOwnership"]) for x in last}),
                "keys": sorted(last[0].keys()) if last else [],
                "rootInfo": "rootInfo visits" in infos[-1] if infos else False}
# a bad avoid: syntax error, answered at once
send("lz-analyze W 5 avoid w D4 0")
out["bad"] = response()[0]
send("lz-analyze W 5 allow w D4 1 avoid w E4 1")
out["bad2"] = response()[0]
send("quit")
response()
p.wait(timeout=30)
print(json.dumps(out))
