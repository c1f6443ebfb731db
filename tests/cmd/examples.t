#!/bin/sh
# share/gt/examples/9x9-from-zero and 9x9-levers at a tiny size: the
# results of every generation, the chained Elo, the CPU-hours, the table
# and plot, a run killed at a random moment and started again, and a lever
# compared with the base run.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-train >/dev/null && command -v gt-elo >/dev/null ||
	skip_all "gt-train or gt-elo is not built"
X=$GT_SRC/share/gt/examples
cat > "$T/tiny.cfg" <<'CFG'
arch = b1c8
games = 8
visits = 16
cheap_visits = 8
steps = 20
batch = 32
match_games = 4
match_visits = 8
gen1_games = 4
gnugo_every = 2
gnugo_games = 2
precision = int8
# a comment, and the last value of a key wins
steps = 30
CFG
R=$T/run
sh "$X/9x9-from-zero" -d "$R" -c "$T/tiny.cfg" -g 2 > "$T/out" 2> "$T/err"
ok $? "two generations"
is "$(grep '^steps = ' "$R/recipe.cfg" | tail -n 1)" "steps = 30" "the settings are kept in recipe.cfg, the file's last value last"
grep -q '^precision = int8$' "$R/worker.cfg" && [ "$(grep -c 'playing 8 games with .*, precision int8$' "$R/worker/worker.log")" = 2 ]
ok $? "precision: the worker's, every batch played with it"
is "$(sed 's/^{"generation":\([0-9]*\),.*/\1/' "$R/results.ndjson" | paste -sd, -)" "1,2" "results.ndjson: generations 1 and 2"
is "$(sed -n 's/.*"steps":\([0-9]*\),.*/\1/p' "$R/results.ndjson" | paste -sd, -)" "30,60" "30 steps a generation"
awk '{ c = $0; sub(/.*"cpu_s":/, "", c); sub(/,.*/, "", c)
	h = $0; sub(/.*"cpu_hours":/, "", h); sub(/,.*/, "", h)
	p = $0; sub(/.*"play_cpu_s":/, "", p); sub(/,.*/, "", p)
	t = $0; sub(/.*"train_cpu_s":/, "", t); sub(/,.*/, "", t)
	s += p + t
	if (!(p >= 0 && t > 0) || c - s > 0.11 || s - c > 0.11 || h - c / 3600 > 0.00006 || c / 3600 - h > 0.00006) exit 1 }' "$R/results.ndjson"
ok $? "CPU seconds and hours: the running sum of self-play and training CPU seconds"
# the chain is the sum of the matches against the generation before, an
# unbounded result counted at its finite bound, or 0 when that bound is on
# the other side of 0
awk '{ e = $0; sub(/.*"elo_prev":/, "", e); sub(/,.*/, "", e)
	if (e == "null") { l = $0; sub(/.*"elo_prev_ci95":\[/, "", l); split(l, a, /[],]/)
		e = a[1] == "null" ? (a[2] == "null" || a[2] > 0 ? 0 : a[2]) : (a[1] < 0 ? 0 : a[1]) }
	s += e; c = $0; sub(/.*"chain":/, "", c); sub(/,.*/, "", c)
	if (c - s > 0.11 || s - c > 0.11) exit 1 }' "$R/results.ndjson"
ok $? "chain: the sum of the Elo against the generation before"
grep -q '^{"generation":1,.*"elo_prev_ci95":' "$R/results.ndjson" && ! grep -q '^{"generation":1,.*"elo_gen1"' "$R/results.ndjson"
ok $? "generation 1: matched against the uniform evaluator, not against itself"
grep -q '^{"generation":2,.*"elo_gen1":.*"elo_gen1_ci95":\[' "$R/results.ndjson"
ok $? "generation 2: matched against generation 1"
cmp -s "$R/eval/0002/prev.json" "$R/eval/0002/gen1.json"; ok $? "generation 2: one match for the one before and generation 1"
is "$(grep -c '^{"generation":1,.*"gnugo_games":2' "$R/results.ndjson")" \
	"$({ command -v gnugo || [ -x /usr/games/gnugo ]; } >/dev/null && echo 1 || echo 0)" "GNU Go at generation 1 when it is installed"
