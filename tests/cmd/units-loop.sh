# units-loop.sh: self-play trained by learning units, the loop of gt(7)
# in mode = units at a tiny size, sourced by tests/cmd/units-loop.t
# (file://), units-loop-http.t (nginx) and units-loop-s3.t (s3://) after
# tap.sh with S (the store URL), SD (its folder on disk) and KEY (a signing
# key, or empty) set; optionally CUR, the file on disk that holds the
# store's diloco/current.json (polled; default SD/diloco/current.json),
# and VIEW, a command run before the checks that read SD (a store whose
# server keeps its objects otherwise copies them into SD).
# Two workers play batches; two units (share/gt/unit -c, each feeding
# itself its share of STORE/games/ and training) and the outer process
# (share/gt/outer -c) run in the background while the release step
# (share/gt/release) releases their versions and the workers play on with
# them. Then: every uploaded game is in one unit's window or in a rejects
# file, never in two; the units' shares are disjoint and cover the store;
# every released network loads (and is signed with KEY); no delta is in
# two versions' ledgers; a worker played with a released outer version.
PY=/usr/bin/python3
$PY -c 'import json' 2>/dev/null || skip_all "no /usr/bin/python3"
command -v jq >/dev/null || skip_all "jq is not installed"
X=$GT_SRC/share/gt
W=$T/tr

printf '%s\n' '{"from_step":0,"board_size":5,"visits":8,"cheap_visits":4,"full_prob":1}' > "$T/cur"
cat > "$T/t.cfg" <<EOF
mode = units
store = $S
work_dir = $W
series = ul
arch = b1c8
rows_per_shard = 40
window = 100000
batch = 16
units = 2
quorum = 2
inner_steps = 4
unit_options = --wait-version 2
outer_options = --grace 0.1 --poll 0.1 --lease-ttl 5
feed_poll = 1
match_games = 2
match_visits = 4
match_board_size = 5
board_size = 5
threshold = 0
every_steps = 1
curriculum = $T/cur
EOF
[ -n "$KEY" ] && echo "sign_key = $KEY" >> "$T/t.cfg"
# the units sign their deltas and the outer process checks them (both
# units of this machine with one key, its public half under each id)
UK=
if command -v openssl >/dev/null && openssl genpkey -algorithm ed25519 -out "$T/unit.pem" 2>/dev/null; then
	UK=$T/unit.pem
	mkdir -p "$T/ukeys"
	openssl pkey -in "$UK" -pubout -out "$T/ukeys/u0.pub" && cp "$T/ukeys/u0.pub" "$T/ukeys/u1.pub"
	printf 'unit_sign_key = %s\nunit_keys = %s\n' "$UK" "$T/ukeys" >> "$T/t.cfg"
else
	echo 'insecure_units = yes' >> "$T/t.cfg"
fi
for w in alice bob; do
	cat > "$T/$w.cfg" <<EOF
