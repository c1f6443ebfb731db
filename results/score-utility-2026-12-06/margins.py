import json, sys
# the games lost by each player (A or B of gt-elo), how many by 30 points
# or more, and the median losing margin; files of game records (gt-record(5))
for f in sys.argv[1:]:
    big = {"A": 0, "B": 0}; losses = {"A": 0, "B": 0}; marg = {"A": [], "B": []}; n = 0
    for l in open(f):
        r = json.loads(l); n += 1
        w = r.get("winner")
        if w not in ("B", "W"):
            continue
        loser = "B" if w == "W" else "W"
        who = "A" if r["a"] == loser else "B"
        losses[who] += 1
        m = abs(r["score"]); marg[who].append(m)
        if m >= 30:
            big[who] += 1
    med = {k: sorted(v)[len(v)//2] if v else None for k, v in marg.items()}
    print(f, n, "games; losses", losses, "by 30+ points", big, "median losing margin", med)
