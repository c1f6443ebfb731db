#!/bin/sh
# gt-gtp: usage; every command of lib/gtp's list through the real binary with
# exact responses and error strings (CRLF line ends, comments, tabs, ids);
# illegal moves rejected; moves after two passes; genmove on a random-init
# b1c8 network answers a legal vertex; the time budget bounds a genmove;
# analysis lines on stdout inside their responses, the search summary on
# stderr (off with -q); quit during analysis; random moves without --model.
# (tests/cmd/gtp-sabaki.t drives it with a real GUI's GTP client.)
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-gtp >/dev/null || skip_all "gt-gtp not built"

check_help gt-gtp --model
gt-gtp --version >"$T/out" 2>&1
ok $? "--version exits 0"
gt-gtp --bogus </dev/null >/dev/null 2>&1
is $? 2 "unknown option: exit 2"
gt-gtp --visits 0 </dev/null >/dev/null 2>&1
is $? 2 "--visits 0: exit 2"
gt-gtp --board-size 20 </dev/null >/dev/null 2>&1
is $? 2 "--board-size 20: exit 2"
gt-gtp --model "$T/missing.bin.gz" </dev/null >"$T/out" 2>"$T/err"
is $? 1 "a model that cannot be read: exit 1"
grep -q '^gt-gtp: ' "$T/err"
ok $? "and says so"

# one session: CRLF line ends, a comment line, an empty line, a trailing
# comment, a tab, and input after quit that must not be answered
printf '%s\r\n' "1 protocol_version" "2 name" "3 version" "4 known_command genmove" \
	"5 known_command frobnicate" "6 list_commands" "# a comment line" "" \
	"7 boardsize 25" "8 boardsize x" "9 boardsize 9 # trailing comment" "10 komi 6.5" \
	"11 komi abc" "12 final_score" "13 play b E5" "14 play w E5" "15 play w J10" \
	"16 play q E4" "17 play b" "18 undo" "19 undo" "20 frobnicate" \
	"21 time_settings 10 0 0" "22 time_left b 5 0" "23 time_settings x 0 0" \
	"24 gt-rules tromp-taylor" "25 gt-rules go-moku" "26 clear_board" "27 play b A2" \
	"28 play b B1" "29 play w A1" "30 showboard" "31 play w pass" "32 play b pass" \
	"33 play w C3" "34 play b C3" "	35	name" "quit" "36 name" >"$T/in"
gt-gtp --model none --visits 4 <"$T/in" >"$T/out" 2>"$T/err"
ok $? "a session ending in quit exits 0"
cat >"$T/want" <<'END'
=1 2

=2 gt

=3 VERSION

=4 true

=5 false

=6 protocol_version
name
version
known_command
list_commands
quit
boardsize
clear_board
komi
get_komi
play
genmove
undo
showboard
fixed_handicap
place_free_handicap
set_free_handicap
final_score
final_status_list
time_settings
time_left
kgs-time_settings
kgs-rules
kgs-genmove_cleanup
loadsgf
printsgf
gogui-analyze_commands
gt-rules
kata-get-rules
kata-set-rules
stop
clear_cache
lz-analyze
lz-genmove_analyze
kata-analyze
kata-genmove_analyze
analyze
genmove_analyze
gt-ownership
kata-raw-nn
kata-get-param
kata-set-param
kata-list-params

?7 unacceptable size

?8 syntax error

=9 

=10 

?11 syntax error

=12 W+6.5

=13 

?14 illegal move

?15 illegal move

?16 syntax error

?17 syntax error

=18 

?19 cannot undo

?20 unknown command

=21 

=22 

?23 syntax error

=24 

?25 unknown rules

=26 

=27 

=28 

?29 illegal move

=30 
    A B C D E F G H J
 9  . . . . . . . . .  9
 8  . . . . . . . . .  8
 7  . . . . . . . . .  7
 6  . . . . . . . . .  6
 5  . . . . . . . . .  5
 4  . . . . . . . . .  4
 3  . . . . . . . . .  3
 2  X . . . . . . . .  2
 1  . X . . . . . . .  1
    A B C D E F G H J

=31 

=32 

=33 

?34 illegal move

=35 gt

= 

