#!/bin/sh
# KataGo networks in gt's commands: gt-model describe, malformed and
# unsupported files (one-line errors, nothing large allocated), gt-gtp with
# KataGo's b6c96 beating a random gt network, a legal game against GNU Go,
# gt-analyze and gt-selfplay on it, the cuda backend refused.
. "${GT_SRC:-.}/tests/cmd/tap.sh"

D=${GT_KATAGO_DATA:-$GT_SRC/../shared/data/katago}
K=$D/g170-b6c96-s175395328-d26788732.bin.gz
[ -r "$K" ] || skip_all "KataGo's b6c96 not found ($D; GT_KATAGO_DATA)"

json() { # json FILE EXPR: print EXPR of the JSON object d in FILE
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

gt-model describe "$K" >"$T/d.json"
ok $? "describe KataGo's b6c96"
is "$(json "$T/d.json" 'd["format"], d["format_version"], d["arch"], d["gpool_blocks"], d["input_planes"], d["global_inputs"], d["score_outputs"]')" \
   "('katago', 8, 'b6c96', 2, 22, 19, 4)" "format, version 8, b6c96, 2 gpool blocks, 22+19 inputs"
is "$(json "$T/d.json" 'd["sha256"]')" "$(sha256sum "$K" | cut -d' ' -f1)" "sha256 of the file"
zcat "$K" >"$T/k.bin"
gt-model describe "$T/k.bin" >"$T/b.json"
ok $? "the uncompressed .bin"
is "$(json "$T/b.json" 'd["params"]')" "$(json "$T/d.json" 'd["params"]')" "same parameters"

# malformed and unsupported files: exit 1, one line naming what is wrong
cat >"$T/bad.py" <<'PY'
import gzip, sys
d = open(sys.argv[1], "rb").read()
out = sys.argv[2]
name, rest = d.split(b"\n", 1)
ver, rest2 = rest.split(b"\n", 1)
def w(fn, b): open(out + "/" + fn, "wb").write(b)
w("trunc.bin", d[:200000])
w("v7.bin", name + b"\n7\n" + rest2)
w("v99.bin", name + b"\n99\n" + rest2)
w("transformer.bin", d.replace(b"ordinary_block", b"transformer_ffn_block", 1))
# the trunk header: name, blocks, channels ...; then the initial conv
i = d.index(b"rconv1") if b"rconv1" in d else 0
hdr = rest2.split(b"\n")
# absurd sizes: the initial conv's channels, and one that fits the bound but
# whose floats are missing (memory must follow the data, not the header)
j = d.index(b"conv1\n")
head = d[:j]
w("huge.bin", head + b"conv1\n9\n9\n4096\n4096\n1\n1\n@BIN@" + b"\0" * 1000)
w("bigtrunc.bin", head + b"conv1\n3\n3\n4096\n4096\n1\n1\n@BIN@" + b"\0" * 100000)
w("range.bin", head + b"conv1\n5\n5\n22\n999999999\n1\n1\n")
w("dilated.bin", head + b"conv1\n5\n5\n22\n96\n2\n2\n")
PY
/usr/bin/python3 "$T/bad.py" "$T/k.bin" "$T"
ok $? "malformed files written"
bad() { # bad FILE PATTERN "name"
	gt-model describe "$T/$1" >"$T/out" 2>"$T/err"
	st=$?
	[ $st -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$2" "$T/err"
	ok $? "$3"
	[ $st -eq 1 ] || diag "exit $st: $(cat "$T/err")"
}
bad trunc.bin "truncated" "truncated file: one-line error"
bad v7.bin "version 7 not supported" "model version 7: unsupported, named"
bad v99.bin "version 99 not supported" "model version 99: unsupported, named"
bad transformer.bin "block kind transformer_ffn_block not supported" "a transformer block: refused, named"
bad huge.bin "more than 268435456 parameters" "absurd convolution size: refused before reading"
bad range.bin "out of range" "channels out of range"
bad dilated.bin "dilated convolution" "dilated convolution: refused"
bad bigtrunc.bin "truncated" "a 600 MB layer with its data missing"
if nm "$GT_BIN/gt-model" 2>/dev/null | grep -q __asan_init; then
	ok 0 "# SKIP memory bound under the address sanitizer"
else
	# 300 MB of address space, half the layer's 600: OpenBLAS reserves
	# about 130 MB of buffers as it starts and the libraries (oneDNN's
	# 40 MB of code among them) take 60 more; with less, OpenBLAS's start
	# never ends (timeout: a hang is a failure, not a stuck test)
	(ulimit -v 300000; timeout 60 gt-model describe "$T/bigtrunc.bin") >/dev/null 2>"$T/err"
	grep -q truncated "$T/err"
	ok $? "... within 300 MB of address space (memory follows the data)"
fi

# the commands: gt-gtp, gt-elo, gt-analyze, gt-selfplay
printf 'boardsize 9\nclear_board\nplay b E5\ngenmove w\nquit\n' >"$T/in"
gt-gtp -q --model "$K" --visits 8 --threads 1 <"$T/in" >"$T/gtp" 2>"$T/gerr"
ok $? "gt-gtp --model KataGo's network"
grep -q '^= [A-HJ-T][0-9]' "$T/gtp"
ok $? "genmove answers a move"
gt-gtp -q --model "$K" --backend cuda <"$T/in" >"$T/gtp" 2>"$T/gerr"
[ $? -ne 0 ] && grep -q "cpu backend only" "$T/gerr"
ok $? "--backend cuda: refused with a clear error"
gt-model init b2c16 --seed 3 -o "$T/rand.bin.gz"
gt-elo --games 4 --visits 8 --board-size 9 --seed 5 --records "$T/recs" \
	"gtp:gt-gtp -q --model $K --visits 8 --board-size 9" \
	"gtp:gt-gtp -q --model $T/rand.bin.gz --visits 8 --board-size 9" >"$T/elo" 2>"$T/eerr"
ok $? "gt-elo: gt-gtp with b6c96 against gt-gtp with a random network"
is "$(json "$T/elo" 'd["wins"]')" 4 "the KataGo network wins all 4 games (features oriented right)"
GNUGO=/usr/games/gnugo
if [ -x "$GNUGO" ]; then
	gt-elo --games 2 --visits 8 --board-size 9 --seed 5 --records "$T/gg" \
		"gtp:gt-gtp -q --model $K --visits 8 --board-size 9" \
		"gtp:$GNUGO --mode gtp --level 1 --chinese-rules" >"$T/gs" 2>"$T/err"
	ok $? "gt-gtp with b6c96 against GNU Go, 2 games"
	gt-validate --allow-unscored-results <"$T/gg" >/dev/null 2>"$T/verr"
	ok $? "legal games (gt-validate)"
else
	ok 0 "# SKIP no $GNUGO"; ok 0 "# SKIP no $GNUGO"
fi
echo '{"id":"q","moves":[["B","E5"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":8,"includeOwnership":true}' |
	gt-analyze --model "$K" >"$T/an" 2>"$T/aerr"
ok $? "gt-analyze with the KataGo network"
is "$(json "$T/an" 'len(d["ownership"]), len(d["moveInfos"]) > 0')" "(81, True)" "an answer with ownership and moves"
gt-selfplay --model "$K" --games 1 --visits 8 --cheap-visits 4 --board-size 9 --max-moves 30 >"$T/sp" 2>"$T/serr"
ok $? "gt-selfplay --model KataGo's network"
gt-validate <"$T/sp" >/dev/null 2>"$T/verr"
ok $? "its record is valid"
is "$(json "$T/sp" 'd["model"]')" "g170-b6c96-s175395328-d26788732" "the record names the network"
done_testing