if [ -s "$R/eval/0001/gnugo.ndjson" ]; then
	want=$(/usr/bin/python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
print("%+.1f" % (sum(-r["score"] if r["black"].startswith("gtp:") else r["score"] for r in m) / len(m)))' "$R/eval/0001/gnugo.ndjson")
	is "$(sed -n 2p "$R/table.txt" | sed 's/.*, //')" "$want" "the mean margin against GNU Go in the table, from its records"
fi
if [ -s "$R/eval/0002/gen1.ndjson" ]; then
	is "$(wc -l < "$R/eval/0002/gen1.ndjson")" 4 "the match's game records kept"
fi
is "$(sed 1d "$R/table.txt" | awk '{ print $1 }' | paste -sd, -)" "1,2" "table.txt: a line a generation"
if command -v gnuplot >/dev/null; then
	is "$(od -An -tx1 -N4 "$R/elo.png" | tr -d ' ')" 89504e47 "elo.png is a PNG"
fi
sh "$X/9x9-from-zero" -d "$R" -c "$T/tiny.cfg" -g 2 > /dev/null 2> "$T/err2"
is $? 2 "-c on a run that has its settings: refused"
printf 'steps = 30\nstep = 30\n' > "$T/bad.cfg"
sh "$X/9x9-from-zero" -d "$T/new" -c "$T/bad.cfg" > /dev/null 2> "$T/err5"
is $? 2 "an unknown key: refused"
grep -q 'unknown key step' "$T/err5" && [ ! -e "$T/new/recipe.cfg" ]; ok $? "named, and the run stays new (no recipe.cfg)"
sh "$X/9x9-from-zero" -d "$T/new" -g abc > /dev/null 2>&1; is $? 2 "-g abc: refused"
sh "$X/9x9-from-zero" -d "$T/new" --cpu-hours abc > /dev/null 2>&1; is $? 2 "--cpu-hours abc: refused"
sh "$X/9x9-from-zero" -d "$T/none" --plot > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$T/none" ]; ok $? "--plot of no run: refused, nothing created"
printf 'visits=16\n  cheap_visits   =   8\n' > "$T/spaced.cfg"
sh "$X/9x9-from-zero" -d "$T/sp" -c "$T/spaced.cfg" -g 1 --cpu-hours 0 > /dev/null 2>&1
grep -q '^visits = 16$' "$T/sp/recipe.cfg" && grep -q '^cheap_visits = 8$' "$T/sp/recipe.cfg"
ok $? "recipe.cfg: the -c file's lines written as key = value"
grep -q '^precision = fp32$' "$T/sp/recipe.cfg"; ok $? "recipe.cfg: precision fp32 by default"
sh "$X/9x9-from-zero" -d "$R" --plot > "$T/plot" 2>&1
cmp -s "$T/plot" "$R/table.txt"; ok $? "--plot prints the table again"

# killed at a random moment, started again: the generations stay whole
n=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
d=$(awk -v n="$n" 'BEGIN { printf "%.2f", 0.3 + (n % 200) / 100 }')
setsid sh "$X/9x9-from-zero" -d "$R" -g 4 > /dev/null 2>&1 &
p=$!
sleep "$d"
kill -KILL -- -"$p" 2>/dev/null
wait "$p" 2>/dev/null
diag "killed after $d s"
sh "$X/9x9-from-zero" -d "$R" -g 4 > /dev/null 2> "$T/err3"
ok $? "started again after SIGKILL"
is "$(sed 's/^{"generation":\([0-9]*\),.*/\1/' "$R/results.ndjson" | paste -sd, -)" "1,2,3,4" "generations 1..4, each once"
is "$(sed 's/^{"generation":\([0-9]*\),.*/\1/' "$R/trainer/generations.ndjson" | paste -sd, -)" "1,2,3,4" "the trainer's generations 1..4, each once"
is "$(jq -r .games "$R/trainer/generations.ndjson" | sort -u)" 8 "each trained on the 8 games of its self-play, none played twice"
for g in 1 2 3 4; do
	gt-model describe "$R/eval/000$g/z9-gen$g.bin.gz" > /dev/null 2>&1 || break
done
ok $? "every generation's network loads"

# a results line removed: measured again from the kept match summaries
cp "$R/results.ndjson" "$T/results.before"
sed -i '$d' "$R/results.ndjson"
sh "$X/9x9-from-zero" -d "$R" -g 4 > /dev/null 2> "$T/err4"
cmp -s "$R/results.ndjson" "$T/results.before"; ok $? "a removed results line is written again, the same"
grep -q "generation 4: .* games against" "$T/err4"; is $? 1 "without playing its matches again"

# a lever against the base run, at equal CPU-hours
L=$T/lev
sh "$X/9x9-levers" -b "$R" -d "$L" --cpu-hours 0.00001 --games 4 big > "$T/lout" 2> "$T/lerr"
ok $? "9x9-levers big"
grep -q '^arch = b4c32$' "$L/big.cfg"; ok $? "the lever's run: the base's settings with b4c32"
grep -q '"lever":"big","setting":"arch = b4c32","generation":1,' "$L/levers.ndjson"
ok $? "levers.ndjson: the big network's run stopped after generation 1 (CPU-hours reached)"
awk '{ w = $0; sub(/.*"wins":/, "", w); sub(/,.*/, "", w); d = $0; sub(/.*"draws":/, "", d); sub(/,.*/, "", d)
	l = $0; sub(/.*"losses":/, "", l); sub(/,.*/, "", l); exit !(w + d + l == 4) }' "$L/levers.ndjson"
