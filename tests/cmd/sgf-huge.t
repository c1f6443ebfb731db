#!/bin/sh
# The attack of a huge SGF collection (issue 17, item 12): a file of
# 300,000 small games, which once took quadratic time (every game_id hashed
# the whole file) and memory for every game at once, is read game by game
# under a memory bound (ulimit -v) and gives one record per game, each with
# its own game_id. A file over --max-file is refused and the next read.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
awk 'BEGIN { for (i = 0; i < 300000; i++)
	printf "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[%c%c])\n", 97 + i % 4, 97 + int(i / 4) % 4 }' \
	> "$T/huge.sgf"
is "$(wc -c < "$T/huge.sgf" | tr -d ' ')" 13500000 "a 13.5 MB collection of 300,000 games"
# 400 MB of address space: the file and one game fit, 300,000 parsed games
# (about 2 KB each) do not. AddressSanitizer needs terabytes of address
# space for its shadow memory: no bound then.
lim=400000
ldd "$GT_BIN/gt-sgf" 2>/dev/null | grep -q libasan && lim=unlimited
(ulimit -v $lim && exec gt-sgf "$T/huge.sgf") > "$T/huge.nd" 2> "$T/err"
is "$?" 0 "gt-sgf reads it within ulimit -v $lim, exit 0"
is "$(wc -l < "$T/huge.nd" | tr -d ' ')" 300000 "300,000 records"
is "$(grep -o '"game_id":"[0-9a-f]*"' "$T/huge.nd" | sort -u | wc -l | tr -d ' ')" 300000 \
	"300,000 distinct game_ids"
# the last game's id: sha256 of its own bytes, a NUL and its number
want=$( (tail -n 1 "$T/huge.sgf" | tr -d '\n'; printf '\000300000') | sha256sum | cut -c1-64)
is "$(tail -n 1 "$T/huge.nd" | grep -o '"game_id":"[0-9a-f]*"' | cut -d'"' -f4)" "$want" \
	"the last game's id is sha256(its bytes, NUL, \"300000\")"
head -n 3 "$T/huge.sgf" > "$T/small.sgf"
gt-sgf --max-file 1M "$T/huge.sgf" "$T/small.sgf" > "$T/two.nd" 2> "$T/err"
is "$?" 1 "--max-file 1M: exit 1"
is "$(cat "$T/err")" "gt-sgf: $T/huge.sgf: larger than --max-file (1048576 bytes); skipped" \
	"the larger file is named and skipped"
is "$(wc -l < "$T/two.nd" | tr -d ' ')" 3 "the next file is read"
done_testing
