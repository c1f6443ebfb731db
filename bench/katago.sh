#!/bin/sh
# katago.sh: gt-selfplay's network evaluations per CPU-second with KataGo's
# g170 b6c96 network on 9x9 and 19x19 (2 threads, both cores), against gt's
# own b6c96 network in the same run; beside KataGo's own `benchmark` with
# the same network when KATAGO=/path/to/katago is given (KataGo's
# benchmark, 2, 8 and 16 search threads, 200 visits, the same board size),
# and `katago selfplay` with the same games in flight and 4 times as many
# (as many games in all as in flight),
# the same visits, cheap visits and move limit as gt-selfplay's when
# KATAGO_SELFPLAY_CFG names KataGo's own selfplay config (its source's
# cpp/configs/training/selfplay1.cfg, overridden key by key below: one
# board size, komi 7, no forks, handicaps or side positions (gt's
# evaluations include its cache's hits, KataGo's rows do not); both cores as
# 2 NN server threads; network rows per CPU-second from its "Final NN
# rows" line), each side per CPU-second, KATAGO_BENCH_ROUNDS (3) rounds
# alternating; and
# gt-selfplay --precision bf16 and int8 with both networks where the CPU
# runs them (AMX, AVX512-BF16, AVX512-VNNI: the kernels that -v names are
# printed first), and where they run on AMX tiles, the same with GT_NO_AMX=1
# (the AVX-512 kernels of a CPU without AMX), and where int8 runs by VNNI,
# int8 with GT_NO_AMX=1 GT_NO_VNNI=1 (the avx2 kernel of a CPU without
# VNNI); float32 with GT_CONV=im2col, GT_CONV=winograd (gt's own
# convolutions) and GT_CONV=onednn beside the automatic choice, with
# KataGo's network.
# Run by bench/run with GT_BIN and GT_SRC set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
D=${GT_KATAGO_DATA:-$GT_SRC/../shared/data/katago}
K=$D/g170-b6c96-s175395328-d26788732.bin.gz
[ -r "$K" ] || { echo "katago.sh: no $K: skipped"; exit 0; }
[ -x "$GT_BIN/gt-selfplay" ] || { echo "katago.sh: no $GT_BIN/gt-selfplay"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-katago.XXXXXX")
trap 'rm -rf "$d"' EXIT
"$GT_BIN/gt-model" init b6c96 --seed 1 -o "$d/gt-b6c96.bin.gz" || exit 1
# evals per CPU-second of one run (CPU from the child's rusage): gt
# (gt-selfplay: evals/s and seconds of its last --progress line, stderr) or
# kg (KataGo's benchmark: its last nnEvals/s and secs, stdout and stderr)
cat >"$d/run.py" <<'PY'
import re, resource, subprocess, sys
kind, args = sys.argv[1], sys.argv[2:]
p = subprocess.run(args, stdout=subprocess.DEVNULL if kind == "gt" else subprocess.PIPE,
                   stderr=subprocess.PIPE if kind == "gt" else subprocess.STDOUT, text=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
if kind == "ks":
    # katago selfplay: the network rows of the whole run
    m = re.findall(r"Final NN rows: ([0-9]+)", p.stdout)
    if p.returncode or not m:
        print("nan nan"); sys.exit(0)
    print("%.0f %.1f" % (int(m[-1]) / cpu, cpu)); sys.exit(0)
pat = r"([0-9.]+) evals/s, batch [0-9.]+, ([0-9.]+) s" if kind == "gt" else r"nnEvals/s = ([0-9.]+) .*?\(([0-9.]+) secs\)"
m = re.findall(pat, p.stderr if kind == "gt" else p.stdout)
if p.returncode or not m:
    print("nan nan"); sys.exit(0)
rate, wall = float(m[-1][0]), float(m[-1][1])
print("%.0f %.1f" % (rate * wall / cpu, cpu))
PY
kg=
if [ -n "$KATAGO" ] && [ -x "$KATAGO" ]; then
	kg=$KATAGO
	printf 'logToStderr = true\nnumSearchThreads = 2\n' >"$d/k.cfg"
else
	echo "katago.sh: KataGo's own benchmark: katago is absent (set KATAGO=/path/to/katago)"
fi
ks=
if [ -n "$kg" ] && [ -n "$KATAGO_SELFPLAY_CFG" ] && [ -r "$KATAGO_SELFPLAY_CFG" ]; then
	ks=$KATAGO_SELFPLAY_CFG
	mkdir -p "$d/models/g170" && ln -s "$(cd "$(dirname "$K")" && pwd)/$(basename "$K")" "$d/models/g170/model.bin.gz"
elif [ -n "$kg" ]; then
	echo "katago.sh: katago selfplay: no KATAGO_SELFPLAY_CFG (KataGo's cpp/configs/training/selfplay1.cfg)"
fi
# kscfg N GAMES VISITS MAXMOVES: KataGo's selfplay config with gt-selfplay's
# settings on stdout (each key replaced where it is, added where absent)
kscfg() {
	sed 's/#.*//' "$ks" | awk -v o="bSizes=$1;bSizeRelProbs=1;allowRectangleProb=0;numGameThreads=$2;maxVisits=$3;cheapSearchVisits=$(($3 / 4));cheapSearchProb=0.75;maxMovesPerGame=$4;nnMaxBatchSize=$(($2 * 2));numNNServerThreadsPerModel=2;numSearchThreads=1;komiAuto=False;komiMean=7;komiStdev=0;komiBigStdevProb=0;handicapProb=0;sekiForkHackProb=0;reduceVisits=false;estimateLeadProb=0;sidePositionProb=0;earlyForkGameProb=0;forkGameProb=0;normalAsymmetricPlayoutProb=0;logToStdout=true;logGamesEvery=100000" '
BEGIN { n = split(o, kv, ";"); for (i = 1; i <= n; i++) { split(kv[i], p, "="); ov[p[1]] = p[2] } }
/^[ \t]*$/ { next }
{ k = $1; sub(/[ \t]*=.*/, "", k); if (k in ov) { print k " = " ov[k]; seen[k] = 1 } else print }
END { for (k in ov) if (!(k in seen)) print k " = " ov[k] }'
}
# kgames ks|kt: KataGo's self-play games in flight, g as gt's or 4 g, and
# as many in all (KataGo starts no more than -max-games-total)
kgames() { if [ "$1" = kt ]; then echo $((4 * g)); else echo "$g"; fi; }
# min/median/max of a file of numbers
mmm() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR]; else printf "-" }'; }
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
# the ratio of the medians of two files
ratio() { echo "$(med "$1") $(med "$2")" | awk '{ printf "%.2f", $1 / $2 }'; }
rounds=${KATAGO_BENCH_ROUNDS:-3}
# bf16 and int8 (gt-selfplay --precision P) where this CPU runs them
lowp=
for p in bf16 int8; do
	"$GT_BIN/gt-selfplay" --model "$K" --games 1 --visits 1 --max-moves 1 --precision $p 2>&1 \
		>/dev/null | grep -q "not $p" || lowp="$lowp $p"
