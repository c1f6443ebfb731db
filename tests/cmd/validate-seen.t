#!/bin/sh
# A --seen file torn by a full disk (issue 17, item 13): the write that
# fails names the file and the real reason (not "Success"), and the next
# run drops the torn last line with a warning, cuts the file back and goes
# on, where once every later run stopped at the torn line.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
D=$GT_SRC/tests/data/records
sed -n 1,2p "$D/good.ndjson" > "$T/g12"
sed -n 3,4p "$D/good.ndjson" > "$T/g34"
gt-validate --seen "$T/seen" "$T/g12" > /dev/null
is "$?:$(wc -c < "$T/seen" | tr -d ' ')" "0:132" "two games: four hashes, 132 bytes"
# a full disk, played by a file size limit of 1024 bytes (ulimit -f 2): a
# seen file of 28 lines (924 bytes) takes the third game's two hashes (66
# bytes), and of the fourth's only 34: a whole line and one byte
for i in $(seq 1 24); do printf '%032x\n' $i; done > "$T/full"
cat "$T/seen" >> "$T/full"
is "$(wc -c < "$T/full" | tr -d ' ')" 924 "a seen file of 28 lines"
(trap '' XFSZ; ulimit -f 2 && exec gt-validate --seen "$T/full" "$T/g34") > /dev/null 2> "$T/err"
is "$?" 1 "the write of the seen file fails on the full disk: exit 1"
is "$(cat "$T/err")" "gt-validate: $T/full: writing the seen file: File too large" \
	"the message names the file and the real reason"
is "$(wc -c < "$T/full" | tr -d ' ')" 1024 "the last record is torn: the file ends within a line"
gt-validate --seen "$T/full" "$T/g34" > "$T/out" 2> "$T/err"
is "$?:$(head -n 1 "$T/err")" "1:gt-validate: $T/full: a torn last line (1 bytes, a write cut short) dropped" \
	"the next run goes on, with a warning naming the file and the torn bytes"
is "$(grep -c 'g34:[12]: duplicate-id' "$T/err"):$(wc -l < "$T/err" | tr -d ' ')" "2:3" \
	"and knows both games of the failed run (their id hashes were whole)"
is "$(grep -cv '^[0-9a-f]\{32\}$' "$T/full")" 0 "the file is whole lines of 32 hex digits again"
gt-validate --seen "$T/full" "$T/g12" "$T/g34" > "$T/out2" 2> "$T/err2"
is "$?:$(wc -l < "$T/out2" | tr -d ' ')" "1:0" "a third run knows all four games: none passes"
is "$(cat "$T/err2" | grep -c duplicate)" 4 "four duplicates reported"
done_testing
