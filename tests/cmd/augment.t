#!/bin/sh
# gt-augment: every symmetry of the good corpus passes gt-validate; K then
# its inverse gives the record back; C7 and D7 on 9x9 land where the table
# of sym.h says (worked out by hand); --all, --random and --seed.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
D=$GT_SRC/tests/data/records

gt-augment --symmetry 0 "$D/good.ndjson" > "$T/k0"
ok $? "--symmetry 0: exit 0"
gt-validate "$T/k0" > "$T/v0"
ok $? "--symmetry 0: output passes gt-validate"
check "--symmetry 0 rewrites the generator's records byte for byte" cmp -s "$D/good.ndjson" "$T/k0"

inv() { case $1 in 1) echo 3 ;; 3) echo 1 ;; *) echo "$1" ;; esac; }
for k in 1 2 3 4 5 6 7; do
	gt-augment --symmetry "$k" "$D/good.ndjson" > "$T/k$k"
	gt-validate --rejects "$T/rej$k" "$T/k$k" > "$T/v$k"
	ok $? "symmetry $k: output passes gt-validate (replayed legally, boards, policy, ownership)"
	is "$(wc -l < "$T/v$k" | tr -d ' ')" 4 "symmetry $k: 4 records"
	ok "$(grep -c "\"symmetry\":$k," "$T/k$k" | grep -qx 4; echo $?)" "symmetry $k: recorded in each record"
	ok "$(cmp -s "$T/k0" "$T/k$k"; test $? -ne 0; echo $?)" "symmetry $k: moves changed"
	gt-augment --symmetry "$(inv "$k")" "$T/k$k" > "$T/back$k"
	check "symmetry $k then its inverse $(inv "$k") gives the records back" cmp -s "$T/k0" "$T/back$k"
done

# the 3-3 point C7 and D7 on 9x9 under each symmetry (hand-worked from the
# table in lib/sym.h: C7 = (x 2, y 2), D7 = (3, 2), m = 8)
rec='{"version":1,"rules":"chinese","komi":7.5,"board_size":9,"moves":["C7","D7","pass"],"result":"?","winner":"?"}'
set -- C7,D7 G7,G6 G3,F3 C3,C4 C7,C6 G7,F7 G3,G4 C3,D3
for k in 0 1 2 3 4 5 6 7; do
	eval "want=\${$((k + 1))}"
	echo "$rec" | gt-augment --symmetry "$k" > "$T/h"
	got=$(sed 's/.*"moves":\["\([A-Z0-9]*\)","\([A-Z0-9]*\)","pass"\].*/\1,\2/' "$T/h")
	is "$got" "$want" "symmetry $k: C7,D7 -> $want"
done

# --all: 8 records per game; each passes gt-validate alone (above), and
# together the 7 rotated and mirrored copies of a game are its duplicates
# (gt-validate's game key is the moves under the smallest symmetry)
gt-augment --all "$D/good.ndjson" > "$T/all"
ok $? "--all: exit 0"
is "$(wc -l < "$T/all" | tr -d ' ')" 32 "--all: 8 records per game"
gt-validate --rejects "$T/rej" "$T/all" > "$T/vall"
is "$? $(wc -l < "$T/vall" | tr -d ' ') $(grep -c '"reason":"duplicate-game"' "$T/rej")" "1 4 28" \
	"--all: one record a game passes gt-validate, the 28 copies are duplicate-game"
sed -n 9,16p "$T/all" | sed 's/.*"symmetry":\([0-9]\).*/\1/; /^{/s/.*/0/' | tr -d '\n' > "$T/ks"
is "$(cat "$T/ks")" 01234567 "--all: symmetries 0..7 in order"
sed -n 12p "$T/all" > "$T/a3"
sed -n 2p "$T/k3" > "$T/s3"
check "--all: the fourth copy equals --symmetry 3" cmp -s "$T/s3" "$T/a3"

# --random is the default, seeded
gt-augment --seed 5 "$D/good.ndjson" > "$T/r1"
gt-augment --random --seed 5 "$D/good.ndjson" > "$T/r2"
check "--random: the same seed gives the same output" cmp -s "$T/r1" "$T/r2"
gt-validate "$T/r1" > /dev/null
ok $? "--random: output passes gt-validate"
for s in 1 2 3 4 5 6 7 8; do gt-augment --seed $s "$D/good.ndjson"; done > "$T/rs"
nk=$(sed 's/.*"symmetry":\([0-9]\).*/\1/; /^{/s/.*/0/' "$T/rs" | sort -u | wc -l)
ok "$(test "$nk" -ge 5; echo $?)" "--random: 32 games over 8 seeds use $nk of the 8 symmetries"

# errors
printf '%s\n' '{"version":1' | cat - "$D/good.ndjson" | gt-augment --symmetry 2 > "$T/out" 2> "$T/err"
is "$?" 1 "a bad record: exit 1"
grep -q '^gt-augment: -:1: ' "$T/err"
ok $? "a bad record: message with the line"
cmp -s "$T/k2" "$T/out"
ok $? "a bad record: the others are augmented"
gt-augment --symmetry 8 < /dev/null > "$T/out" 2> "$T/err"
is $? 2 "--symmetry 8: exit 2"
gt-augment --version > "$T/out"
grep -q '^gt-augment [0-9]' "$T/out"
ok $? "--version"
done_testing
