#!/bin/sh
# share/gt/unit's feeder killed with SIGKILL while it pulls or shards, and
# started again, again and again: no game lost, none twice in the unit's
# window. Then a unit started afresh elsewhere (no work dir) rebuilds its
# window from the newest batches of its share.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v setsid >/dev/null || skip_all "setsid(1) is not installed"
X=$GT_SRC/share/gt
SD=$T/store
S=file://$SD
mkdir -p "$T/fake" "$SD/games"

# forty-eight batches of two games, given to the store two at a time,
# a second apart (listing times)
mkdir -p "$T/pool"
i=0
while [ $i -lt 48 ]; do
	gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 5 \
		--seed $((i + 1)) --worker w$((i % 3)) 2>/dev/null | gzip > "$T/b.gz"
	f=$T/pool/w$((i % 3))-20260101T0000$(printf %02d $i)Z-0000$(printf %04d $i).ndjson.gz
	mv "$T/b.gz" "$f" && touch -d "@$((1767225600 + i))" "$f"
	i=$((i + 1))
done
is "$(ls "$T/pool" | wc -l)" 48 "fixture: forty-eight batches"
more() { # two more batches into the store
	for f in $(ls "$T/pool" | head -n 2); do mv "$T/pool/$f" "$SD/games/"; done
}

cat > "$T/t.cfg" <<EOF
mode = units
store = $S
work_dir = $T/tr
arch = b1c8
rows_per_shard = 30
window = 100000
batch = 16
units = 2
board_size = 5
EOF
# stand-ins for gt-sync pull and gt-shard: the one named by $FAKE_STOP is
# stopped (SIGSTOP) after 0 to 9 ms, its name then written to $FAKE_MARK
# when it was still running; the other runs undisturbed
for c in gt-sync gt-shard; do
	cat > "$T/fake/$c" <<'EOF'
#!/bin/sh
real=$FAKE_REAL/$(basename "$0")
case " $* " in *" pull "*|*" -o "*) ;; *) exec "$real" "$@" ;; esac
[ "$(basename "$0")" = "$FAKE_STOP" ] || exec "$real" "$@"
"$real" "$@" &
p=$!
# (gt-shard is quick: 0 to 4 ms)
n=10; [ "$(basename "$0")" = gt-shard ] && n=5
sleep 0.00$(($(od -An -N1 -tu1 /dev/urandom) % n))
# stopped while it still runs (not a zombie)
kill -STOP $p 2>/dev/null && [ "$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" != Z ] &&
	echo "$(basename "$0")" > "$FAKE_MARK"
wait $p
EOF
	chmod +x "$T/fake/$c"
done
export FAKE_REAL="$GT_BIN" FAKE_MARK="$T/mark"

# unit 0's feeder, killed (the whole process group) at each stop
kills=0 pulls=0 shards=0 tries=0
while [ $tries -lt 60 ] && { [ $pulls -lt 3 ] || [ $shards -lt 3 ]; }; do
	tries=$((tries + 1))
	more
	rm -f "$T/mark"
	# the pulls first, then the shards: a try whose pull is killed shards
	# nothing, and the pool lasts 24 tries
	stop=gt-sync
	[ $pulls -ge 3 ] && stop=gt-shard
	GT_BIN="$T/fake:$GT_BIN" FAKE_STOP=$stop setsid sh "$X/unit" -c "$T/t.cfg" --once 0 2>>"$T/err" &
	up=$!
	_i=0
	while [ ! -s "$T/mark" ] && kill -0 $up 2>/dev/null && [ $_i -lt 200 ]; do sleep 0.05; _i=$((_i + 1)); done
	if [ -s "$T/mark" ]; then
		case $(cat "$T/mark") in gt-sync) pulls=$((pulls + 1)) ;; gt-shard) shards=$((shards + 1)) ;; esac
		kill -KILL -$up 2>/dev/null && kills=$((kills + 1))
	fi
	wait $up 2>/dev/null
