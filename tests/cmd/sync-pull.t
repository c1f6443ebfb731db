#!/bin/sh
# gt-sync pull: order, state, re-delivery after a failed write, hostile
# batches (corrupt, truncated, gzip bombs) that are skipped with bounded
# memory, and a share of the batches (--share), the newest only (--newest),
# the counts (--stats).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
S=$T/store/games
mkdir -p "$S"
python3 - "$S" <<'PY'
import gzip, sys, os, zlib
d = sys.argv[1]
def gz(name, data):
    with gzip.open(os.path.join(d, name), "wb", compresslevel=6) as f:
        f.write(data)
gz("a-1.ndjson.gz", b'{"g":"a1"}\n{"g":"a2"}\n\n{"g":"a3"}')           # blank line, no final newline
gz("b-bomb.ndjson.gz", b"x" * (8 << 20))                              # one 8 MiB line
good = gzip.compress(b''.join(b'{"g":"c%d"}\n' % i for i in range(20000)))
open(os.path.join(d, "c-trunc.ndjson.gz"), "wb").write(good[:len(good) // 2])
bad = bytearray(gzip.compress(b'{"g":"x"}\n' * 1000)); bad[-8] ^= 0xff   # crc mismatch
open(os.path.join(d, "c-crc.ndjson.gz"), "wb").write(bytes(bad))
open(os.path.join(d, "d-2.ndjson"), "wb").write(b'{"g":"d1"}\n{"g":"d2"}\n')
gz("e-endless.ndjson.gz", b'{"g":"e"}\n' * 300000)                     # 3 MB of short lines
open(os.path.join(d, "f-notgz.ndjson.gz"), "wb").write(b'{"g":"f"}\n')
open(os.path.join(d, "README.txt"), "wb").write(b"not a batch\n")
PY
ls -l "$S" | sed 's/^/# /'

gt-sync pull "$S/" --state "$T/state" --max-line 65536 --max-batch 1000000 > /dev/full 2>"$T/err"
is $? 1 "a failed write on stdout is an error"
[ ! -s "$T/state" ] || ! grep -q "a-1" "$T/state"; ok $? "and the batch is not marked consumed"

gt-sync pull "$S/" --state "$T/state" --max-line 65536 --max-batch 1000000 > "$T/out" 2>"$T/err"
ok $? "pull skips bad batches and goes on"
is "$(tr '\n' ' ' < "$T/out")" '{"g":"a1"} {"g":"a2"} {"g":"a3"} {"g":"d1"} {"g":"d2"} ' \
	"records of good batches, in name order, blank lines dropped, last newline added"
is "$(tr '\t\n' ': ' < "$T/state")" \
	"a-1.ndjson.gz:ok b-bomb.ndjson.gz:bad c-crc.ndjson.gz:bad c-trunc.ndjson.gz:bad d-2.ndjson:ok e-endless.ndjson.gz:bad f-notgz.ndjson.gz:bad " \
	"state: good ones ok, bad ones bad, other names ignored"
grep -q 'b-bomb.ndjson.gz.*longer than 65536 bytes' "$T/err"; ok $? "the one-line bomb is stopped by --max-line"
grep -q 'e-endless.ndjson.gz.*beyond 1000000 bytes' "$T/err"; ok $? "the endless batch is stopped by --max-batch"
grep -q 'c-trunc.ndjson.gz.*corrupt or truncated' "$T/err"; ok $? "a truncated gzip is reported"
grep -q 'c-crc.ndjson.gz.*corrupt or truncated' "$T/err"; ok $? "a gzip with a bad CRC is reported"
grep -q 'f-notgz.ndjson.gz.*not gzip' "$T/err"; ok $? "a .gz that is not gzip is reported"
grep -q "c[0-9]" "$T/out"; is $? 1 "nothing of the truncated batch was written"

gt-sync pull "$S/" --state "$T/state" > "$T/out2" 2>"$T/err2"
is "$(wc -c < "$T/out2")" 0 "bad batches are not retried, good ones not re-delivered"
is "$(wc -c < "$T/err2")" 0 "quietly"

printf '{"g":"g1"}\n' | gzip > "$S/g-3.ndjson.gz"
printf '{"g":"0"}\n' | gzip > "$S/0-late.ndjson.gz"
gt-sync pull "$S/" --state "$T/state" > "$T/out3"
is "$(tr '\n' ' ' < "$T/out3")" '{"g":"0"} {"g":"g1"} ' "new batches only, even one sorting before consumed ones"

# the default --max-line lets a long but legal line through
python3 -c 'import gzip,sys; sys.stdout.buffer.write(gzip.compress(b"{\"g\":\"" + b"y"*200000 + b"\"}\n"))' > "$S/h-long.ndjson.gz"
gt-sync pull "$S/" --state "$T/state" > "$T/out4"
is "$(wc -c < "$T/out4")" 200009 "a 200 kB line passes the default limit"

# memory stays bounded whatever a batch expands to: a 64 MiB line (64 kB
# of gzip) is refused, or with a larger --max-line streamed, in a few MB
mkdir -p "$T/bomb"
python3 - "$T/bomb/a-bomb.ndjson.gz" <<'PY'
import sys, zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(sys.argv[1], "wb") as f:
    for i in range(64):
        f.write(c.compress(b"x" * (1 << 20)))
    f.write(c.flush())
PY
printf '{"g":"after"}\n' | gzip > "$T/bomb/b-after.ndjson.gz"
rss() { # command...: exit status, then the peak RSS of the command in kB
	python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
# the bound is over what the program takes before it does anything (the
# libraries it loads: with the CUDA build, cuBLAS alone is about 220 MB)
base=$(rss gt-sync --version | cut -d' ' -f2)
set -- $(rss gt-sync pull --max-line 1048576 "$T/bomb/" --state "$T/bst1")
is "$1" 0 "a 64 MiB line is refused and the pull goes on"
[ "$2" -lt $((base + 49152)) ]; ok $? "in bounded memory (peak $2 kB, $base kB at the start)"
is "$(tr '\t\n' ': ' < "$T/bst1")" "a-bomb.ndjson.gz:bad b-after.ndjson.gz:ok " "the next batch is processed"
set -- $(rss gt-sync pull --max-line 104857600 "$T/bomb/" --state "$T/bst2")
is "$1" 0 "with --max-line 100 MiB the 64 MiB line passes"
[ "$2" -lt $((base + 49152)) ]; ok $? "streamed, not buffered (peak $2 kB, $base kB at the start)"

gt-sync pull "$T/nothing/games/" --state "$T/nstate" > "$T/out6" 2>"$T/err"
ok $? "pulling a folder that does not exist yet succeeds"
grep -q "no such folder" "$T/err"; ok $? "with a warning"

printf '../x\tok\n' > "$T/badstate"
gt-sync pull "$S/" --state "$T/badstate" > "$T/out5" 2>"$T/err"
is $? 1 "a malformed state file is an error"
is "$(wc -c < "$T/out5")" 0 "and nothing is delivered"
# --share K/U: the batches whose name hashes (FNV-1a 64) to K modulo U,
# disjoint and covering; --newest N: the N newest by listing time, the
# older ones marked old; --stats: counts and bytes
P=$T/share
mkdir -p "$P"
i=0
while [ $i -lt 12 ]; do
	printf '{"g":%d}\n' $i | gzip > "$P/w$i-x.ndjson.gz"
	touch -d "@$((1767225600 + i))" "$P/w$i-x.ndjson.gz"
	i=$((i + 1))
done
for k in 0 1 2; do
	gt-sync pull "$P/" --state "$T/sh$k" --share $k/3 --stats "$T/st$k" > "$T/o$k" 2>"$T/err"
	ok $? "--share $k/3"
done
want=$(ls "$P" | python3 -c '
import sys
for n in sys.stdin.read().split():
    h = 14695981039346656037
    for b in n.encode():
        h = ((h ^ b) * 1099511628211) % 2**64
    print("%d %s" % (h % 3, n))' | sort | awk '{ printf "%s%s", s[$1]++ ? "," : ($1 ? " " : ""), $2 } END { print "" }')
is "$(for k in 0 1 2; do cut -f1 "$T/sh$k" | sort | paste -sd, -; done | paste -sd' ' -)" "$want" \
	"each share the batches whose FNV-1a 64 of the name is K modulo 3"
is "$(cat "$T/o0" "$T/o1" "$T/o2" | wc -l)" 12 "the three shares together pull every batch once"
is "$(jq -s 'map(.batches) | add' "$T/st0" "$T/st1" "$T/st2")" 12 "--stats: batches"
is "$(jq -s 'map(.bytes) | add' "$T/st0" "$T/st1" "$T/st2")" "$(cat "$P"/* | wc -c)" "--stats: the bytes as stored"
is "$(jq -c '{bad, old, records: (.records == .batches)}' "$T/st0")" '{"bad":0,"old":0,"records":true}' "--stats: bad, old, records"
gt-sync pull "$P/" --state "$T/nw" --newest 3 > "$T/onw" 2>"$T/err"
ok $? "--newest 3"
is "$(jq -c .g "$T/onw" | paste -sd, -)" "10,11,9" "the three newest batches by time, in name order"
is "$(grep -c '	old$' "$T/nw")" 9 "the nine older ones marked old"
printf '{"g":12}\n' | gzip > "$P/w12-x.ndjson.gz"
gt-sync pull "$P/" --state "$T/nw" > "$T/onw2" 2>"$T/err"
is "$(jq -c .g "$T/onw2" | paste -sd, -)" 12 "then only what is new: the old ones are never pulled"
gt-sync pull "$P/" --state "$T/x" --share 3/3 > /dev/null 2>&1; is $? 2 "--share 3/3: exit 2"
gt-sync pull "$P/" --state "$T/x" --share 1 > /dev/null 2>&1; is $? 2 "--share without /U: exit 2"
gt-sync pull "$P/" --state "$T/x" --newest 0 > /dev/null 2>&1; is $? 2 "--newest 0: exit 2"
done_testing
