#!/bin/sh
# gt-gtp's loadsgf on every file of shared/data/sgf gives the position gt-sgf
# gives: the board, komi and side to move after loadsgf FILE equal those of
# gt-sgf's record of the file's first game, replayed into gt-gtp with plain
# GTP commands (set_free_handicap for black setup stones, play for moves),
# or where White has setup stones, loaded from the record written back by
# gt-sgf --to-sgf; a file whose first game gt-sgf refuses is refused;
# loadsgf FILE N stops before move N; printsgf reads back.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
S=$GT_SRC/../shared/data/sgf
[ -d "$S" ] || skip_all "$S not found (CI clones shared/ beside the repository)"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"

# the position after some GTP commands: board diagram, komi, side to move
pos() {
	{ grep -v showboard "$1"; echo "get_komi"; echo "showboard"; } | gt-gtp -q >"$T/pos.out" 2>&1
	awk 'BEGIN { RS = "" } { r[NR] = $0 } END { print r[NR - 1]; print r[NR] }' "$T/pos.out"
}

# GTP commands that rebuild gt-sgf's record $1 (first line) without loadsgf;
# fails when it has white setup stones
replay() {
	python3 - "$1" <<'END'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
s = r.get("setup", {})
if s.get("W"):
    sys.exit(1)
print("boardsize %d" % r["board_size"])
print("gt-rules %s" % r["rules"])
print("komi %g" % r["komi"])
if s.get("B"):
    print("set_free_handicap " + " ".join(s["B"]))
cols = r.get("colors") or ""
first = r.get("first_to_move", "B")
for i, m in enumerate(r["moves"]):
    c = cols[i] if cols else (first if i % 2 == 0 else ("W" if first == "B" else "B"))
    print("play %s %s" % (c, m))
END
}

n=0
for f in "$S"/*.sgf; do
	b=$(basename "$f")
	gt-sgf "$f" >"$T/rec" 2>"$T/sgferr"
	first_bad=$(grep -c "game 1[,:]" "$T/sgferr")
	printf 'loadsgf %s\nshowboard\n' "$f" >"$T/load"
	{ echo "loadsgf $f"; } | gt-gtp -q >"$T/lout" 2>&1
	if [ "$first_bad" -gt 0 ] || [ ! -s "$T/rec" ]; then
		grep -q '^? cannot load file' "$T/lout"
		ok $? "$b: refused as gt-sgf refuses its first game ($(head -1 "$T/sgferr" | cut -c1-60))"
		continue
	fi
	# the side to move loadsgf answers, and the position it leaves
	tomove=$(sed -n 's/^= \(black\|white\)$/\1/p' "$T/lout")
	pos "$T/load" >"$T/got"
	if replay "$T/rec" >"$T/cmds" 2>/dev/null; then
		how="replayed with play"
	else
		head -1 "$T/rec" | gt-sgf --to-sgf >"$T/back.sgf"
		echo "loadsgf $T/back.sgf" >"$T/cmds"
		how="written back by gt-sgf --to-sgf"
	fi
	pos "$T/cmds" >"$T/want"
	cmp -s "$T/got" "$T/want"
	ok $? "$b: loadsgf gives gt-sgf's position ($how)"
	[ -s "$T/got" ] || diag "empty position"
	want_tm=$(python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
cols = r.get("colors") or ""; first = r.get("first_to_move", "B"); k = len(r["moves"])
if k == 0: c = first
elif cols: c = "W" if cols[-1] == "B" else "B"
else: c = first if k % 2 == 0 else ("W" if first == "B" else "B")
print("black" if c == "B" else "white")' "$T/rec")
	is "$tomove" "$want_tm" "$b: $want_tm to move"
	n=$((n + 1))
done
ok $([ $n -ge 8 ] && echo 0 || echo 1) "$n files compared"

# loadsgf FILE N: the position before move N
printf 'loadsgf %s 3\nshowboard\n' "$S/variations.sgf" >"$T/a"
printf 'boardsize 19\nplay b E5\nplay w C7\nshowboard\n' >"$T/b"
gt-sgf "$S/variations.sgf" | python3 -c 'import json, sys; r = json.loads(sys.stdin.readline())
print("boardsize %d" % r["board_size"]); print("komi %g" % r["komi"])
for i, m in enumerate(r["moves"][:2]): print("play %s %s" % ("BW"[i % 2], m))' >"$T/b"
pos "$T/a" >"$T/pa"
pos "$T/b" >"$T/pb"
cmp -s "$T/pa" "$T/pb"
ok $? "loadsgf FILE 3: the first two moves only"

# printsgf writes what loadsgf reads back
printf '%s\n' "boardsize 9" "komi 6.5" "fixed_handicap 2" "play w E5" "play b D4" \
	"play w pass" "play b pass" "play w F6" "printsgf $T/out.sgf" >"$T/c"
pos "$T/c" >"$T/pc"
printf 'loadsgf %s\n' "$T/out.sgf" >"$T/d"
pos "$T/d" >"$T/pd"
cmp -s "$T/pc" "$T/pd"
ok $? "printsgf then loadsgf: the same position, handicap and moves after passes included"
done_testing
