#!/bin/sh
# gt's vector kernels chosen at run time (lib/nn/simd.h): gt-selfplay -v
# names them (avx2+fma where the CPU has AVX2 and FMA, generic and why
# otherwise or under GT_NO_AVX2), and the generic ones pass the unit tests
# of the Winograd convolutions (against im2col and a direct sum in double)
# and of KataGo's networks (against KataGo's own outputs, and katago_synth's
# nested blocks, Mish and SiLU against a NumPy forward) as the AVX2 ones do.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
: "${GT_TESTBIN:=$GT_SRC/build/opt/tests}"

kernels() { # the kernels gt-selfplay -v names, with the environment given
	env "$@" gt-selfplay --model "$GT_SRC/tests/data/models/v1-b2c8.bin.gz" --games 1 --max-moves 2 -v 2>&1 >/dev/null |
		sed -n "s/.*CPU kernels: \(.*\) (gt's own; OpenBLAS.*/\1/p"
}
if grep -q '^flags.* avx2' /proc/cpuinfo && grep -q '^flags.* fma' /proc/cpuinfo; then
	want=avx2+fma
else
	want="generic (the CPU lacks AVX2 or FMA)"
fi
is "$(kernels GT_NO_AVX2=)" "$want" "-v: $want on this CPU"
is "$(kernels GT_NO_AVX2=0)" "$want" "GT_NO_AVX2=0 is unset"
is "$(kernels GT_NO_AVX2=1)" "generic (GT_NO_AVX2 is set)" "GT_NO_AVX2=1: generic"

# the unit tests on the generic kernels: every assertion passes
for t in wino katago katago_synth; do
	GT_NO_AVX2=1 "$GT_TESTBIN/$t" >"$T/$t.tap" 2>&1
	ok $? "GT_NO_AVX2=1 $t: exit 0"
	grep -q '^not ok' "$T/$t.tap"
	ok $((! $?)) "GT_NO_AVX2=1 $t: no assertion fails"
	grep -q '^1\.\.[0-9]' "$T/$t.tap"
	ok $? "GT_NO_AVX2=1 $t: a plan"
done
done_testing
