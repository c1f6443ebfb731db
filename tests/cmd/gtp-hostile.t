#!/bin/sh
# A controller that sends an endless line (issue 17, item 12): gt-gtp reads
# command lines of at most 1 MiB; a 64 MiB line is answered with one error
# line, within a memory bound (ulimit -v), and the next command is answered.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
{
	printf '1 name\n'
	head -c 67108864 /dev/zero | tr '\0' 'a'
	printf '\n2 boardsize 9\n3 play b e5\n'
	# exactly 1 MiB is still a command: a comment padded to the bound
	printf '4 name #'; head -c 1048568 /dev/zero | tr '\0' 'b'
	printf '\n5 quit\n'
} > "$T/in"
# 300 MB: a 64 MiB line held whole (its buffer doubling) does not fit.
# AddressSanitizer needs terabytes of address space: no bound then
lim=300000
ldd "$GT_BIN/gt-gtp" 2>/dev/null | grep -q libasan && lim=unlimited
(ulimit -v $lim && exec gt-gtp < "$T/in") > "$T/out" 2> "$T/err"
is "$?" 0 "gt-gtp reads it within ulimit -v $lim, exit 0"
printf '=1 gt\n\n? command line too long (more than 1048576 bytes)\n\n=2 \n\n=3 \n\n=4 gt\n\n=5 \n\n' > "$T/want"
check "the long line refused in one line; the commands before and after answered" cmp -s "$T/want" "$T/out"
is "$(cat "$T/err")" "" "nothing on stderr"
done_testing