ok $? "4 games against the base's network"
grep -q '^big  *arch = b4c32 ' "$T/lout"; ok $? "the table on stdout"
sh "$X/9x9-levers" -b "$R" -d "$L" --cpu-hours 0.00001 --games 4 big > "$T/lout2" 2>&1
cmp -s "$T/lout" "$T/lout2" && [ "$(wc -l < "$L/levers.ndjson")" = 1 ]; ok $? "run again: nothing played twice"
sh "$X/9x9-levers" -b "$R" -d "$T/lev2" visits2 bogus > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$T/lev2/visits2" ]; ok $? "an unknown lever: refused before any lever runs"
# a lever's run stopped before its CPU-hours (TERM to its 9x9-from-zero,
# which ends after a stop as a finished run does): no match on a half run;
# started again, it goes on
sh "$X/9x9-levers" -b "$R" -d "$T/lev4" --cpu-hours 1 --games 4 small > "$T/sout" 2> "$T/serr" &
lp=$!
while [ ! -s "$T/lev4/small/results.ndjson" ] && kill -0 "$lp" 2>/dev/null; do sleep 0.05; done
# the 9x9-levers' child running the lever (not a subshell of it)
sent=0
for f in /proc/[0-9]*/cmdline; do
	q=${f#/proc/}; q=${q%/cmdline}
	{ tr '\0' ' ' < "$f"; } 2>/dev/null | grep -qF "9x9-from-zero -d $T/lev4/small " &&
		grep -q "^PPid:[[:space:]]*$lp\$" "/proc/$q/status" 2>/dev/null && kill -TERM "$q" && sent=1
done
[ $sent = 1 ] || kill -TERM "$lp"
wait "$lp"; ok $? "9x9-levers: its lever's run stopped (TERM sent: $sent)"
grep -q "small: stopped at generation [0-9]*, [0-9.]* of 1 CPU-hours: run again to go on" "$T/serr"
ok $? "it says where the lever stopped"
[ ! -e "$T/lev4/small/versus-base.json" ] && ! grep -qs '"lever":"small"' "$T/lev4/levers.ndjson"
ok $? "no match against the base, no line in levers.ndjson"
g=$(tail -n 1 "$T/lev4/small/results.ndjson" | jq .generation)
sh "$X/9x9-levers" -b "$R" -d "$T/lev4" --cpu-hours 0.00001 --games 4 small > /dev/null 2>&1
# (a generation trained when the stop came is measured first: g or g + 1)
g2=$(tail -n 1 "$T/lev4/small/results.ndjson" | jq .generation)
[ "$g2" -ge "$g" ] && [ "$g2" -le $((g + 1)) ] &&
	grep -q "^{\"lever\":\"small\",\"setting\":\"arch = b1c8\",\"generation\":$g2," "$T/lev4/levers.ndjson"
ok $? "started again (its CPU-hours lowered to those it used): its match, at generation $g2 (stopped at $g)"
# the levers that take one out of a base that has it (9x9-strong's ablation)
mkdir -p "$T/sb"
printf '%s\n' "arch = b2c16" "train_options = --lr 1 --ema 0.99 --export ema" "arch = b2c16g1" \
	"grow_arch = b4c32g2p3 b6c64g2" "window_growth = 1" > "$T/sb/recipe.cfg"
sh "$X/9x9-levers" -n -b "$T/sb" -d "$T/lev3" nogpool noema nogrow nowindow fp32 gpool grow6 > "$T/nout" 2>&1
ok $? "9x9-levers -n"
is "$(cat "$T/nout")" "nogpool: arch = b2c16;grow_arch = b4c32 b6c64
noema: train_options = --lr 1
nogrow: grow_arch = 
nowindow: window_growth = 0
fp32: precision = fp32
gpool: arch = b2c16g1
grow6: grow_arch = b4c32g2p3 b6c64g2 b6c64;grow_from = 10 10 40;grow_visits = 16 16 24" "-n: each lever's settings from the base's last values (grow_from 10, grow_visits 16 for the networks before b6c64 where the base has none)"
printf '%s\n' "grow_arch = b4c32" "grow_from = 12 30" "grow_visits = 8" "grow_arch = b4c32g2 b5c48" > "$T/sb/recipe.cfg"
is "$(sh "$X/9x9-levers" -n -b "$T/sb" grow6 2>&1)" "grow6: grow_arch = b4c32g2 b5c48 b6c64;grow_from = 12 30 40;grow_visits = 8 8 24" "-n: grow6 after two grown networks, each keeping its grow_from and grow_visits"
printf '%s\n' "grow_arch = b4c32" "grow_from = 12 30" "grow_arch = " > "$T/sb/recipe.cfg"
is "$(sh "$X/9x9-levers" -n -b "$T/sb" grow6 2>&1)" "grow6: grow_arch = b6c64;grow_from = 40;grow_visits = 24" "-n: grow6 on a base that grows nothing"
sh "$X/9x9-levers" -n -b "$T/sb" nogrow6 > /dev/null 2>&1
[ $? -ne 0 ]; ok $? "-n: nogrow6 on a base that grows nothing is an error"
printf '%s\n' "grow_arch = b4c32 b6c64" "grow_from = 12 40" "grow_visits = 16 24" > "$T/sb/recipe.cfg"
is "$(sh "$X/9x9-levers" -n -b "$T/sb" nogrow6 2>&1)" "nogrow6: grow_arch = b4c32;grow_from = 12;grow_visits = 16" "-n: nogrow6 takes 9x9-strong's b6c64 out"
printf '%s\n' "grow_arch = b4c32g2 b5c48 b6c64" "grow_from = 12" > "$T/sb/recipe.cfg"
is "$(sh "$X/9x9-levers" -n -b "$T/sb" nogrow6 2>&1)" "nogrow6: grow_arch = b4c32g2 b5c48;grow_from = 12 12;grow_visits = 16 16" "-n: nogrow6 keeps the others' grow_from and grow_visits (the base's last word for those it lacks)"
[ ! -e "$T/lev3" ]; ok $? "-n: nothing made or run"
printf '%s\n' "arch = b2c16a" > "$T/sb/recipe.cfg"
is "$(sh "$X/9x9-levers" -n -b "$T/sb" gpool nogpool 2>&1)" "gpool: arch = b2c16g1a
nogpool: arch = b2c16a;grow_arch = " "-n: global pooling put in and taken out before the reply head's a"

# the units mode: two learning units, a unit or the outer process killed
# every second or so, one unit slow
# the growing network and window: b1c8 first, b1c12 trained beside it from
# generation 2 (20 steps first, then `steps`), matched at equal CPU; the
# window grows with the rows played (KataGo's formula, c = window)
cat "$T/tiny.cfg" > "$T/grow.cfg"
cat >> "$T/grow.cfg" <<'CFG'
gnugo_every = 100
window = 100
window_growth = 1
grow_arch = b1c12
grow_from = 2
grow_first_steps = 20
grow_visits = 8
grow_games = 2
CFG
G=$T/grow
sh "$X/9x9-from-zero" -d "$G" -c "$T/grow.cfg" -g 3 > /dev/null 2> "$T/errg"
ok $? "three generations with a growing network"
is "$(jq -r '.generation' "$G/grow.ndjson" 2>/dev/null | head -n 1)" 2 "the larger network's first line at generation 2"
is "$(jq -r 'select(.generation == 2) | "\(.arch) \(.steps) \(.visits) \(.against_visits) \(.match.games)"' "$G/grow.ndjson")" \
	"b1c12 20 8 8 2" "it trained 20 steps and played 2 games at 8 visits against 8"
awk -v g="$(cat "$G/eval/0002/grow.cpu")" '/"generation":2,/ { t = $0; sub(/.*"train_cpu_s":/, "", t); sub(/,.*/, "", t)
	exit !(g > 0 && t >= g) }' "$G/results.ndjson"
