#!/bin/sh
# The arm64 build (make ARCH=arm64: Debian's aarch64-linux-gnu-gcc and
# multiarch libraries, DNNL=0; `make check` makes it in build/arm64 where
# the cross compiler is) under qemu-user: its programs are AArch64, the
# unit tests that are fast under emulation pass, among them wino (the
# Winograd transforms, NEON there, against im2col and a direct sum in
# double) and int8 (the sdot kernels against exact sums, then networks in
# int8 against float32 on 16 real positions, not 1,000: GT_PREC_POSITIONS),
# and gt-selfplay -v names the NEON kernels and plays games
# gt-validate (this machine's) accepts, --precision int8 runs by sdot
# where the emulated CPU has the dot product and in float32 where not
# (QEMU_CPU=cortex-a53), and bench/playout runs, a functional check (not a
# speed).
# Left out for their time under emulation (tens of seconds to minutes
# each under qemu): katago, katago_synth, kataexport, gtnet, nn_torch, nn_grad,
# dnn, npz, board, gtpclient, record, outer, outerproc, selfplay,
# selfplay_net, shard, sgf, train, unit.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
A=${GT_ARM64:-$GT_SRC/build/arm64}
command -v qemu-aarch64 >/dev/null || skip_all "no qemu-aarch64 (Debian's qemu-user: share/gt/install-deps)"
[ -x "$A/tests/wino" ] && [ -x "$A/bin/gt-selfplay" ] ||
	skip_all "no arm64 build in $A (make ARCH=arm64 needs aarch64-linux-gnu-gcc: share/gt/install-deps)"

# e_machine in the ELF header: 183, AArch64
is "$(od -An -tu2 -j18 -N2 "$A/tests/wino" | tr -d ' ')" 183 "the unit tests are AArch64 programs"
is "$(od -An -tu2 -j18 -N2 "$A/bin/gt-selfplay" | tr -d ' ')" 183 "and the commands"

# the commands through qemu (tests such as gtp_net start them by GT_BIN,
# where binfmt_misc may not know AArch64)
mkdir "$T/bin"
for c in "$A"/bin/gt-*; do
	if [ "$(od -An -c -N4 "$c" | tr -d ' ')" = '177ELF' ]; then
		printf '#!/bin/sh\nexec qemu-aarch64 %s "$@"\n' "$c" >"$T/bin/${c##*/}"
		chmod 755 "$T/bin/${c##*/}"
	else
		cp "$c" "$T/bin/"
	fi
done

for t in feat katafeat sgfrec tmpl util nn_cuda match release report store_names gtp_net validate \
	fs store_s3 int8 bf16 store_sign elo rng delta sgf_goban gtp mcts trainrun diloco sgf_gnugo \
	katacfg model wino; do
	GT_BIN=$T/bin GT_PREC_POSITIONS=16 qemu-aarch64 "$A/tests/$t" >"$T/$t.tap" 2>&1
	rc=$?
	grep -q '^not ok' "$T/$t.tap"
	nok=$?
	# a plan of tests, or a whole skip with its reason (sgf_gnugo without
	# ../shared, as on x86)
	grep -q '^1\.\.[1-9]' "$T/$t.tap" || grep -q '^1\.\.0 # SKIP .' "$T/$t.tap"
	plan=$?
	ok $((rc || !nok || plan)) "arm64 $t: exit 0, a plan, every assertion passes"
	grep -q '^1\.\.0 # SKIP' "$T/$t.tap" && diag "$t: $(grep '^1\.\.0' "$T/$t.tap")"
	[ $rc = 0 ] && [ $nok = 1 ] && [ $plan = 0 ] || sed 's/^/#   /' "$T/$t.tap" | grep -v '^#   ok ' | tail -n 20
done

# gt-selfplay: the NEON kernels by name, and games this machine's gt-validate accepts
M=$GT_SRC/tests/data/models/v1-b2c8.bin.gz
"$T/bin/gt-selfplay" --model "$M" --games 2 --visits 8 --board-size 9 --seed 3 -v >"$T/g" 2>"$T/e"
ok $? "arm64 gt-selfplay: 2 games of 9x9 with v1-b2c8"
grep -q "CPU kernels: neon (gt's own" "$T/e"
ok $? "-v names the NEON kernels: $(sed -n 's/.*CPU kernels: //p' "$T/e")"
GT_NO_NEON=1 "$T/bin/gt-selfplay" --model "$M" --games 1 --max-moves 2 -v 2>&1 >/dev/null |
	grep -q "CPU kernels: generic (GT_NO_NEON is set)"
ok $? "GT_NO_NEON=1: generic, and why"
# int8 by sdot where the CPU has the dot product (qemu's default CPU,
# "max", has; a Cortex-A53 has not), float32 and why where not
"$T/bin/gt-selfplay" --model "$M" --games 1 --max-moves 2 --precision int8 -v 2>"$T/e" >/dev/null
grep -q "v1-b2c8: precision int8" "$T/e"
ok $? "--precision int8 on qemu's max CPU: int8 (sdot)"
QEMU_CPU=cortex-a53 "$T/bin/gt-selfplay" --model "$M" --games 1 --max-moves 2 --precision int8 -v 2>&1 >/dev/null |
	grep -q "fp32, not int8: the CPU has no int8 dot product (asimddp)"
ok $? "on a Cortex-A53 (no dot product): float32, and why"
GT_NO_INT8=1 "$T/bin/gt-selfplay" --model "$M" --games 1 --max-moves 2 --precision int8 -v 2>&1 >/dev/null |
	grep -q "fp32, not int8: GT_NO_INT8 is set"
ok $? "GT_NO_INT8=1: float32, and why"
is "$(gt-validate "$T/g" 2>"$T/ve" | wc -l | tr -d ' ')" 2 "gt-validate accepts both games"

# a benchmark, as a functional check
qemu-aarch64 "$A/bench/playout" 0.2 >"$T/p" 2>&1
ok $? "arm64 bench/playout: exit 0"
grep -Eq '[0-9]' "$T/p"
ok $? "and prints its rates: $(tail -n 1 "$T/p")"
done_testing