store = $S
worker = $w
work_dir = $T/$w
games_per_batch = 3
board_size = 5
visits = 8
cheap_visits = 4
retry_wait = 1
EOF
done
play() { # play N: each worker plays N batches
	for _i in $(seq "$1"); do
		sh "$X/worker" -c "$T/alice.cfg" --once 2>>"$T/w.err" &&
			sh "$X/worker" -c "$T/bob.cfg" --once 2>>"$T/w.err" || return 1
	done
}
ver() { # the store's version, 0 while there is none (or the file is being written)
	_v=$(jq .version "${CUR:-$SD/diloco/current.json}" 2>/dev/null)
	case $_v in '' | *[!0-9]*) echo 0 ;; *) echo "$_v" ;; esac
}
wait_ver() { # wait_ver V: until the store's version is at least V (60 s at most)
	_i=0
	while [ "$(ver)" -lt "$1" ]; do
		[ $_i -ge 600 ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
signed() { # the pointer verifies with the public key (when a key is set)
	[ -z "$KEY" ] || gt-sync latest --verify-key "$KEY.pub" "$S" "$T/vk" >/dev/null 2>>"$T/e"
}

# settings errors
sed 's/^units = 2/units = 0/' "$T/t.cfg" > "$T/bad.cfg"
sh "$X/unit" -c "$T/bad.cfg" 0 2>"$T/e"; is $? 2 "units = 0: exit 2"
sh "$X/unit" -c "$T/t.cfg" 2 2>"$T/e"; is $? 2 "a slot beyond units: exit 2"
grep -q "SLOT must be a number from 0 to 1" "$T/e"; ok $? "saying which slots there are"
sed 's/^mode = units/mode = trainer/' "$T/t.cfg" > "$T/bad.cfg"
sh "$X/release" -c "$T/bad.cfg" 2>"$T/e"; is $? 2 "release with mode = trainer: exit 2"

play 2; ok $? "two workers, two batches each"
# a batch with a record the gate rejects (a wrong result) and a game twice
gt-selfplay --model none --games 1 --visits 8 --cheap-visits 4 --board-size 5 --seed 3 \
	--worker mallory > "$T/m.ndjson" 2>>"$T/e"
sed 's/"result":"[^"]*"/"result":"B+1000"/' "$T/m.ndjson" > "$T/bad.ndjson"
gt-selfplay --model none --games 1 --visits 8 --cheap-visits 4 --board-size 5 --seed 4 \
	--worker mallory > "$T/m.ndjson" 2>>"$T/e"
cat "$T/m.ndjson" "$T/m.ndjson" >> "$T/bad.ndjson"
gzip -c "$T/bad.ndjson" > "$T/mallory-20260101T000000Z-00000000.ndjson.gz"
gt-sync put "$T/mallory-20260101T000000Z-00000000.ndjson.gz" "$S/games/" 2>>"$T/e"; ok $? "a bad batch uploaded"

# the units' feeders alone, once: each takes its share
feed_once() { sh "$X/unit" -c "$T/t.cfg" --once 0 2>>"$T/e" && sh "$X/unit" -c "$T/t.cfg" --once 1 2>>"$T/e"; }
: > "$T/e"
feed_once; ok $? "unit --once: each feeder takes its share"
# the shares split batches by a hash of their names, which carry the time:
# with a handful of batches one share can be empty, so play on (a batch
# each time) until both have one
_i=0
while ! { [ -s "$W/unit-0/data/manifest" ] && [ -s "$W/unit-1/data/manifest" ]; } && [ $_i -lt 12 ]; do
	sh "$X/worker" -c "$T/alice.cfg" --once 2>>"$T/w.err" && feed_once
	_i=$((_i + 1))
done
[ -s "$W/unit-0/data/manifest" ] && [ -s "$W/unit-1/data/manifest" ]; ok $? "both units have shards"

# the whole loop: the outer process and the units in the background, the
# release step and the workers in the foreground
sh "$X/outer" -c "$T/t.cfg" 2>"$T/outer.err" &
OP=$!
sh "$X/unit" -c "$T/t.cfg" 0 2>"$T/u0.err" &
U0=$!
sh "$X/unit" -c "$T/t.cfg" 1 --step-sleep 0.02 2>"$T/u1.err" &
U1=$!
wait_ver 3; ok $? "the units and the outer process make three versions"
sh "$X/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "release: $(tail -n 1 "$W/releases.ndjson" 2>/dev/null | cut -c1-60)"
signed; ok $? "the pointer is signed$([ -z "$KEY" ] && echo " (no key set: nothing to check)")"
v1=$(jq -s '.[-1].version' "$W/releases.ndjson")
play 1; ok $? "the workers play with the released network"
wait_ver $((v1 + 3)); ok $? "three more versions"
sh "$X/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "release again"
signed; ok $? "signed again"
sh "$X/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "a release with nothing new"
play 1; ok $? "the workers play with the newer network"
kill -TERM $U0 $U1 2>/dev/null
for p in $U0 $U1; do wait $p; done
kill -TERM $OP 2>/dev/null
wait $OP
# the last games taken in
sh "$X/unit" -c "$T/t.cfg" --once 0 2>>"$T/e" && sh "$X/unit" -c "$T/t.cfg" --once 1 2>>"$T/e"
ok $? "the feeders take the last games"
eval "${VIEW:-:}"; ok $? "the store's objects in $SD"
! grep -q 'Sanitizer\|runtime error' "$T"/*.err "$W"/*/*.log 2>/dev/null; ok $? "no sanitizer report"
grep -q '"run":"feedtrain"' "$W/unit-0/cpu.ndjson"; ok $? "a unit's CPU line at its exit"
if [ -n "$UK" ]; then
	is "$(grep -c '"decision":"unsigned"' "$W/outer/events.ndjson")" 0 "every delta signed by its unit's key"
	grep -q '"decision":"fresh"' "$W/outer/events.ndjson"; ok $? "and admitted"
else
	ok 0 "# SKIP no openssl: unsigned deltas"
	ok 0 "# SKIP no openssl: unsigned deltas"
fi

# every uploaded game: in one unit's window or in a rejects file
for f in "$SD"/games/*; do zcat "$f" | jq -r .game_id; done | sort -u > "$T/uploaded"
cat "$W"/unit-*/feed/*/admitted | sort > "$T/admitted"
cat "$W"/unit-*/feed/*/rejects.ndjson | jq -r .game_id | sort > "$T/rejected"
is "$(sort -u "$T/admitted" "$T/rejected" | comm -23 "$T/uploaded" - | wc -l)" 0 \
	"every uploaded game ($(wc -l < "$T/uploaded")) was admitted or rejected"
is "$(uniq -d "$T/admitted" | wc -l)" 0 "no game admitted twice ($(wc -l < "$T/admitted") admitted)"
is "$(jq -r .reason "$W"/unit-*/feed/*/rejects.ndjson | sort | paste -sd, -)" "duplicate-id,result" \
	"the rejects: the wrong result and the game the batch held twice"
is "$(cat "$W"/unit-*/pull.state | cut -f1 | sort | uniq -d | wc -l)" 0 "no batch in both units' shares"
is "$(cat "$W"/unit-*/pull.state | cut -f1 | sort | paste -sd' ' -)" \
	"$(ls "$SD/games" | sort | paste -sd' ' -)" "the shares cover every batch"
rows=0
for k in 0 1; do
	# every shard of every cycle is in the manifest, within the window
	n=$(cat "$W"/unit-$k/feed/*/shards.ndjson | wc -l)
	is "$(wc -l < "$W/unit-$k/data/manifest")" "$n" "unit $k: the manifest lists the shards of every cycle ($n)"
	rows=$((rows + $(jq -s 'map(.rows) | add' "$W/unit-$k/data/manifest")))
done
is "$rows" "$(jq -s 'map(.rows) | add' "$W"/unit-*/feeds.ndjson)" "the rows in the windows are the rows the feeders sharded"
# batch is the step of all the units: each trains on batch/units rows a step
is "$(cat "$W"/unit-*/rounds.ndjson | jq -r .samples | sort -u | paste -sd, -)" 32 \
	"every round: inner_steps x batch/units = 4 x 16/2 samples"

# the releases
is "$(jq -s 'map(.version) | . == (sort | unique) and length >= 2' "$W/releases.ndjson")" true "two releases or more, of newer versions each"
bad=0
for name in $(jq -r 'select(.released) | .candidate' "$SD/models/history.ndjson"); do
	gt-model describe "$SD/models/$name" > /dev/null 2>&1 || { bad=$((bad + 1)); diag "$name does not load"; }
	sha=$(sha256sum < "$SD/models/$name" | cut -d' ' -f1)
	grep -q "\"sha256\":\"$sha\"" "$W"/release/v*/pointer.json || { bad=$((bad + 1)); diag "$name is no outer version"; }
done
is "$bad" 0 "every released network loads and is an outer version's network"
name=$(jq -r .name "$SD/models/latest.json")
grep -q "network $name" "$T/alice/worker.log"; ok $? "a worker played with the released version $name"
is "$(zcat "$SD"/games/bob-* | jq -r .board_size | sort -u | paste -sd, -)" 5 "with the curriculum's settings"
sh "$X/release" -c "$T/t.cfg" 2>"$T/e"; ok $? "a release run sums up the units' contributions"
eval "${VIEW:-:}"
is "$(jq '[.workers[].games] | add' "$SD/stats/contributions.json")" "$(wc -l < "$T/admitted")" \
	"contributions.json: the games the units admitted"
is "$(jq '[.workers[].rejected] | add' "$SD/stats/contributions.json")" "$(wc -l < "$T/rejected")" \
	"and the records they rejected"

# the ledgers: no delta applied twice
V=$(ver)
$PY - "$SD/diloco" "$V" >"$T/r" <<'PYEOF'
import json, os, sys
d, V = sys.argv[1], int(sys.argv[2])
seen, dup, missing = set(), 0, 0
for v in range(1, V + 1):
    led = json.load(open(os.path.join(d, "versions", "v%d.json" % v)))
    for x in led["deltas"]:
        k = (x["unit"], x["name"])
        dup += k in seen
        seen.add(k)
        missing += not os.path.exists(os.path.join(d, "deltas", x["unit"], x["name"]))
print(0 if dup == 0 else 1, "no delta in two versions' ledgers (%d applied in %d versions)" % (len(seen), V))
print(0 if missing == 0 else 1, "every applied delta is a stored delta")
print(0 if {u for u, _ in seen} == {"u0", "u1"} else 1, "both units' deltas applied")
PYEOF
while read -r st name; do ok "$st" "$name"; done <"$T/r"
