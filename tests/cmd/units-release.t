#!/bin/sh
# share/gt/release killed with SIGKILL between putting a version's network
# into the store and writing models/latest.json: the release before stays
# in force (its pointer, a network that loads), and the next run finishes
# the release. The store is nginx on 127.0.0.1 whose PUT of latest.json
# goes, while a test switch is on, to a listener that never answers.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v setsid >/dev/null || skip_all "setsid(1) is not installed"
nginx_need
PY=/usr/bin/python3
# the listener that takes connections and never answers; it writes a line
# to $T/hole.log for each
$PY - "$T/hole.port" "$T/hole.log" <<'PYEOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open(sys.argv[2], "a") as f:
        f.write("connection\n")
PYEOF
HOLE=$!
trap 'kill $HOLE 2>/dev/null; nginx_stop; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/hole.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# the switch: with $T/store/hole present, a PUT of run1/models/latest.json
# goes to the listener
cp "$NGX/nginx.conf" "$NGX/nginx.conf.orig"
awk -v port="$(cat "$T/hole.port")" -v root="$T/store" '
	/location \/ \{/ && !done { print "\t\tlocation = /run1/models/latest.json {"
		print "\t\t\tset $hole \"\";"
		print "\t\t\tif (-f " root "/hole) { set $hole \"1\"; }"
		print "\t\t\tif ($request_method = PUT) { set $hole \"${hole}p\"; }"
		print "\t\t\tif ($hole = \"1p\") { proxy_pass http://127.0.0.1:" port "; }"
		print "\t\t\tdav_methods PUT;"
		print "\t\t}"
		done = 1 }
	{ print }' "$NGX/nginx.conf.orig" > "$NGX/nginx.conf"
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
S=$NGX_URL/run1
SD=$T/store/run1
mkdir -p "$SD" && chmod 777 "$SD"
unset GT_STORE_TOKEN

# two versions made by gt-outer from one unit's rounds, on shards of a few games
gt-selfplay --model none --games 4 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 5 \
	--seed 1 > "$T/g.ndjson" 2>/dev/null && gt-shard -o "$T/d" "$T/g.ndjson" > /dev/null 2>&1 &&
	gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>/dev/null
ok $? "fixture: shards and a network"
version() { # one more version: gt-outer until it made one, a unit's round
	gt-outer --store "$S" --state "$T/outer" --init "$T/m0.bin.gz" --quorum 1 --grace 0 \
		--poll 0.1 --versions 1 --insecure-units > /dev/null 2>>"$T/err" &
	_o=$!
	gt-unit --store "$S" --data "$T/d" --unit u0 --state "$T/u0.state" --inner-steps 2 --batch 8 \
		--rounds 1 --wait-version 0 > /dev/null 2>>"$T/err"
	wait $_o
}
cat > "$T/t.cfg" <<EOF
mode = units
store = $S
work_dir = $T/tr
series = rel
arch = b1c8
batch = 8
units = 1
match_games = 2
match_visits = 4
match_board_size = 5
threshold = 0
every_steps = 1
EOF
version; ok $? "version 1"
sh "$GT_SRC/share/gt/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "release of version 1"
first=$(jq -r .name "$SD/models/latest.json")
cp "$SD/models/latest.json" "$T/latest.1"
is "$first" rel-b1c8-s2-d16.bin.gz "named by its rows (16) and steps (16 rows / batch 8)"

version; ok $? "version 2"
touch "$T/store/hole"
GT_BIN=$GT_BIN setsid sh "$GT_SRC/share/gt/release" -c "$T/t.cfg" 2>"$T/e" &
rp=$!
i=0
while ! grep -q connection "$T/hole.log" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q connection "$T/hole.log"; ok $? "the release put the network and is writing the pointer"
ls "$SD/models/" | grep -q '^rel-b1c8-s4-d32\.bin\.gz$'; ok $? "version 2's network is in the store"
kill -KILL -$rp
wait $rp 2>/dev/null
cmp -s "$SD/models/latest.json" "$T/latest.1"; ok $? "killed there: latest.json is the release before"
gt-sync latest "$S" "$T/inst" > "$T/p" 2>"$T/e"; ok $? "which a worker fetches (a network that loads)"
is "$(basename "$(cat "$T/p")")" "$first" "and it is version 1's"
is "$(jq -s 'length' "$T/tr/releases.ndjson")" 1 "the release of version 2 is not finished"

rm -f "$T/store/hole"
sh "$GT_SRC/share/gt/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "the next run"
is "$(jq -r .name "$SD/models/latest.json")" rel-b1c8-s4-d32.bin.gz "releases version 2"
is "$(grep -c 'version 2: match$' "$T/tr/release/release.log")" 1 "going on at the step it was in (no second match)"
is "$(jq -s 'map(.version) | join(",")' "$T/tr/releases.ndjson")" '"1,2"' "releases.ndjson: versions 1 and 2"
gt-sync latest "$S" "$T/inst" > "$T/p" 2>"$T/e" && gt-model describe "$(cat "$T/p")" > /dev/null 2>&1
ok $? "the released network loads"
done_testing
