#!/bin/sh
# gt-shard killed: SIGKILL at random moments of runs over many records never
# leaves a shard numpy cannot read nor a manifest line without its file;
# SIGTERM turns what is buffered into one complete shard.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
PY=/usr/bin/python3
H="$GT_SRC/tests/shard_check.py"
$PY -c 'import numpy' 2>/dev/null || skip_all "no numpy for /usr/bin/python3"

$PY "$H" games 150 11 >"$T/g.ndjson"
full=$($PY -c 'import json,sys; print(sum(p["full_search"] for l in open(sys.argv[1]) for p in json.loads(l)["positions"]))' "$T/g.ndjson")

# SIGKILL: 6 runs into one directory, each killed after 0..0.4 s
seed=$$
bad=0
for i in 1 2 3 4 5 6; do
	gt-shard -o "$T/k" --rows 300 --seed $i "$T/g.ndjson" >/dev/null 2>&1 &
	pid=$!
	seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
	sleep "0.$(printf %03d $(( seed % 400 )))"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	r=$($PY "$H" files "$T/k" 2>&1) || { bad=1; diag "run $i: $r"; }
done
ok $bad "6 runs killed at random: every shard loads, every manifest line has its file, sha256 and rows match"
diag "$($PY "$H" files "$T/k")"
# the next run removes the dead runs' temporary files and completes
gt-shard -o "$T/k" --rows 300 "$T/g.ndjson" >/dev/null 2>"$T/err"; is $? 0 "a run after the kills completes"
is "$(ls -A "$T/k" "$T/k/run_000" | grep -c '\.tmp\.')" 0 "no temporary file left"
r=$($PY "$H" check "$T/k" 2>&1); ok $? "manifest and shards check after the kills: $r"

# SIGTERM while waiting for more input: one complete shard of every row read
mkfifo "$T/fifo"
gt-shard -o "$T/t" --rows 1000000 <"$T/fifo" >"$T/out" 2>"$T/err" &
pid=$!
{ cat "$T/g.ndjson"; : >"$T/fed"; sleep 30; } >"$T/fifo" &
feeder=$!
# wait until everything is written and gt-shard blocks on the empty pipe
i=0 blocked=0
while [ $i -lt 100 ] && [ $blocked -lt 3 ]; do
	sleep 0.1
	i=$((i + 1))
	[ -e "$T/fed" ] || continue
	if grep -q pipe_read "/proc/$pid/wchan" 2>/dev/null; then
		blocked=$((blocked + 1))
	elif ! grep -q . "/proc/$pid/wchan" 2>/dev/null; then
		sleep 2; blocked=3 # no wchan here: give it time
	else
		blocked=0
	fi
done
kill -TERM $pid
wait $pid; st=$?
kill $feeder 2>/dev/null
is $st 0 "SIGTERM: exit 0"
grep -q "stopped by a signal" "$T/err"; ok $? "SIGTERM: says so"
# the records read so far (the reader may hold the tail of a pipe in its
# buffer): the shard has exactly the rows of the first G games
g=$(sed -n 's/.*stopped by a signal: \([0-9]*\) games.*/\1/p' "$T/err")
want=$($PY -c 'import json,sys; print(sum(p["full_search"] for l in open(sys.argv[1]).readlines()[:int(sys.argv[2])] for p in json.loads(l)["positions"]))' "$T/g.ndjson" "${g:-0}")
[ "${g:-0}" -ge 100 ]; ok $? "SIGTERM: most games read ($g of 150)"
is "$($PY "$H" check "$T/t" 2>&1)" "shards=1 rows=$want games=$g" "SIGTERM: one complete shard with every row of the games read"
done_testing
