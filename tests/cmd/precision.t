#!/bin/sh
# --precision fp32|bf16|int8 of gt-selfplay, gt-elo, gt-gtp and gt-analyze (issue 22): a CPU without
# AMX-BF16 (AMX-INT8), emulated by GT_NO_BF16 (GT_NO_INT8), takes the
# float32 path and says so; the records are then those of --precision
# fp32. Where the CPU has them, bf16 and int8 are said with -v and their
# games validate. The agreement of the outputs with float32 is
# tests/unit/bf16.c's and tests/unit/int8.c's.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
check_help gt-selfplay --precision
check_help gt-elo --precision
check_help gt-gtp --precision
check_help gt-analyze --precision
gt-model init b2c16 --seed 3 -o "$T/net.bin.gz" 2> "$T/err"
is "$?" 0 "a b2c16 network"
SP="--model $T/net.bin.gz --games 2 --visits 8 --cheap-visits 4 --seed 5 --deterministic"
gt-selfplay $SP --precision fp16 > /dev/null 2> "$T/err"
is "$?" 2 "--precision fp16: usage error"
grep -q "want fp32, bf16 or int8, got 'fp16'" "$T/err"; ok $? "saying what it wants"
gt-selfplay $SP --precision fp32 -v > "$T/fp32" 2> "$T/err"
is "$?" 0 "--precision fp32"
grep -q "net: precision fp32" "$T/err"; ok $? "-v says fp32"
# forced_off P ENV: --precision P with ENV=1 (a CPU without the
# instructions, emulated) in gt-selfplay, gt-gtp and gt-analyze: each runs
# in fp32 and says why; gt-selfplay's records are fp32's
forced_off() {
	env "$2=1" gt-selfplay $SP --precision "$1" -v > "$T/no-$1" 2> "$T/err"
	is "$?" 0 "$2=1 --precision $1: exit 0"
	grep -q "net: fp32, not $1: $2 is set" "$T/err"; ok $? "says it runs in fp32, and why"
	cmp -s "$T/fp32" "$T/no-$1"; ok $? "the records of --precision fp32"
	printf 'genmove b\nquit\n' | env "$2=1" gt-gtp -q --board-size 9 --visits 4 \
		--model "$T/net.bin.gz" --precision "$1" > /dev/null 2> "$T/err"
	is "$?" 0 "gt-gtp --precision $1 under $2=1: exit 0"
	grep -q "fp32, not $1: $2 is set" "$T/err"; ok $? "gt-gtp says it runs in fp32"
	env "$2=1" gt-analyze --model "$T/net.bin.gz" --precision "$1" < /dev/null > /dev/null 2> "$T/err"
	is "$?" 0 "gt-analyze --precision $1 under $2=1: exit 0"
	grep -q "net: fp32, not $1: $2 is set" "$T/err"; ok $? "gt-analyze says it runs in fp32"
}
forced_off bf16 GT_NO_BF16
GT_NO_BF16=1 gt-elo --games 2 --visits 4 --precision bf16,fp32 "$T/net.bin.gz" "$T/net.bin.gz" \
	> "$T/elo" 2> "$T/err"
is "$?" 0 "gt-elo --precision bf16,fp32 under GT_NO_BF16=1: exit 0"
is "$(grep -c 'fp32, not bf16: GT_NO_BF16 is set' "$T/err")" 1 "says so for player A only"
gt-elo --games 2 --visits 4 --precision fp32,bf16,fp32 "$T/net.bin.gz" "$T/net.bin.gz" \
	> /dev/null 2> "$T/err"
is "$?" 2 "gt-elo --precision with three values: usage error"
gt-analyze --model "$T/net.bin.gz" --precision int4 < /dev/null > /dev/null 2>&1
is "$?" 2 "gt-analyze --precision int4: usage error"
forced_off int8 GT_NO_INT8
GT_NO_INT8=1 gt-elo --games 2 --visits 4 --precision fp32,int8 "$T/net.bin.gz" "$T/net.bin.gz" \
	> "$T/elo" 2> "$T/err"
is "$?" 0 "gt-elo --precision fp32,int8 under GT_NO_INT8=1: exit 0"
is "$(grep -c 'fp32, not int8: GT_NO_INT8 is set' "$T/err")" 1 "says so for player B only"
gt-selfplay $SP --precision bf16 -v > "$T/bf16" 2> "$T/err"
is "$?" 0 "--precision bf16: exit 0"
if grep -q "net: precision bf16" "$T/err"; then
	gt-validate "$T/bf16" > /dev/null 2> "$T/verr"
	is "$?" 0 "bf16 games validate"
	gt-elo --games 2 --visits 4 --precision bf16,fp32 "$T/net.bin.gz" "$T/net.bin.gz" \
		> "$T/elo" 2> "$T/err"
	tail -1 "$T/elo" | grep -q '"a":"net+bf16","b":"net"'; ok $? "gt-elo: A is named net+bf16"
else
	grep -q "net: fp32, not bf16: " "$T/err"; ok $? "no AMX-BF16: fp32, said"
	diag "SKIP bf16 games: $(cat "$T/err")"
fi
gt-selfplay $SP --precision int8 -v > "$T/int8" 2> "$T/err"
is "$?" 0 "--precision int8: exit 0"
if grep -q "net: precision int8" "$T/err"; then
	gt-validate "$T/int8" > /dev/null 2> "$T/verr"
	is "$?" 0 "int8 games validate"
	is "$(grep -c '' "$T/int8")" "$(grep -c '' "$T/fp32")" "as many records as fp32"
	gt-elo --games 2 --visits 4 --precision int8,fp32 "$T/net.bin.gz" "$T/net.bin.gz" \
		> "$T/elo" 2> "$T/err"
	tail -1 "$T/elo" | grep -q '"a":"net+int8","b":"net"'; ok $? "gt-elo: A is named net+int8"
else
	grep -q "net: fp32, not int8: " "$T/err"; ok $? "no AMX-INT8: fp32, said"
	diag "SKIP int8 games: $(cat "$T/err")"
fi
done_testing
