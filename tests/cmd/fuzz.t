#!/bin/sh
# The parser fuzz harnesses (tests/fuzz/, issue 17): each replays its seed
# corpus (tests/fuzz/corpus/NAME/) through the parser it covers, built as a
# plain program (tests/fuzz/driver.c; under AddressSanitizer in make check
# SANITIZE=1). When `make fuzz` has built the libFuzzer versions
# (build/fuzz/fuzz/NAME), each also fuzzes for $GT_FUZZ_TIME seconds
# (default 5) from that corpus.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
F=${GT_TESTBIN:-$GT_SRC/build/opt/tests}/../fuzz
[ -d "$F" ] || skip_all "$F: fuzz harnesses not built"
for c in "$GT_SRC"/tests/fuzz/corpus/*/; do
	n=$(basename "$c")
	"$F/$n" "$c"* > "$T/out" 2> "$T/err"
	is "$?:$(cat "$T/out")" "0:$(ls "$c" | wc -l | tr -d ' ') inputs replayed" \
		"$n: the corpus replays without a crash"
	lf=$GT_SRC/build/fuzz/fuzz/$n
	if [ -x "$lf" ]; then
		mkdir -p "$T/new-$n"
		"$lf" -max_total_time="${GT_FUZZ_TIME:-5}" -rss_limit_mb=2048 "$T/new-$n" "$c" \
			> "$T/lf" 2>&1
		ok $? "$n: libFuzzer for ${GT_FUZZ_TIME:-5} s: $(grep -o 'Done [0-9]* runs' "$T/lf")"
	fi
done
done_testing
