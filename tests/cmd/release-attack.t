#!/bin/sh
# A store that lies about the release pointer (issue 17, items 6 and 7),
# written as the attack: the store, served by a lying HTTP server on
# 127.0.0.1 (tests/py/lying_store.py), rewrites the self-play settings of
# a signed latest.json, then puts an older signed latest.json back. The
# worker and gt-sync latest --verify-key refuse both, say so in one line,
# and the worker goes on with the network and settings it has.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v openssl >/dev/null || skip_all "openssl(1) is not installed (needed to make Ed25519 keys)"
. "$GT_SRC/tests/cmd/lying.sh"
unset GT_STORE_TOKEN GT_STORE_INSECURE_TOKEN
R=$T/root
mkdir -p "$R"
ed25519_key "$T/key.pem" "$T/pub.pem"
ok $? "Ed25519 keys made with openssl"
gt-model init b1c8 --series run1 --seed 1 -o "$T/net1.bin.gz"
gt-model init b1c8 --series run1 --seed 2 -o "$T/net2.bin.gz"
printf '{"from_step":0,"board_size":5,"komi":0.5,"visits":2,"cheap_visits":1,"max_moves":30}\n' > "$T/curr"
win='{"games":10,"wins":9,"draws":0,"losses":1,"elo":380}'
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[2])).get(sys.argv[1]))' "$1" "$2"; }
release() { # release NET: a signed release of $T/NET.bin.gz into the store
	echo "$win" | gt-publish --candidate "$T/$1.bin.gz" --name "$1.bin.gz" --store "$R" \
		--curriculum "$T/curr" --sign-key "$T/key.pem" > /dev/null
}
release net1; ok $? "release 1, signed"
is "$(field seq "$R/models/latest.json")" 1 "has sequence number 1"
cp "$R/models/latest.json" "$T/old.json"
release net2; ok $? "release 2, signed"
is "$(field seq "$R/models/latest.json")" 2 "has sequence number 2"
cp "$R/models/latest.json" "$T/new.json"
grep -q '"seq":2' "$R/models/history.ndjson"; ok $? "the history records the sequence number"

lying_serve store "$R" || skip_all "the lying server did not start"
S=$URL/plain
V="--verify-key $T/pub.pem"

# the worker installs release 2 and plays with its settings
W=$T/w
mkdir -p "$W"
printf 'store = %s\nworker = alice\nwork_dir = %s\ngames_per_batch = 1\nretries = 0\nretry_wait = 1\nverify_key = %s\n' \
	"$S" "$W" "$T/pub.pem" > "$T/w.cfg"
"$GT_SRC/share/gt/worker" -c "$T/w.cfg" --once; ok $? "the worker plays a batch"
is "$(cat "$W/model.current")" "$W/models/net2.bin.gz" "with release 2"
is "$(cat "$W/selfplay.args")" "--board-size 5 --komi 0.5 --visits 2 --cheap-visits 1 --max-moves 30" \
	"and its settings"
is "$(field seq "$W/models/.latest.json")" 2 "sequence 2 is kept as installed"

# --- item 6: the settings of a signed pointer rewritten ---
python3 - "$T/new.json" "$R/models/latest.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["selfplay"].update(board_size=19, komi=-300, visits=100000)
open(sys.argv[2], "w").write(json.dumps(j) + "\n")
PY
gt-sync latest $V --selfplay-args "$T/args" "$S" "$T/inst" > /dev/null 2>"$T/err"
is $? 1 "a signed pointer with rewritten settings is refused"
is "$(wc -l < "$T/err")" 1 "in one line"
grep -q "signature does not verify" "$T/err"; ok $? "saying the signature does not verify"
[ ! -e "$T/args" ] && [ ! -e "$T/inst" ]; ok $? "no settings written, nothing installed"
"$GT_SRC/share/gt/worker" -c "$T/w.cfg" --once; ok $? "the worker goes on"
grep -q "gt-sync: .*signature does not verify" "$W/worker.log"; ok $? "its log says why"
grep -q "cannot fetch the newest network; playing with net2.bin.gz" "$W/worker.log"; ok $? "and that it keeps its network"
is "$(grep -c 'board-size 19' "$W/worker.log"):$(grep -c 'playing 1 games with net2.bin.gz (--board-size 5 ' "$W/worker.log")" \
	"0:2" "it plays with the signed settings, not the rewritten ones"

# --- item 7: an older signed pointer put back ---
cp "$T/old.json" "$R/models/latest.json"
gt-sync latest $V "$S" "$W/models" > /dev/null 2>"$T/err"
is $? 1 "an older signed pointer served after a newer one is refused"
is "$(wc -l < "$T/err")" 1 "in one line"
grep -q 'sequence 1 is older than the 2 installed ("net2.bin.gz")' "$T/err"; ok $? "that says so: $(cat "$T/err")"
"$GT_SRC/share/gt/worker" -c "$T/w.cfg" --once; ok $? "the worker goes on"
is "$(cat "$W/model.current")" "$W/models/net2.bin.gz" "with release 2"
[ -f "$W/models/net2.bin.gz" ] && [ ! -e "$W/models/net1.bin.gz" ]; ok $? "release 1 is not installed"
is "$(grep -c 'playing 1 games with net2.bin.gz' "$W/worker.log")" 3 "every batch was played with release 2"
gt-sync latest "$S" "$W/models" > /dev/null 2>&1
is $? 1 "without --verify-key the older sequence is refused too"

# the publisher moves on: the next release is taken
cp "$T/new.json" "$R/models/latest.json"
gt-model init b1c8 --series run1 --seed 3 -o "$T/net3.bin.gz"
release net3; ok $? "release 3"
P=$(gt-sync latest $V "$S" "$W/models" 2>"$T/err"); ok $? "a newer signed pointer is taken"
is "$P:$(field seq "$W/models/.latest.json")" "$W/models/net3.bin.gz:3" "release 3 installed, sequence 3 kept"
done_testing
