#!/bin/sh
# katago.sh: gt-selfplay's network evaluations per CPU-second with KataGo's
# g170 b6c96 network on 9x9 and 19x19 (2 threads, both cores), against gt's
# own b6c96 network in the same run; beside KataGo's own `benchmark` with
# the same network when KATAGO=/path/to/katago is given.
# Run by bench/run with GT_BIN and GT_SRC set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
D=${GT_KATAGO_DATA:-$GT_SRC/../shared/data/katago}
K=$D/g170-b6c96-s175395328-d26788732.bin.gz
[ -r "$K" ] || { echo "katago.sh: no $K: skipped"; exit 0; }
[ -x "$GT_BIN/gt-selfplay" ] || { echo "katago.sh: no $GT_BIN/gt-selfplay"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-katago.XXXXXX")
trap 'rm -rf "$d"' EXIT
"$GT_BIN/gt-model" init b6c96 --seed 1 -o "$d/gt-b6c96.bin.gz" || exit 1
# evals per CPU-second of one gt-selfplay run: evals from its --progress
# line (evals/s times seconds), CPU from the child's rusage
cat >"$d/run.py" <<'PY'
import re, resource, subprocess, sys
args = sys.argv[1:]
p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
m = re.findall(r"([0-9.]+) evals/s, batch [0-9.]+, ([0-9.]+) s", p.stderr)
if p.returncode or not m:
    print("nan nan"); sys.exit(0)
rate, wall = float(m[-1][0]), float(m[-1][1])
print("%.0f %.1f" % (rate * wall / cpu, cpu))
PY
for n in 9 19; do
	if [ "$n" = 9 ]; then g=4 v=64; else g=1 v=32; fi
	set -- --games $g --visits $v --cheap-visits $((v / 4)) --board-size $n --max-moves $((n * n / 2)) \
		--threads 2 --parallel-games 4 --seed 3 --progress
	k=$(/usr/bin/python3 "$d/run.py" "$GT_BIN/gt-selfplay" --model "$K" "$@")
	r=$(/usr/bin/python3 "$d/run.py" "$GT_BIN/gt-selfplay" --model "$d/gt-b6c96.bin.gz" "$@")
	echo "$k $r" | awk -v n="$n" '{ printf "katago.sh: gt-selfplay %dx%d, 2 threads: KataGo b6c96 %s evals/CPU-s (%.0f CPU-s), gt b6c96 %s (ratio %.2f)\n", n, n, $1, $2, $3, $1 / $3 }'
done
if [ -n "$KATAGO" ] && [ -x "$KATAGO" ]; then
	# KataGo's own benchmark: same network, 2 search threads, 19x19
	printf 'logToStderr = true\nnumSearchThreads = 2\n' >"$d/k.cfg"
	"$KATAGO" benchmark -model "$K" -config "$d/k.cfg" -v 200 -t 2 2>&1 |
		grep -E 'numSearchThreads|nnEvals|visits/s' | sed 's/^/katago.sh: KataGo benchmark: /'
else
	echo "katago.sh: KataGo's own benchmark: katago is absent (set KATAGO=/path/to/katago)"
fi
