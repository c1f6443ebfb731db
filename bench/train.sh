#!/bin/sh
# train.sh: gt-train end to end on 9x9 self-play rows (gt-selfplay --model
# none, about 107000 rows): peak anonymous RSS against the window (the rows are kept
# bit-packed: about 880 bytes a row expected, gt-train(1)), and the
# samples/s and data share gt-train reports for b6c64 batch 256 (compare
# bench/train's bare step). Run by bench/run with GT_BIN and GT_SRC set.
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
[ -x "$GT_BIN/gt-train" ] || { echo "train.sh: no $GT_BIN/gt-train"; exit 0; }
[ -x /usr/bin/time ] || { echo "train.sh: no /usr/bin/time"; exit 0; }
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-train.XXXXXX")
trap 'rm -rf "$d"' EXIT
"$GT_BIN/gt-selfplay" --model none --games 900 --visits 2 --cheap-visits 1 --full-prob 1 \
	--seed 1 >"$d/g.ndjson" 2>/dev/null || exit 1
"$GT_BIN/gt-shard" -o "$d/data" --rows 10000 "$d/g.ndjson" >"$d/m" 2>/dev/null || exit 1
rows=$(sed 's/.*"rows":\([0-9]*\).*/\1/' "$d/m" | awk '{s += $1} END {print s}')
# rss WINDOW: the largest RssAnon (KiB; anonymous memory, so without the
# shared libraries' pages: a CUDA build maps cuBLAS into every command) of
# 200 steps of b1c8 batch 16, polled every 20 ms
rss() {
	"$GT_BIN/gt-train" --init b1c8 --data "$d/data" --window "$1" --steps 200 --batch 16 \
		-o "$d/x.bin.gz" >/dev/null 2>&1 &
	pid=$! max=0
	while kill -0 $pid 2>/dev/null; do
		v=$(awk '/^RssAnon:/ {print $2}' /proc/$pid/status 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$max" ] && max=$v
		sleep 0.02
	done
	wait $pid || return 1
	echo $max
}
base=$(rss 64) || exit 1
echo "gt-train peak RssAnon, b1c8 9x9, $rows rows in the shards: window 64 rows: $((base / 1024)) MiB"
for w in 10000 50000 100000; do
	r=$(rss $w) || exit 1
	awk -v w=$w -v r=$r -v b=$base 'BEGIN {
		printf "gt-train peak RssAnon, window %d rows: %.1f MiB, %.0f bytes a row above window 64\n",
		    w, r / 1024, (r - b) * 1024 / w }'
done
"$GT_BIN/gt-train" --init b6c64 --data "$d/data" --window 10000 --steps 12 --batch 256 \
	--log-every 4 -o "$d/x.bin.gz" >"$d/metrics" 2>/dev/null || exit 1
grep '"step":12,' "$d/metrics" | sed 's/.*"samples_per_s":\([0-9.e+]*\),"data_share":\([0-9.e+-]*\).*/\1 \2/' |
	awk '{ printf "gt-train b6c64 9x9 batch 256: %.0f samples/s, drawing batches %.2f%% of the step\n",
	    $1, 100 * $2 }'
