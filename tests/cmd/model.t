#!/bin/sh
# gt-model: init and describe, determinism, errors and exit statuses.
. "${GT_SRC:-.}/tests/cmd/tap.sh"

gt-model init b2c16 --seed 7 --series run1 -o "$T/a.bin.gz"
ok $? "init b2c16"
gt-model describe "$T/a.bin.gz" >"$T/a.json"
ok $? "describe"
name=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$T/a.json")
is "$name" "run1-b2c16-s0-d0" "name in the JSON"
sha=$(sha256sum "$T/a.bin.gz" | cut -d' ' -f1)
jsha=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sha256"])' "$T/a.json")
is "$jsha" "$sha" "sha256 agrees with sha256sum"
params=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["params"], d["blocks"], d["channels"], d["parent"])' "$T/a.json")
# in 2160+16+176, blocks 2*(2304+16+2304+16+1), policy 512+32+32+1+64+1,
# value 512+32+4096+64+64+1+64+1+32+1 (hand-counted from man5 gt-model)
is "$params" "17143 2 16 None" "parameter count, architecture, no parent"
gt-model init b2c16 --seed 7 --series run1 -o "$T/b.bin.gz"
cmp -s "$T/a.bin.gz" "$T/b.bin.gz"
ok $? "same seed gives the same file"
gt-model init b2c16 --seed 8 --series run1 -o "$T/c.bin.gz"
cmp -s "$T/a.bin.gz" "$T/c.bin.gz"
[ $? -ne 0 ]; ok $? "another seed gives another file"
gt-model describe "$T/a.bin.gz" "$T/c.bin.gz" >"$T/two.json"
ok $? "describe two files"
is "$(wc -l <"$T/two.json")" 2 "one JSON line per file"

head -c 1000 "$T/a.bin.gz" >"$T/cut.bin.gz"
gt-model describe "$T/cut.bin.gz" >"$T/out" 2>"$T/err"
is $? 1 "truncated file: exit 1"
grep -q '^gt-model: .*truncated' "$T/err"
ok $? "truncated file: message names the problem"
[ ! -s "$T/out" ]; ok $? "nothing on stdout for a bad file"
gt-model init b1000000c64 -o "$T/x.bin.gz" 2>"$T/err"
is $? 2 "absurd architecture: exit 2"
grep -q 'blocks' "$T/err"; ok $? "message names the blocks"
gt-model init b2c8 --seed -3 -o "$T/x.bin.gz" 2>/dev/null
is $? 2 "negative seed: exit 2"
gt-model init b2c8 --seed 12x -o "$T/x.bin.gz" 2>/dev/null
is $? 2 "junk seed: exit 2"
gt-model init b2c8 2>/dev/null
is $? 2 "init without -o: exit 2"
gt-model frobnicate 2>/dev/null
is $? 2 "unknown verb: exit 2"
gt-model --bogus 2>/dev/null
is $? 2 "unknown option: exit 2"
gt-model -h >"$T/out"
ok $? "-h"
grep -q usage "$T/out"; ok $? "-h prints usage on stdout"
gt-model --version | grep -q '^gt-model [0-9]'
ok $? "--version"
gt-model init b2c8 -o "$T/nodir/x.bin.gz" 2>"$T/err"
is $? 1 "unwritable output: exit 1"
ls "$T" | grep -q tmp; [ $? -ne 0 ]; ok $? "no temporary files left"
# -o never replaces a device or a directory; a symbolic link is followed
if mknod "$T/dev" c 1 7 2>/dev/null; then
	gt-model init b1c8 -o "$T/dev" 2>"$T/err"
	is $? 1 "-o onto a character device: exit 1"
	[ -c "$T/dev" ]; ok $? "the device is still a device"
	grep -q "not a regular file" "$T/err"; ok $? "said: not a regular file"
fi
mkdir "$T/adir"
gt-model init b1c8 -o "$T/adir" 2>/dev/null
is $? 1 "-o onto a directory: exit 1"
gt-model init b1c8 --seed 1 -o "$T/target.bin.gz" && ln -s target.bin.gz "$T/link.bin.gz"
gt-model init b1c8 --seed 2 -o "$T/link.bin.gz"
[ -L "$T/link.bin.gz" ]; ok $? "a symbolic link stays a link"
gt-model init b1c8 --seed 2 -o "$T/seed2.bin.gz"
cmp -s "$T/target.bin.gz" "$T/seed2.bin.gz"; ok $? "and the file it names holds the new model"
done_testing