END
v=$(gt-gtp --version | sed 's/^gt-gtp //')
sed "s/VERSION/$v/" "$T/want" >"$T/want2"
cmp -s "$T/out" "$T/want2"
ok $? "every response as GTP version 2 says"
[ $? -eq 0 ] || diff "$T/want2" "$T/out" | sed 's/^/#   /' | head -20

# superko: a ko retaken at once is refused
printf '%s\n' "boardsize 5" "play b B1" "play w C1" "play b A2" "play w D2" "play b B3" \
	"play w C3" "play b C2" "play w B2" "play b C2" "genmove b" >"$T/in"
gt-gtp --model none --visits 8 <"$T/in" >"$T/out" 2>&1
is "$(grep -c '^?' "$T/out")" 1 "retaking a ko at once: one refusal"
sed -n '/^?/p' "$T/out" >"$T/ko"
is "$(cat "$T/ko")" "? illegal move" "and it is 'illegal move'"

# genmove with a random-init network answers a legal vertex, which is then
# on the board (playing there again is illegal)
gt-model init b1c8 --seed 5 -o "$T/net.bin.gz" 2>/dev/null
ok $? "gt-model init b1c8"
printf '%s\n' "boardsize 9" "komi 7" "play b E5" "genmove w" >"$T/in"
gt-gtp --model "$T/net.bin.gz" --visits 16 --threads 1 <"$T/in" >"$T/out" 2>"$T/err"
ok $? "genmove with a b1c8 network"
mv=$(sed -n 's/^= \([A-HJ-T][0-9]*\)$/\1/p' "$T/out" | tail -1)
test -n "$mv" && test "$mv" != E5
ok $? "genmove answers a vertex other than E5 ($mv)"
printf '%s\n' "boardsize 9" "komi 7" "play b E5" "genmove w" "play b $mv" "genmove b" "genmove w" \
	"showboard" >"$T/in"
gt-gtp --model "$T/net.bin.gz" --visits 16 --threads 1 <"$T/in" >"$T/out2" 2>"$T/err2"
is "$(sed -n 9p "$T/out2")" "? illegal move" "the point it chose is taken"
is "$(grep -c '^= [A-HJ-T][0-9]' "$T/out2")" 3 "three genmoves in one game (tree kept between moves)"
is "$(grep -c 'O' "$T/out2")" 2 "two white stones on the board"
gt-gtp --model "$T/net.bin.gz" --visits 16 --threads 1 <"$T/in" >"$T/out3" 2>"$T/err3"
cmp -s "$T/out2" "$T/out3"
ok $? "the same session twice: the same moves"

# genmove for the side not to move
printf '%s\n' "boardsize 9" "genmove w" "genmove w" >"$T/in"
gt-gtp --model "$T/net.bin.gz" --visits 8 --threads 1 <"$T/in" >"$T/out" 2>&1
is "$(grep -c '^= [A-HJ-T][0-9]' "$T/out")" 2 "genmove w twice in a row: two vertices"

# time: 0.3 s a move in byo-yomi bounds a search of a million visits
printf '%s\n' "boardsize 9" "time_settings 0 3 10" "time_left b 0.3 1" "genmove b" >"$T/in"
t0=$(date +%s.%N)
gt-gtp --model "$T/net.bin.gz" --visits 1000000 <"$T/in" >"$T/out" 2>&1
t1=$(date +%s.%N)
grep -q '^= [A-HJ-T][0-9]' "$T/out"
ok $? "a time-limited genmove answers a vertex"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 10) }'
ok $? "within the budget (0.3 s a move; took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"