done
# kernel P: the kernel gt-selfplay names for precision P (in this environment)
kernel() {
	"$GT_BIN/gt-selfplay" --model "$K" --games 1 --visits 1 --max-moves 1 --precision "$1" -v 2>&1 \
		>/dev/null | sed -n 's/.*: precision //p'
}
# where P runs on AMX tiles, P-noamx is P with GT_NO_AMX=1 (the AVX-512
# kernels that a CPU without AMX runs), measured beside it
noamx=
for p in $lowp; do
	k=$(kernel $p)
	echo "katago.sh: $p: $k"
	case $k in *"kernel amx-"*)
		noamx="$noamx $p"
		echo "katago.sh: $p with GT_NO_AMX=1: $(export GT_NO_AMX=1; kernel $p)" ;;
	esac
done
# where int8 runs by VNNI (or tiles), novnni measures the avx2 kernel beside it
novnni=
case " $lowp " in *" int8 "*)
	case $(kernel int8) in *"kernel avx2"*) ;; *)
		novnni=int8
		echo "katago.sh: int8 with GT_NO_AMX=1 GT_NO_VNNI=1: $(export GT_NO_AMX=1 GT_NO_VNNI=1; kernel int8)" ;;
	esac ;;
esac
for n in 9 19; do
	# gt-selfplay as it runs: several games in flight (batches of about 4
	# and 7 positions)
	if [ "$n" = 9 ]; then g=4 v=64 mm=40; else g=8 v=32 mm=60; fi
	set -- --games $g --visits $v --cheap-visits $((v / 4)) --board-size $n --max-moves $mm \
		--threads 2 --parallel-games $g --seed 3 --progress
	: > "$d/gn$n"; : > "$d/kn$n"; : > "$d/bf16$n"; : > "$d/int8$n"
	: > "$d/gbf16$n"; : > "$d/gint8$n"; : > "$d/ki$n"; : > "$d/kw$n"; : > "$d/ko$n"
	: > "$d/int8v$n"; : > "$d/gint8v$n"
	for p in $noamx; do : > "$d/${p}x$n"; : > "$d/g${p}x$n"; done
	: > "$d/ks$n"; : > "$d/kt$n"
	for t in 2 8 16; do : > "$d/kb$t-$n"; done
	if [ -n "$ks" ]; then
		kscfg $n "$(kgames ks)" $v $mm > "$d/ks$n.cfg"
		kscfg $n "$(kgames kt)" $v $mm > "$d/kt$n.cfg"
	fi
	i=0
	while [ $i -lt "$rounds" ]; do
		# the sides alternate within each round
		/usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" | cut -d' ' -f1 >> "$d/kn$n"
		# KataGo's benchmark with 2 search threads (batch 1), 8 (its
		# batches of about 2) and 16
		for t in 2 8 16; do
			[ -z "$kg" ] || /usr/bin/python3 "$d/run.py" kg "$kg" benchmark -model "$K" -config "$d/k.cfg" \
				-v 200 -t $t -boardsize "$n" | cut -d' ' -f1 >> "$d/kb$t-$n"
		done
		# KataGo's self-play: g games in flight as gt's, and 4 g
		for kk in ks kt; do
			[ -z "$ks" ] && continue
			rm -rf "$d/out"
			/usr/bin/python3 "$d/run.py" ks "$kg" selfplay -config "$d/$kk$n.cfg" -models-dir "$d/models" \
				-output-dir "$d/out" -max-games-total "$(kgames $kk)" | cut -d' ' -f1 >> "$d/$kk$n"
		done
		/usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$d/gt-b6c96.bin.gz" "$@" | cut -d' ' -f1 >> "$d/gn$n"
		# float32 by gt's own convolutions (the automatic choice takes
		# oneDNN's on AVX-512: gt_conv_onednn)
		GT_CONV=im2col /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" \
			| cut -d' ' -f1 >> "$d/ki$n"
		GT_CONV=winograd /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" \
			| cut -d' ' -f1 >> "$d/kw$n"
		GT_CONV=onednn /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" \
			| cut -d' ' -f1 >> "$d/ko$n"
		for p in $lowp; do
			/usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" --precision $p \
				| cut -d' ' -f1 >> "$d/$p$n"
			/usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$d/gt-b6c96.bin.gz" "$@" \
				--precision $p | cut -d' ' -f1 >> "$d/g$p$n"
		done
		for p in $noamx; do
			GT_NO_AMX=1 /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" "$@" \
				--precision $p | cut -d' ' -f1 >> "$d/${p}x$n"
			GT_NO_AMX=1 /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$d/gt-b6c96.bin.gz" "$@" \
				--precision $p | cut -d' ' -f1 >> "$d/g${p}x$n"
		done
		for p in $novnni; do
			GT_NO_AMX=1 GT_NO_VNNI=1 /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" --model "$K" \
				"$@" --precision $p | cut -d' ' -f1 >> "$d/${p}v$n"
			GT_NO_AMX=1 GT_NO_VNNI=1 /usr/bin/python3 "$d/run.py" gt "$GT_BIN/gt-selfplay" \
				--model "$d/gt-b6c96.bin.gz" "$@" --precision $p | cut -d' ' -f1 >> "$d/g${p}v$n"
		done
		i=$((i + 1))
	done
	echo "katago.sh: ${n}x$n, 2 threads, evals per CPU-second min/median/max of $rounds: gt-selfplay with KataGo's b6c96 $(mmm "$d/kn$n"), with gt's b6c96 $(mmm "$d/gn$n") (ratio $(ratio "$d/kn$n" "$d/gn$n"))"
	echo "katago.sh: ${n}x$n: gt-selfplay with KataGo's b6c96, GT_CONV=im2col $(mmm "$d/ki$n") (automatic / im2col $(ratio "$d/kn$n" "$d/ki$n")), GT_CONV=winograd $(mmm "$d/kw$n") (automatic / winograd $(ratio "$d/kn$n" "$d/kw$n")), GT_CONV=onednn $(mmm "$d/ko$n") (automatic / onednn $(ratio "$d/kn$n" "$d/ko$n"))"
	for p in $lowp; do
		echo "katago.sh: ${n}x$n: gt-selfplay with KataGo's b6c96 in $p $(mmm "$d/$p$n") ($p / fp32 $(ratio "$d/$p$n" "$d/kn$n")), with gt's b6c96 $(mmm "$d/g$p$n") ($p / fp32 $(ratio "$d/g$p$n" "$d/gn$n"))"
	done
	for p in $noamx; do
		echo "katago.sh: ${n}x$n: without AMX (GT_NO_AMX=1): gt-selfplay with KataGo's b6c96 in $p $(mmm "$d/${p}x$n") ($p / fp32 $(ratio "$d/${p}x$n" "$d/kn$n")), with gt's b6c96 $(mmm "$d/g${p}x$n") ($p / fp32 $(ratio "$d/g${p}x$n" "$d/gn$n"))"
	done
	for p in $novnni; do
		echo "katago.sh: ${n}x$n: without VNNI (GT_NO_AMX=1 GT_NO_VNNI=1, the avx2 kernel): gt-selfplay with KataGo's b6c96 in $p $(mmm "$d/${p}v$n") ($p / fp32 $(ratio "$d/${p}v$n" "$d/kn$n")), with gt's b6c96 $(mmm "$d/g${p}v$n") ($p / fp32 $(ratio "$d/g${p}v$n" "$d/gn$n"))"
	done
	for t in 2 8 16; do
		f=$d/kb$t-$n
		[ -z "$kg" ] && continue
		also=
		for p in $lowp; do also="$also, in $p $(ratio "$d/$p$n" "$f")"; done
		echo "katago.sh: ${n}x$n: KataGo benchmark (the same network, -v 200 -t $t) $(mmm "$f"): gt-selfplay / KataGo $(ratio "$d/kn$n" "$f")$also"
	done
	for kk in ks kt; do
		[ -z "$ks" ] && continue
		also=
		for p in $lowp; do also="$also, in $p $(ratio "$d/$p$n" "$d/$kk$n")"; done
		echo "katago.sh: ${n}x$n: katago selfplay ($(kgames $kk) games in flight, $v/$((v / 4)) visits, NN rows) $(mmm "$d/$kk$n"): gt-selfplay ($g games) / KataGo $(ratio "$d/kn$n" "$d/$kk$n")$also"
	done
done