ok $? "its CPU counted in the generation's training CPU"
if [ "$(jq -r 'select(.generation == 2) | .switched' "$G/grow.ndjson")" = true ]; then
	is "$(gt-model describe "$G/eval/0003/z9-gen3.bin.gz" | jq -r .arch)" b1c12 "switched: generation 3 is the larger network"
	is "$(cat "$G/grow/switched")" 2 "and the switch is kept"
else
	is "$(gt-model describe "$G/eval/0003/z9-gen3.bin.gz" | jq -r .arch)" b1c8 "not switched: generation 3 is the first network"
	is "$(jq -r 'select(.generation == 3) | .steps' "$G/grow.ndjson")" 50 "and the larger one trained 30 more steps"
fi
# killed in generation 2's switch match (after the larger network's
# training): the next start plays that match, without training it again,
# and counts the training's CPU (a gt-elo first on PATH kills the run's
# process group, started apart with setsid, at the grown network's match)
mkdir -p "$T/wrap"
cat > "$T/wrap/gt-elo" <<EOF
#!/bin/sh
case " \$* " in *" --visits-b "*) [ -e "$T/gk.killed" ] || { : > "$T/gk.killed"; kill -KILL 0; } ;; esac
exec "$GT_BIN/gt-elo" "\$@"
EOF
chmod +x "$T/wrap/gt-elo"
GK=$T/growkill
GT_BIN="$T/wrap:$GT_BIN" setsid sh "$X/9x9-from-zero" -d "$GK" -c "$T/grow.cfg" -g 3 > /dev/null 2>&1 &
p=$!
wait "$p" 2>/dev/null
[ -e "$T/gk.killed" ] && [ ! -s "$GK/grow.ndjson" ] && [ -s "$GK/eval/0002/grow.part" ] && [ ! -e "$GK/eval/0002/grow.cpu" ]
ok $? "killed in generation 2's switch match, its training's CPU kept"
sh "$X/9x9-from-zero" -d "$GK" -g 3 > /dev/null 2> "$T/errgk"
ok $? "started again"
is "$(jq -r 'select(.generation == 2) | "\(.arch) \(.steps) \(.match.games)"' "$GK/grow.ndjson" | paste -sd, -)" "b1c12 20 2" \
	"generation 2's match played at the next start, once, without training again"
