#!/bin/sh
# gt-validate: each broken record of tests/data/records/bad is rejected with
# its reason while the good records around it pass through unchanged and in
# order; duplicates in a stream and across runs; gzip, truncated gzip, a
# 100 MB line and a gzip bomb; --stats; exit statuses.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
: "${GT_TESTBIN:=$GT_SRC/build/opt/tests}"
D=$GT_SRC/tests/data/records
sed -n 1p "$D/good.ndjson" > "$T/g1"
sed -n 2p "$D/good.ndjson" > "$T/g2"
cat "$T/g1" "$T/g2" > "$T/g12"

reason_of() { # the reasons of a rejects file, space-separated
	sed -n 's/.*"reason":"\([^"]*\)".*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# the good corpus passes, unchanged
gt-validate --rejects "$T/rej" "$D/good.ndjson" > "$T/out"
ok $? "good corpus: exit 0"
check "good corpus: output is the input, byte for byte" cmp -s "$D/good.ndjson" "$T/out"
is "$(wc -c < "$T/rej")" 0 "good corpus: no rejects"

# one broken record between two good ones, for every reason code
for f in "$D"/bad/*.ndjson; do
	want=$(basename "$f" .ndjson)
	cat "$T/g1" "$f" "$T/g2" > "$T/in"
	gt-validate --rejects "$T/rej" "$T/in" > "$T/out"
	st=$?
	is "$st $(reason_of "$T/rej")" "1 $want" "$want: rejected with its reason, exit 1"
	check "$want: good records before and after pass unchanged, in order" cmp -s "$T/g12" "$T/out"
	is "$(sed -n 's/.*"line":\([0-9]*\).*/\1/p' "$T/rej")" 2 "$want: reported at line 2"
done
cat "$T/g1" "$D/bad/version.ndjson" > "$T/in"
gt-validate --rejects "$T/rej" "$T/in" > "$T/out"
is "$(cat "$T/rej")" '{"file":"'"$T"'/in","line":2,"game_id":"bad-version","worker":"w0","model":"gen-b6c64-s1200-d50000","reason":"version","detail":"version 2 not supported (want 1)"}' \
	"a reject line: file, line, game_id, worker, model, reason, detail"

# a policy of 10^6 entries
/usr/bin/python3 -c '
import sys
line = open(sys.argv[1]).read()
sys.stdout.write(line.replace("\"policy\":[", "\"policy\":[" + "0," * 1000000, 1))' "$T/g1" > "$T/bigpol"
sed 's/"game_id":"[^"]*"/"game_id":"bigpol"/' "$T/bigpol" > "$T/bigpol2"
cat "$T/g1" "$T/bigpol2" "$T/g2" > "$T/in"
gt-validate --rejects "$T/rej" "$T/in" > "$T/out"
is "$? $(reason_of "$T/rej")" "1 policy" "a policy of 10^6 entries: rejected as policy"
grep -q 'has 1000050 entries, want 50' "$T/rej"
ok $? "a policy of 10^6 entries: the detail gives the count"
check "a policy of 10^6 entries: the records around it pass" cmp -s "$T/g12" "$T/out"

# several files and - for stdin, CRLF line ends kept
sed 's/$/\r/' "$T/g2" > "$T/g2crlf"
cat "$T/g1" "$T/g2crlf" > "$T/want"
gt-validate "$T/g1" - "$T/g2crlf" < "$D/bad/score.ndjson" > "$T/out" 2> "$T/err"
is "$? $(cat "$T/err")" "1 gt-validate: -:1: score: position 8 (move 8): score -3.5, game score -5.5 from B's view is -5.5" \
	"files and -: the stdin record rejected, named -:1"
check "files and -: the others pass, a CRLF line unchanged" cmp -s "$T/want" "$T/out"
gt-validate "$T/nonexistent" "$T/g1" > "$T/out" 2> "$T/err"
is "$?" 1 "a missing file: exit 1"
check "a missing file: the next file is processed" cmp -s "$T/g1" "$T/out"

# duplicates: the same game_id; the same seed and moves under another id
sed 's/"game_id":"[^"]*"/"game_id":"copy"/' "$T/g1" > "$T/g1copy"
cat "$T/g1" "$T/g2" "$T/g1" "$T/g1copy" > "$T/in"
gt-validate --rejects "$T/rej" "$T/in" > "$T/out"
is "$? $(reason_of "$T/rej")" "1 duplicate-id duplicate-game" "duplicates in a stream"
check "duplicates: first copies pass" cmp -s "$T/g12" "$T/out"

# across runs with --seen
gt-validate --seen "$T/seen" "$T/g12" > "$T/out1"
st1=$?
gt-validate --seen "$T/seen" --rejects "$T/rej" "$T/g12" "$D/good.ndjson" > "$T/out2"
is "$st1 $? $(reason_of "$T/rej")" "0 1 duplicate-id duplicate-id duplicate-id duplicate-id" \
	"--seen: a second run rejects the games of the first"
sed -n 3,4p "$D/good.ndjson" > "$T/g34"
check "--seen: the new games of the second run pass" cmp -s "$T/g34" "$T/out2"
is "$(wc -l < "$T/seen" | tr -d ' ')" 8 "--seen: two hashes per accepted game"
is "$(grep -cv '^[0-9a-f]\{32\}$' "$T/seen")" 0 "--seen: 32 hex digits a line"

# gzip, and a truncated gzip stream followed by another file
gzip -c "$D/good.ndjson" > "$T/good.gz"
gt-validate "$T/good.gz" > "$T/out"
ok $? "gzip input: exit 0"
check "gzip input: the decompressed records pass unchanged" cmp -s "$D/good.ndjson" "$T/out"
"$GT_TESTBIN/record" gen 40 5 7 > "$T/many2"
gzip -c "$T/many2" > "$T/many2.gz"
head -c $(($(wc -c < "$T/many2.gz") / 2)) "$T/many2.gz" > "$T/trunc.gz"
gt-validate --rejects "$T/rej" "$T/trunc.gz" "$T/g2" > "$T/out"
st=$?
is "$st $(reason_of "$T/rej")" "1 gzip" "truncated gzip: one reject with reason gzip"
tail -n 1 "$T/out" > "$T/last"
check "truncated gzip: the next file is processed" cmp -s "$T/g2" "$T/last"
n=$(($(wc -l < "$T/out") - 1))
head -n "$n" "$T/many2" > "$T/prefix"
head -n "$n" "$T/out" > "$T/outprefix"
ok "$(test "$n" -ge 1 && cmp -s "$T/prefix" "$T/outprefix"; echo $?)" \
	"truncated gzip: the $n complete records before the cut pass unchanged"

# a 100 MB line (over the default 64 MiB limit) between good records
{ cat "$T/g1"; head -c 100000000 /dev/zero | tr '\0' 'a'; echo; cat "$T/g2"; } > "$T/big"
gt-validate --rejects "$T/rej" "$T/big" > "$T/out"
is "$? $(reason_of "$T/rej")" "1 too-long" "100 MB line: rejected as too-long"
check "100 MB line: the records around it pass" cmp -s "$T/g12" "$T/out"
rm -f "$T/big"

# gzip bomb: 1 GiB of NULs without a newline, 16 gzip members of 64 MiB
head -c 67108864 /dev/zero | gzip -9 > "$T/m.gz"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat "$T/m.gz"; done > "$T/bomb.gz"
gzip -c "$T/g12" > "$T/g12.gz"
if command -v /usr/bin/time > /dev/null && ! echo "$GT_BIN" | grep -q san; then
	/usr/bin/time -f %M -o "$T/rss" gt-validate --max-line 1M --rejects "$T/rej" "$T/bomb.gz" "$T/g12.gz" \
		> "$T/out" 2> "$T/err"
	st=$?
	rss=$(tail -n 1 "$T/rss")
	ok "$(test "$rss" -lt 65536; echo $?)" "gzip bomb: memory stays bounded (max RSS $rss kB)"
else
	gt-validate --max-line 1M --rejects "$T/rej" "$T/bomb.gz" "$T/g12.gz" > "$T/out" 2> "$T/err"
	st=$?
fi
is "$st $(reason_of "$T/rej")" "1 too-long" "gzip bomb: stopped by the line limit"
grep -q 'longer than 1048576 bytes' "$T/rej"
ok $? "gzip bomb: the reject says why"
check "gzip bomb: the next input is processed" cmp -s "$T/g12" "$T/out"

# --stats
cat "$D/good.ndjson" "$D/bad/value.ndjson" "$D/bad/json.ndjson" > "$T/in"
gt-validate --stats="$T/stats" --rejects "$T/rej" "$T/in" > "$T/out"
s=$(cat "$T/stats")
case $s in
*'"records_in":6'*'"records_out":4'*'"rejected":2'*) ok 0 "--stats: counts" ;;
*) ok 1 "--stats: counts"; diag "$s" ;;
esac
case $s in
*'"rejects_by_reason":{"json":1,"value":1}'*) ok 0 "--stats: rejects by reason" ;;
*) ok 1 "--stats: rejects by reason"; diag "$s" ;;
esac
case $s in
*'"rejects_by_worker":{"?":1,"w0":1}'*) ok 0 "--stats: rejects by worker" ;;
*) ok 1 "--stats: rejects by worker"; diag "$s" ;;
esac
# the 4 good games: 47+54+49+51 moves, White won all
case $s in
*'"black_win_rate":0.0,'*'"mean_game_length":50.25,'*'"positions":201,'*) ok 0 "--stats: length, positions, win rate" ;;
*) ok 1 "--stats: length, positions, win rate"; diag "$s" ;;
esac
gt-validate --stats < "$T/g1" > /dev/null 2> "$T/err"
grep -q '"records_out":1' "$T/err"
ok $? "--stats without a file: summary on stderr"