# analysis: lz-analyze and kata-analyze stream info lines on stdout inside
# their response (as Leela Zero and KataGo do: that is GTP's channel, where
# Sabaki and Lizzie read them) until the next command; the search summary
# of a genmove goes to stderr, and -q turns it off. The engine reads from a
# fifo that stays open, so quit during analysis must end it at once.
mkfifo "$T/fifo"
gt-gtp --model "$T/net.bin.gz" --visits 50 <"$T/fifo" >"$T/aout" 2>"$T/aerr" &
pid=$!
exec 3>"$T/fifo"
# seen ID: an info line in response ID is in the output (20 s at most:
# a loaded machine may take longer than any fixed sleep)
seen() {
	i=0
	while [ $i -lt 200 ]; do
		awk -v id="=$1" '$0 == id { s = 1; next } /^=/ { s = 0 } s && /^info/ { f = 1 } END { exit !f }' "$T/aout" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
printf '1 boardsize 9\n2 lz-analyze 5\n' >&3
seen 2
printf '3 kata-analyze B 5 ownership true\n' >&3
seen 3
printf '4 genmove b\n5 lz-genmove_analyze w 5\n' >&3
seen 5
printf '6 kata-analyze 5\n' >&3
seen 6
printf 'quit\n' >&3
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $pid 2>/dev/null
is $? 1 "quit during analysis ends gt-gtp while its input stays open"
exec 3>&-
wait $pid
ok $? "and it exits 0"
grep -q '^=2$' "$T/aout" && grep -q '^=3$' "$T/aout" && grep -q '^=6$' "$T/aout"
ok $? "analysis responses start '=id' and a newline"
grep '^info move [A-HJ]' "$T/aout" | head -1 |
	grep -Eq '^info move [A-HJ][1-9] visits [0-9]+ winrate [0-9]+ prior [0-9]+ lcb [0-9]+ order 0 pv( [A-HJ][1-9]| pass)+( info |$)'
ok $? "lz-analyze: Leela Zero's line"
sed -n '/^=3$/,/^$/p' "$T/aout" | grep '^info' | head -1 >"$T/kline"
grep -Eq '^info move [A-HJ][1-9] visits [0-9]+ edgeVisits [0-9]+ utility -?[0-9.]+ winrate 0\.[0-9]+ scoreMean -?[0-9.]+ scoreStdev [0-9.]+ scoreLead -?[0-9.]+ scoreSelfplay -?[0-9.]+ prior 0\.[0-9]+ lcb -?[0-9.]+ utilityLcb -?[0-9.]+ weight [0-9]+ order 0 pv' "$T/kline"
ok $? "kata-analyze: KataGo's keys"
is "$(sed 's/.* ownership //' "$T/kline" | wc -w)" 81 "ownership: 81 values after the moves"
grep -q '^play [A-HJ][1-9]$' "$T/aout"
ok $? "lz-genmove_analyze ends with 'play VERTEX'"
bad=$(awk '/^[=?]/ || /^info / || /^play / || /^$/ { next } { print }' "$T/aout" | wc -l)
is "$bad" 0 "stdout holds GTP responses only (analysis lines inside their response)"
grep -q '^gt-gtp: genmove B: [A-HJ][1-9]  visits [0-9]*  winrate' "$T/aerr"
ok $? "the search summary of genmove on stderr"
grep -q '^gt-gtp: genmove W: ' "$T/aerr"
ok $? "and of lz-genmove_analyze"
grep -q 'info\|^=' "$T/aerr"
is $? 1 "no analysis line or response on stderr"
printf '%s\n' "boardsize 9" "genmove b" "genmove w" >"$T/in"
gt-gtp -q --model "$T/net.bin.gz" --visits 8 <"$T/in" >"$T/out" 2>"$T/err"
test ! -s "$T/err"
ok $? "-q: nothing on stderr"
printf '%s\n' "kata-analyze 5 bogus 1" "lz-analyze 5 ownership true" >"$T/in"
gt-gtp -q --model "$T/net.bin.gz" <"$T/in" >"$T/out" 2>&1
is "$(grep -c '^? syntax error' "$T/out")" 2 "unknown analysis keys: syntax error"

# without --model: random legal moves; a whole game of them ends in passes
{ echo "boardsize 7"; i=0; while [ $i -lt 150 ]; do echo "genmove b"; echo "genmove w"; i=$((i + 1)); done; echo final_score; } >"$T/in"
gt-gtp --seed 3 <"$T/in" >"$T/out" 2>&1
ok $? "300 random genmoves"
is "$(grep -c '^?' "$T/out")" 0 "no errors"
grep -q '^= pass$' "$T/out"
ok $? "the random player passes at the end"
grep -q '^= [BW0]' "$T/out"
ok $? "final_score answers"
done_testing