done
mv "$T"/pool/* "$SD/games/" 2>/dev/null
diag "$kills kills in $tries tries: $pulls while pulling, $shards while sharding"
[ $pulls -ge 3 ] && [ $shards -ge 3 ]; ok $? "killed at least three times while pulling and three times while sharding"
sh "$X/unit" -c "$T/t.cfg" --once 0 2>>"$T/err"; ok $? "started again without the stand-ins, it finishes"
U=$T/tr/unit-0

share0() { # the batches of share 0 of 2: those in the pull state
	cut -f1 "$U/pull.state" | sort
}
is "$(cut -f2 "$U/pull.state" | sort -u)" ok "every batch of the share pulled"
n=$(share0 | wc -l)
# the share by an independent FNV-1a 64
is "$(ls "$SD/games" | /usr/bin/python3 -c '
import sys
for name in sys.stdin.read().split():
    h = 14695981039346656037
    for b in name.encode():
        h = ((h ^ b) * 1099511628211) % 2**64
    if h % 2 == 0:
        print(name)' | sort | paste -sd' ' -)" "$(share0 | paste -sd' ' -)" \
	"share 0 of 2: the $n batches of the 48 whose FNV-1a 64 of the name is even"
for b in $(share0); do zcat "$SD/games/$b"; done > "$T/share.ndjson"
jq -r .game_id "$T/share.ndjson" | sort > "$T/want"
cat "$U"/feed/*/admitted | sort > "$T/admitted"
is "$(uniq -d "$T/admitted" | wc -l)" 0 "no game admitted twice"
cat "$U"/feed/*/rejects.ndjson 2>/dev/null | jq -r .game_id | sort -u > "$T/rejected"
is "$(comm -3 "$T/want" "$T/admitted" | wc -l)" 0 "every game of the share admitted, none lost ($(wc -l < "$T/admitted"))"
comm -23 "$T/rejected" "$T/admitted" > "$T/lost"
is "$(wc -l < "$T/lost")" 0 "every rejected game was a second copy of an admitted one"
# the rows: a full search each (--full-prob 1), every one in one shard
want=$(jq -n '[inputs | [.positions[] | select(.full_search)] | length] | add' "$T/share.ndjson")
is "$(jq -s 'map(.rows) | add' "$U/data/manifest")" "$want" "the window holds each game's rows once ($want rows)"
is "$(jq -r .file "$U/data/manifest" | sort | uniq -d | wc -l)" 0 "no shard listed twice"
bad=0
for f in $(jq -r .file "$U/data/manifest"); do [ -f "$U/data/$f" ] || bad=$((bad + 1)); done
is "$bad" 0 "every listed shard is there"
is "$(find "$U/data" -name '*.npz' | wc -l)" "$(wc -l < "$U/data/manifest")" "and no shard is unlisted"

# a unit started on a new machine: no pull state, no shards; its window
# (window/units rows) takes the newest batches of its share, in order
rows1=$(jq -s 'map(.rows) | add' "$U/data/manifest")
sed "s|^work_dir = .*|work_dir = $T/new|; s|^window = .*|window = 240|" "$T/t.cfg" > "$T/new.cfg"
sh "$X/unit" -c "$T/new.cfg" --once 0 2>>"$T/err"; ok $? "a new unit 0 elsewhere"
N=$T/new/unit-0
grep -q "a new unit: the newest" "$N/unit.log"; ok $? "$(sed -n 's/.*a new unit: //p' "$N/unit.log")"
newest=$(cut -f1 "$U/pull.state" | while read -r b; do echo "$(stat -c %Y "$SD/games/$b") $b"; done | sort -n | cut -d' ' -f2)
taken=$(grep "	ok$" "$N/pull.state" | cut -f1 | sort)
k=$(echo "$taken" | wc -l)
is "$taken" "$(echo "$newest" | tail -n "$k" | sort)" "it took the $k newest batches of its share"
is "$(grep -c "	old$" "$N/pull.state")" $((n - k)) "and marked the older ones old"
r=$(jq -s 'map(.rows) | add' "$N/data/manifest")
[ "$k" -ge 2 ] && [ "$r" -ge 60 ] && [ "$r" -lt "$rows1" ]; ok $? "its window: $r rows of the 120 it holds (the share has $rows1)"
done_testing
