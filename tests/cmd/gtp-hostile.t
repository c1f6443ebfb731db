#!/bin/sh
# A controller that sends an endless line (issue 17, item 12): gt-gtp reads
# command lines of at most 1 MiB; a 64 MiB line is answered with one error
# line, within a memory bound (ulimit -v), and the next command is answered.
# A controller that names hostile files (issue 31, item 5): loadsgf reads
# only regular files of at most --max-file bytes, printsgf writes only
# regular files; /dev/zero, a 20 GB file, a FIFO and a folder are each
# refused in one line at once, within the same memory bound.
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

# loadsgf and printsgf of files that are no SGF file to read whole
truncate -s 20G "$T/huge.sgf"
mkfifo "$T/fifo"
mkdir "$T/dir"
# a game of 2000 bytes or so (a comment pads it): over --max-file 1K,
# under 4K
{ printf '(;SZ[9]KM[6.5]C['; head -c 1900 /dev/zero | tr '\0' 'c'; printf '];B[ee];W[cc];B[gg])'; } > "$T/pad.sgf"
printf '%s\n' "1 loadsgf /dev/zero" "2 loadsgf $T/huge.sgf" "3 loadsgf $T/fifo" "4 loadsgf $T/dir" \
	"5 loadsgf $T/pad.sgf" "6 printsgf /dev/zero" "7 printsgf $T/fifo" "8 printsgf $T/dir" \
	"9 boardsize 9" "10 play b e5" "11 printsgf $T/out.sgf" "12 quit" > "$T/in"
start=$(date +%s)
(ulimit -v $lim && exec timeout 30 gt-gtp --max-file 1K < "$T/in") > "$T/out" 2> "$T/err"
is "$?" 0 "gt-gtp answers them all within ulimit -v $lim, exit 0"
[ $(($(date +%s) - start)) -lt 10 ]; ok $? "at once (no read of /dev/zero or of the FIFO, no 20 GB read)"
grep -v '^$' "$T/out" | sed "s|$T|T|g; s/ *\$//" > "$T/got"
cat > "$T/want" <<'EOF'
?1 cannot load file: /dev/zero: a character device, not a regular file
?2 cannot load file: T/huge.sgf: 21474836480 bytes, more than the 1024 allowed
?3 cannot load file: T/fifo: a FIFO, not a regular file
?4 cannot load file: T/dir: a directory, not a regular file
?5 cannot load file: T/pad.sgf: 1936 bytes, more than the 1024 allowed
?6 cannot write file: /dev/zero: a character device, not a regular file
?7 cannot write file: T/fifo: a FIFO, not a regular file
?8 cannot write file: T/dir: a directory, not a regular file
=9
=10
=11
=12
EOF
check "each refused in one line naming the file and why; the rest answered" cmp -s "$T/want" "$T/got"
[ "$?" = 0 ] || diff "$T/want" "$T/got" | sed 's/^/# /'
grep -q ';B\[ee\]' "$T/out.sgf"; ok $? "printsgf wrote the regular file"
is "$(printf 'loadsgf %s\nquit\n' "$T/pad.sgf" | gt-gtp -q --max-file 4K | head -1)" "= white" \
	"the same 1936-byte game loads with --max-file 4K"
is "$(printf 'loadsgf %s\nquit\n' "$T/pad.sgf" | gt-gtp -q | head -1)" "= white" "and with the default (16M)"
done_testing
