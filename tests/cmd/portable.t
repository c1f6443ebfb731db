#!/bin/sh
# The default build (OPT -O2 -march=x86-64-v2) runs on any x86-64 with
# SSE4.2: in libgt's objects, instructions past x86-64-v2 (VEX and EVEX
# encoded: AVX and later; BMI1/2, LZCNT, MOVBE, AMX tiles) appear only in
# the functions chosen at run time: wino.c's *_avx2, katago.c's
# affine_vec, and bf16.c, int8.c and amx.c's AVX-512 and AMX kernels
# (their own checks: gt_bf16_available, gt_int8_available). Skipped for a
# build with AVX2 throughout (OPT='-O2 -march=native' on such a CPU).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
: "${GT_TESTBIN:=$GT_SRC/build/opt/tests}"
L=$GT_TESTBIN/../lib
[ -r "$L/nn/wino.o" ] || skip_all "no $L/nn/wino.o"
command -v objdump >/dev/null || skip_all "no objdump"
case $(uname -m) in x86_64) ;; *) skip_all "not x86-64" ;; esac
# past: the functions of an object with such instructions, one a line
past() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3); next }
		{ n = split($0, p, "\t"); if (n < 2) next; split(p[2], w, " "); m = w[1] }
		m ~ /^(v[a-z0-9]+|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|tzcnt|lzcnt|movbe|ldtilecfg|sttilecfg|tile[a-z]+|tdp[a-z0-9]+|k(mov|and|or|xor|not|shift)[a-z]*)$/ && !(f in seen) { seen[f] = 1; print f }'
}
past "$L/nn/wino.o" >"$T/wino"
grep -qx chunk_avx2 "$T/wino" || skip_all "a build with AVX2 throughout (no chunk_avx2 in wino.o)"
grep -vx -e chunk_avx2 -e input_transform_avx2 -e output_transform_avx2 "$T/wino" >"$T/bad"
is "$(cat "$T/bad")" "" "wino.o: only the _avx2 kernels"
past "$L/nn/katago.o" >"$T/kata"
is "$(cat "$T/kata")" "affine_vec" "katago.o: only affine_vec (AVX2 and FMA)"
: >"$T/bad"
for o in "$L"/*.o "$L"/nn/*.o; do
	case ${o##*/} in wino.o|katago.o|bf16.o|int8.o|amx.o) continue ;; esac
	past "$o" | sed "s|^|${o##*/}: |" >>"$T/bad"
done
is "$(cat "$T/bad")" "" "no other object of libgt"
# bf16.c, int8.c, amx.c: only functions with a target attribute
for f in bf16 int8 amx; do
	past "$L/nn/$f.o" | while read -r fn; do
		grep -Eq "(TARGET[A-Z0-9]*|target\(\"amx-tile\"\)\)\)) (static )?[a-z0-9_]+ \*?$fn\(" "$GT_SRC/lib/nn/$f.c" ||
			echo "$fn"
	done >"$T/bad"
	is "$(cat "$T/bad")" "" "$f.o: only functions with a target attribute"
done
done_testing
