#!/bin/sh
# gt-selfplay with networks and the options around them: 1,000 games of
# --model none and 100 of a random b1c8 network pass gt-validate; the same
# seed gives byte-identical output with a network whatever --threads,
# --parallel-games and --cache-mb (with --deterministic, and as measured
# without it); --sgf writes one SGF per game that GNU Go loads; --backend.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-selfplay >/dev/null || skip_all "gt-selfplay not built"
command -v gt-model >/dev/null || skip_all "gt-model not built"
command -v gt-validate >/dev/null || skip_all "gt-validate not built"

records_valid() { # records_valid FILE N: FILE holds N records that gt-validate accepts
	is "$(wc -l <"$1" | tr -d ' ')" "$2" "$2 records"
	gt-validate <"$1" >"$T/valid" 2>"$T/verr"
	ok $? "gt-validate accepts all $2"
}

gt-selfplay --model none --games 1000 --visits 8 --cheap-visits 4 --seed 11 --threads 2 \
	--worker test >"$T/none" 2>"$T/err"
ok $? "1000 games of --model none"
records_valid "$T/none" 1000
cmp -s "$T/none" "$T/valid"
ok $? "and passes them through unchanged"

gt-model init b1c8 --seed 1 -o "$T/b1c8-s0-d0.bin.gz" >/dev/null 2>&1
ok $? "a random b1c8 network"
net="--model $T/b1c8-s0-d0.bin.gz --visits 8 --cheap-visits 4 --seed 12 --worker test"
gt-selfplay $net --games 100 --threads 2 --parallel-games 8 >"$T/net" 2>"$T/err"
ok $? "100 games of the network"
records_valid "$T/net" 100
grep -q '"model":"b1c8-s0-d0"' "$T/net"
ok $? "the records name the model"

# the same seed, other batches. Without --deterministic the network's
# outputs may differ in the last bits with the batch (gt-selfplay(1)), which
# changes a game only when it flips a choice between nearly equal children:
# measured, not asserted. With --deterministic they are asserted.
gt-selfplay $net --games 100 --threads 1 --parallel-games 1 --cache-mb 0 >"$T/net1" 2>/dev/null
ok $? "batched, 1 thread x 1 game, no cache"
gt-selfplay $net --games 100 --parallel-games 16 --cache-mb 1 >"$T/net2" 2>/dev/null
ok $? "batched, 1 thread x 16 games, 1 MiB cache"
for f in net1 net2; do
	diag "batched: $(paste -d '\n' "$T/net" "$T/$f" | paste - - | awk -F'\t' '$1 != $2' | wc -l) of 100 games differ between 2 x 8 and $f"
done
gt-selfplay $net --deterministic --games 40 --threads 2 --parallel-games 7 >"$T/det1" 2>/dev/null
gt-selfplay $net --deterministic --games 40 --parallel-games 1 --cache-mb 0 >"$T/det2" 2>/dev/null
cmp -s "$T/det1" "$T/det2"
ok $? "--deterministic: byte-identical with 2 x 7 and cache, 1 x 1 without"

# --sgf: one file per game, named by game id, that GNU Go loads
mkdir "$T/sgf"
gt-selfplay $net --games 5 --sgf "$T/sgf" >"$T/five" 2>"$T/err"
ok $? "--sgf DIR"
is "$(ls "$T/sgf" | grep -c '\.sgf$')" 5 "five SGF files"
is "$(ls -A "$T/sgf" | grep -vc '\.sgf$')" 0 "no temporary file left"
id=$(head -1 "$T/five" | python3 -c 'import json,sys; print(json.load(sys.stdin)["game_id"])')
test -s "$T/sgf/$id.sgf"
ok $? "named <game_id>.sgf"
grep -q "RE\[$(head -1 "$T/five" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')\]" \
	"$T/sgf/$id.sgf"
ok $? "with the record's result"
gnugo=$(command -v gnugo || ls /usr/games/gnugo 2>/dev/null)
if [ -n "$gnugo" ]; then
	printf 'loadsgf %s\nget_komi\nlist_stones black\nlist_stones white\nquit\n' \
		"$T/sgf/$id.sgf" | timeout 60 "$gnugo" --mode gtp >"$T/gnugo" 2>&1
	head -1 "$T/gnugo" | grep -q '^= [bw]'
	ok $? "GNU Go loads it"
	# every stone GNU Go lists is in its colour's area in the record
	cat >"$T/own.py" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
n = r["board_size"]; own = r["ownership"]
ans = [l[2:].split() for l in open(sys.argv[2]).read().split("\n\n") if l.startswith("=")]
assert float(ans[1][0]) == r["komi"], ans[1]
cols = "ABCDEFGHJKLMNOPQRST"
bad = 0
for want, stones in ((1, ans[2]), (-1, ans[3])):
    for v in stones:
        i = (n - int(v[1:])) * n + cols.index(v[0])
        bad += own[i] != want
print(bad, len(ans[2]) + len(ans[3]))
EOF
	set -- $(python3 "$T/own.py" "$T/five" "$T/gnugo" 2>&1)
	is "$1" 0 "its stones ($2) agree with the record's final ownership and komi"
else
	ok 0 "# SKIP gnugo not installed"
	ok 0 "# SKIP gnugo not installed"
fi
gt-selfplay $net --games 1 --sgf "$T/nothere" >/dev/null 2>"$T/err"
is $? 1 "--sgf to a missing folder: exit 1"
grep -q "^gt-selfplay: --sgf" "$T/err"
ok $? "and says so"

# --backend
gt-selfplay $net --games 1 --backend tpu >/dev/null 2>"$T/err"
is $? 2 "--backend tpu: exit 2"
gt-selfplay $net --games 2 --backend cpu -v >"$T/cpu" 2>"$T/err"
ok $? "--backend cpu"
grep -q "backend cpu" "$T/err"
ok $? "-v says the backend"
gt-selfplay $net --games 2 --backend auto -v >"$T/auto" 2>"$T/err"
ok $? "--backend auto"
grep -Eq "backend (cpu|cuda)" "$T/err"
ok $? "-v says which one auto chose"
if grep -q "backend cpu" "$T/err"; then
	cmp -s "$T/cpu" "$T/auto"
	ok $? "auto on cpu: the same games"
	gt-selfplay $net --games 1 --backend cuda >"$T/out" 2>"$T/err"
	is $? 1 "--backend cuda without a device: exit 1"
	grep -qi "^gt-selfplay: .*cuda" "$T/err"
	ok $? "with a message naming it"
fi
done_testing
