#!/bin/sh
# A network file with bytes after its gzip stream (issue 17, item 14):
# zlib's reader skips what follows a gzip member when it is no gzip
# header, so junk used to pass; gt-model(5) says trailing data is
# rejected, and now it is, as is a second gzip member.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
gt-model init b1c8 --seed 1 -o "$T/m.bin.gz"; ok $? "a network"
gt-model describe "$T/m.bin.gz" > /dev/null 2>&1; ok $? "it reads"
size=$(wc -c < "$T/m.bin.gz" | tr -d ' ')
for junk in 'x' 'junk after the stream' "$(printf '\037')"; do
	cp "$T/m.bin.gz" "$T/j.bin.gz"
	printf '%s' "$junk" >> "$T/j.bin.gz"
	gt-model describe "$T/j.bin.gz" > /dev/null 2> "$T/err"
	is "$?:$(cat "$T/err")" "1:gt-model: $T/j.bin.gz: trailing data after the gzip stream" \
		"$(printf '%s' "$junk" | wc -c | tr -d ' ') bytes of junk after the stream: refused"
done
cat "$T/m.bin.gz" "$T/m.bin.gz" > "$T/two.bin.gz"
gt-model describe "$T/two.bin.gz" > /dev/null 2> "$T/err"
is "$?" 1 "a second gzip member: refused"
cp "$T/m.bin.gz" "$T/j.bin.gz"; printf 'x' >> "$T/j.bin.gz"
echo 'name' | gt-gtp --model "$T/j.bin.gz" > /dev/null 2> "$T/err"
is "$?" 1 "gt-gtp refuses the network with junk"
is "$(wc -c < "$T/m.bin.gz" | tr -d ' ')" "$size" "(the good file untouched)"
done_testing