grep -q "generation 2: b1c12 trains" "$T/errgk"; is $? 1 "(no training said)"
awk -v g="$(cat "$GK/eval/0002/grow.cpu" 2>/dev/null)" -v p="$(cat "$GK/eval/0002/grow.part")" '/"generation":2,/ {
	t = $0; sub(/.*"train_cpu_s":/, "", t); sub(/,.*/, "", t); f = (g > 0 && g >= p && p >= 0 && t >= g) }
	END { exit !f }' "$GK/results.ndjson"
ok $? "the training's CPU before the kill counted in the generation's"
is "$(sed 's/^{"generation":\([0-9]*\),.*/\1/' "$GK/results.ndjson" | paste -sd, -)" "1,2,3" "generations 1..3, each once"
# two networks grown in turn, switched to at their first match
# (grow_threshold -1): b1c12 from generation 2, then b2c12 from 3
cat "$T/tiny.cfg" > "$T/grow2.cfg"
cat >> "$T/grow2.cfg" <<'CFG'
gnugo_every = 100
grow_arch = b1c12 b2c12
grow_from = 2 3
grow_first_steps = 20
grow_visits = 8
grow_games = 2
grow_threshold = -1
CFG
G2=$T/grow2
sh "$X/9x9-from-zero" -d "$G2" -c "$T/grow2.cfg" -g 4 > /dev/null 2> "$T/errg2"
ok $? "four generations with two networks grown in turn"
is "$(jq -r '"\(.generation) \(.arch) \(.steps) \(.visits) \(.switched)"' "$G2/grow.ndjson" | paste -sd, -)" \
	"2 b1c12 20 8 true,3 b2c12 20 8 true" "b1c12 grown at generation 2, then b2c12 at 3, each switched to"
