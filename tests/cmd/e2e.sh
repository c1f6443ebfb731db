# e2e.sh: the end-to-end run of tests/cmd/e2e.t and e2e-s3.t, sourced
# after tap.sh: e2e STORE-URL STORE-DIR LABEL runs two workers
# (share/gt/worker --once, alice and bob) and a bad upload (mallory), then
# one trainer generation (share/gt/trainer) against the store, and checks
# the store's files in STORE-DIR; e2e_trainer_cfg writes its trainer.cfg,
# e2e_own_workers runs two workers with accounts of their own.
# store_view URL DIR (the caller's; a
# no-op here) makes DIR show the store where the store is no folder.
WORKER=$GT_SRC/share/gt/worker
TRAINER=$GT_SRC/share/gt/trainer
full=1
command -v gt-train >/dev/null && command -v gt-elo >/dev/null || full=0
[ $full = 1 ] || diag "gt-train or gt-elo is not built: the generation stops before training"
command -v store_view >/dev/null || store_view() { :; }

# e2e_trainer_cfg STORE WORK-DIR SERIES CURRICULUM: a tiny trainer.cfg
e2e_trainer_cfg() {
	cat <<EOF
store = $1
work_dir = $2
series = $3
arch = b1c8
min_games = 6
rows_per_shard = 100000
window = 10000
steps = 4
batch = 16
match_games = 2
match_visits = 4
threshold = -10000
every_steps = 0
curriculum = $4
EOF
}

# e2e_own_workers STORE DIR: workers alice and bob (DIR/NAME.cfg,
# own_folder = 1) play and upload a batch each, as the caller's
# "as NAME command..." runs them (with NAME's account or key); two checks
e2e_own_workers() {
	mkdir -p "$2"
	for _w in alice bob; do
		printf 'store = %s\nworker = %s\nwork_dir = %s\ngames_per_batch = 3\nvisits = 8\ncheap_visits = 4\nretries = 1\nown_folder = 1\n' \
			"$1" "$_w" "$2/$_w" > "$2/$_w.cfg"
		as $_w sh "$WORKER" -c "$2/$_w.cfg" --once 2>"$T/err"; ok $? "$_w's worker plays and uploads a batch"
	done
}

# a batch that fails validation: a record with a wrong komi and a cut line
gt-selfplay --model none --games 1 --visits 8 --board-size 9 --seed 3 --worker mallory 2>/dev/null |
	sed 's/"komi":7/"komi":8/' > "$T/mallory.ndjson"
echo '{"version":1,"moves":' >> "$T/mallory.ndjson"
gzip -c "$T/mallory.ndjson" > "$T/mallory-20261129T000000Z-00000000.ndjson.gz"

e2e() { # STORE-URL STORE-DIR label
	U=$1 SD=$2 L=$3 R=$T/$L
	mkdir -p "$R"
	for w in alice bob; do
		printf 'store = %s\nworker = %s\nwork_dir = %s\ngames_per_batch = 3\nvisits = 8\ncheap_visits = 4\nretries = 1\n' \
			"$U" "$w" "$R/$w" > "$R/$w.cfg"
	done
	sh "$WORKER" -c "$R/alice.cfg" --once 2>"$R/err" & a=$!
	sh "$WORKER" -c "$R/bob.cfg" --once 2>"$R/err" & b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	[ $ra = 0 ] && [ $rb = 0 ]; ok $? "$L: two workers side by side, one batch each"
	gt-sync put "$T/mallory-20261129T000000Z-00000000.ndjson.gz" "$U/games/"; ok $? "$L: and a bad batch"
	store_view "$U" "$SD"
	is "$(ls "$SD/games" | wc -l)" 3 "$L: three batches in the store"
	up=$(cat "$SD"/games/* | zcat | wc -l)
	is "$up" 8 "$L: 8 records uploaded"

	printf '%s\n' '{"from_step":0,"board_size":7,"visits":8,"cheap_visits":4}' > "$R/cur"
	e2e_trainer_cfg "$U" "$R/tr" e2e "$R/cur" > "$R/trainer.cfg"
	sh "$TRAINER" -c "$R/trainer.cfg" 2>"$R/err"
	rc=$?
	store_view "$U" "$SD"
	G=$R/tr/gen/0001
	if [ $full = 1 ]; then
		is $rc 0 "$L: the trainer runs one generation"
	else
		is $rc 1 "$L: the trainer stops at gt-train, which is missing"
	fi
	[ -f "$G/shard.done" ]; ok $? "$L: pulled, validated, augmented and sharded"
	games=$(sed -n 's/.*"games":\([0-9]*\).*/\1/p' "$R/tr/data/manifest" | awk '{ s += $1 } END { print s + 0 }')
	rej=$(wc -l < "$G/rejects.ndjson")
	is "$games+$rej" "6+2" "$L: every uploaded game is in a shard (manifest: $games) or rejected ($rej)"
	is "$(grep -o "\"worker\":[^,]*" "$G/rejects.ndjson" | sort | tr '\n' ' ')" '"worker":"mallory" "worker":null ' "$L: the rejects are mallory's"
	is "$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workers"]; print(" ".join("%s:%d/%d" % (k, v["games"], v["rejected"]) for k, v in sorted(w.items())))' "$SD/stats/contributions.json")" \
		"?:0/1 alice:3/0 bob:3/0 mallory:0/1" "$L: contributions per worker in the store"
	[ $full = 1 ] || return 0
	n=$(sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$SD/models/latest.json")
	case $n in e2e-b1c8-s*) ok 0 "$L: published $n" ;; *) ok 1 "$L: published a network (got '$n')" ;; esac
	grep -q '"selfplay":{"board_size":7,"cheap_visits":4,"visits":8}' "$SD/models/latest.json"; ok $? "$L: with the curriculum's settings"
	grep -q '"reference":"none"' "$R/tr/generations.ndjson"; ok $? "$L: matched against the uniform evaluator"
	ls "$SD"/games/alice-* > "$R/before"
	sh "$WORKER" -c "$R/alice.cfg" --once 2>"$R/err"; ok $? "$L: alice plays the next batch"
	store_view "$U" "$SD"
	grep -q "network $n, settings: --board-size 7 --visits 8 --cheap-visits 4" "$R/alice/worker.log"; ok $? "$L: with the published network and settings"
	# the new batch (names sort by time, then a random part: two batches
	# in one second need not sort in the order they were made)
	last=$(ls "$SD"/games/alice-* | grep -vxF -f "$R/before" | head -1)
	is "$(zcat "$last" | grep -c '"board_size":7')" 3 "$L: its games are 7x7 (the curriculum reached the worker)"
	is "$(zcat "$last" | grep -c "\"model\":\"${n%.bin.gz}\"")" 3 "$L: and name the network"
}

