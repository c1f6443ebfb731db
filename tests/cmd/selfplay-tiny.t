#!/bin/sh
# gt-selfplay on a board too small for its komi (issue 17, item 14): the
# default komi 7 on 2x2 (4 points) once wrote records gt-validate refuses;
# now that is a usage error up front, and a komi that fits gives records
# gt-validate accepts.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
gt-selfplay --model none --games 2 --visits 4 --board-size 2 --seed 1 > "$T/out" 2> "$T/err"
is "$?" 2 "--board-size 2 with the default komi 7: usage error (exit 2)"
grep -q "komi 7 is not a multiple of 0.5 within +-4, the points of a 2x2 board" "$T/err"; ok $? "saying why"
is "$(wc -c < "$T/out" | tr -d ' ')" 0 "no record written"
gt-selfplay --model none --games 2 --visits 4 --board-size 9 --komi 7.3 --seed 1 > "$T/out" 2> "$T/err"
is "$?" 2 "--komi 7.3 (no multiple of 0.5): usage error"
gt-selfplay --model none --games 1 --visits 4 --board-size 2 --komi 0.5 --seed 1 > "$T/g" 2> "$T/err"
is "$?" 0 "--board-size 2 --komi 0.5: exit 0"
# 2x2 games are short: gt-validate's length bound is the run's to set
gt-validate --min-moves 1 "$T/g" > "$T/ok" 2> "$T/err"
is "$?:$(wc -l < "$T/ok" | tr -d ' ')" "0:1" "gt-validate accepts its game"
done_testing