is "$(cat "$G2/grow/switched") $(cat "$G2/grow2/switched")" "2 3" "each switch kept in its own folder"
is "$(for g in 2 3 4; do gt-model describe "$G2/eval/000$g/z9-gen$g.bin.gz" | jq -r .arch; done | paste -sd' ' -)" \
	"b1c8 b1c12 b2c12" "the networks released: b1c8, then b1c12, then b2c12"
printf 'grow_arch = b1c12\ngrow_from = 2 x\n' > "$T/bad.cfg"
sh "$X/9x9-from-zero" -d "$T/bad" -c "$T/bad.cfg" -g 1 > /dev/null 2> "$T/errb"; is $? 2 "grow_from with a word not a number: refused"
grep -q "grow_from must be numbers" "$T/errb"; ok $? "named"
for bad in "grow_arch = b1c12|grow_visits = 8 8" "grow_arch = b1c12|grow_threshold = 0.5x" "precision = fp16"; do
	rm -rf "$T/bad"; echo "$bad" | tr '|' '\n' > "$T/bad.cfg"
	sh "$X/9x9-from-zero" -d "$T/bad" -c "$T/bad.cfg" -g 1 > /dev/null 2> "$T/errb"; is $? 2 "refused: $bad"
	grep -q "must be" "$T/errb" && [ ! -e "$T/bad/results.ndjson" ]; ok $? "said why, nothing played: $(cat "$T/errb")"
done

rows=$(jq -n '[inputs | select(.generation <= 2) | .rows] | add' "$G/trainer/generations.ndjson")
want=$(/usr/bin/python3 -c '
import sys
n, c = float(sys.argv[1]), 100.0
w = c if n <= c else c * (1 + 0.4 * ((n / c) ** 0.75 - 1) / 0.75)
print(int(max(min(w, n), c)))' "$rows")
is "$(sed -n 's/^window = //p' "$G/trainer.cfg")" "$want" "generation 3's window from $rows rows: KataGo's formula"

command -v jq >/dev/null || { done_testing; exit; }
{ cat "$T/tiny.cfg"; printf 'batch_games = 2\ninner_steps = 5\nquorum = 1\nfault_every = 2\n'; } > "$T/units.cfg"
U=$T/units
sh "$X/9x9-from-zero" -d "$U" -c "$T/units.cfg" --units 2 --faults -g 2 > "$T/uout" 2> "$T/uerr"
ok $? "units mode: two generations"
grep -q '^mode = units$' "$U/recipe.cfg" && grep -q '^units = 2$' "$U/recipe.cfg" && grep -q '^faults = 1$' "$U/recipe.cfg"
ok $? "recipe.cfg: mode = units, units = 2, faults = 1"
is "$(jq -s 'map(.generation) | join(",")' "$U/results.ndjson")" '"1,2"' "results.ndjson: generations 1 and 2"
is "$(jq -s 'map(.train_cpu_s - ((.unit_cpu_s | add) + .outer_cpu_s + .release_cpu_s) | fabs < 0.15) | all' "$U/results.ndjson")" \
	true "training CPU: every unit's, the outer's and the release's"
is "$(jq -s '(map(.play_cpu_s + .train_cpu_s) | add) - .[-1].cpu_s | fabs < 0.2' "$U/results.ndjson")" true \
	"CPU seconds: the running sum of self-play and training"
is "$(jq -s 'map(.steps >= (.generation * 30) and .version > 0) | all' "$U/results.ndjson")" true \
	"each generation's version holds its steps x batch samples and more"
is "$(jq -s 'map(.units | length == 2 and any(.applied > 0 and .bytes_sent > .delta_bytes and .bytes_received > 0)
	and all(.rounds >= .applied and .bytes_sent >= .delta_bytes and .goodput >= 0 and .goodput <= 1)) | all' "$U/units.ndjson")" \
	true "units.ndjson: per unit, rounds, applied deltas, bytes and goodput"