# without --rejects the reason goes to stderr
gt-validate < "$D/bad/komi.ndjson" > "$T/out" 2> "$T/err"
is "$? $(cat "$T/err")" "1 gt-validate: -:1: komi: komi 1e+308 is not a multiple of 0.5 within +-49" \
	"no --rejects: a message on stderr"

# --progress
"$GT_TESTBIN/record" gen 1000 3 4 > "$T/small"
gt-validate --progress --min-moves 0 "$T/small" > "$T/out" 2> "$T/err"
grep -q 'gt-validate: 1000 records, 0 rejected' "$T/err"
ok $? "--progress: a count on stderr"
is "$(wc -l < "$T/out" | tr -d ' ')" 1000 "--progress: the 1000 4x4 games pass"

# options and exit statuses
gt-validate --max-moves 53 --rejects "$T/rej" "$D/good.ndjson" > "$T/out"
is "$? $(reason_of "$T/rej")" "1 length" "--max-moves 53 rejects the 54-move game"
gt-validate --min-moves 48 --rejects "$T/rej" "$D/good.ndjson" > "$T/out"
is "$(reason_of "$T/rej")" "length" "--min-moves 48 rejects the 47-move game"
gt-validate --allow-unscored-results "$D/bad/unscored.ndjson" > "$T/out"
ok $? "--allow-unscored-results accepts score_checkable false"
check "--allow-unscored-results: the record passes unchanged" cmp -s "$D/bad/unscored.ndjson" "$T/out"
gt-validate --bogus < /dev/null > "$T/out" 2> "$T/err"
is $? 2 "unknown option: exit 2"
gt-validate --max-moves 99999 < /dev/null > "$T/out" 2> "$T/err"
is "$?" 2 "--max-moves out of range: exit 2"
grep -q 'gt-validate: --max-moves' "$T/err"
ok $? "--max-moves out of range: message"
gt-validate --version > "$T/out"
grep -q '^gt-validate [0-9]' "$T/out"
ok $? "--version"
gt-validate "$D/good.ndjson" > /dev/full 2> "$T/err"
is "$?" 1 "write error on stdout: exit 1"
grep -q 'write error' "$T/err"
ok $? "write error on stdout: message"
done_testing