is "$(jq -s 'map(.units[].games) | add' "$U/units.ndjson")" 16 "the units took every game played (8 a generation)"
for g in 1 2; do
	gt-model describe "$U/eval/000$g/z9-gen$g.bin.gz" > /dev/null 2>&1 || break
done
ok $? "every generation's released network loads"
grep -q '^synchronous data-parallel' "$U/units.txt"; ok $? "units.txt: the run's sums, next to data-parallel"
sh "$X/9x9-from-zero" -d "$U" --units 3 -g 2 > /dev/null 2>&1; is $? 2 "--units on a run that has its settings: refused"

# the two runs compared at equal CPU-hours
sh "$X/9x9-versus" -a "$U" -b "$R" -o "$T/vs" --games 2 > "$T/vout" 2> "$T/verr"
ok $? "9x9-versus: the units' run against the trainer's"
is "$(jq '.wins + .draws + .losses' "$T/vs/versus.json")" 2 "two games played"
grep -q '^units (2 units) generation [0-9]* (.* CPU-h) against run (one trainer) generation' "$T/vout"; ok $? "the line on stdout"
[ "$(grep -c '^gen ' "$T/vs/compare.txt")" = 2 ]; ok $? "compare.txt: both tables"
# stopped during self-play, in the two ways a stop reaches it: the run's
# own SIGTERM (the worker finishes its batch) and the worker's second
# SIGTERM (self-play stops now, the games finished wait in pending/)
# playing N G: run to generation N (in the background, as $p) until its
# worker plays G games
playing() {
	_pn=$(grep -c "playing $2 games" "$R/worker/worker.log")
	setsid sh "$X/9x9-from-zero" -d "$R" -g "$1" > /dev/null 2>> "$T/err5" &
	p=$!
	while [ "$(grep -c "playing $2 games" "$R/worker/worker.log")" = "$_pn" ] && kill -0 "$p" 2>/dev/null; do sleep 0.01; done
}
playing 5 8
kill -TERM "$p"
wait "$p"
grep -q 'generation 5: validate' "$T/err5"; is $? 1 "SIGTERM during self-play: the run stops before training"
sh "$X/9x9-from-zero" -d "$R" -g 5 > /dev/null 2>> "$T/err5"
is "$(grep -c 'playing 8 games' "$R/worker/worker.log")" 5 "started again: the batch it finished is not played again"
# generation 6 plays 256 games, 32 at a time: the run and its worker
# stopped once the first games are in (the worker keeps them in pending/)
echo "games = 256" >> "$R/recipe.cfg"
playing 6 256
w=$(pgrep -f "worker -c $R/worker.cfg --once" | head -n 1)
while [ -z "$(cat "$R"/worker/tmp/*.ndjson 2>/dev/null)" ] && kill -0 "$w" 2>/dev/null; do sleep 0.01; done
kill -TERM "$p"; kill -TERM "$w"; sleep 0.05; kill -TERM "$w"
wait "$p"
k=$(sed -n 's/.*: \([0-9]*\) games in .* (stopped)$/\1/p' "$R/worker/worker.log")
[ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -lt 256 ]; ok $? "the worker stopped in its batch, $k games finished"
[ -z "$(ls "$R/worker/pending")" ] && grep -q 'generation 6 plays the rest' "$T/err5"
ok $? "the run stopped, the games in the store, none left in pending/"
sh "$X/9x9-from-zero" -d "$R" -g 6 > /dev/null 2>> "$T/err5"
grep -q "playing $((256 - k)) games" "$R/worker/worker.log"; ok $? "started again: it plays the other $((256 - k))"
is "$(jq -r 'select(.generation >= 5) | "\(.generation) \(.games)"' "$R/trainer/generations.ndjson" | paste -sd, -)" "5 8,6 256" \
	"generations 5 and 6 trained on their 8 and 256 games"
done_testing
