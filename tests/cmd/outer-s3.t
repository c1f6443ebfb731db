#!/bin/sh
# The outer process and a learning unit over s3:// (npm's s3rver behind
# tests/s3/s3proxy.py, which checks every SigV4 signature with botocore and
# does If-Match/If-None-Match as S3 documents them): the pointer
# diloco/current.json and the lease are put with conditions (If-None-Match:
# * the first time, If-Match: the ETag read after), and another writer that
# comes between gt-outer's read and its put (the proxy replaces the object
# right after a GET) is detected, reported and not overwritten, while a
# put the server took whose answer was lost (the retry's 412) is not
# taken for one. The
# requests of one unit round and one outer version are printed as
# diagnostics.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/s3/s3.sh"
s3_up
S=s3://gt/r
L=$S3/proxy/requests.log

gt-selfplay --model none --games 4 --visits 8 --cheap-visits 4 --full-prob 1 \
	--board-size 7 --seed 5 >"$T/g.ndjson" 2>"$T/e" &&
	gt-shard -o "$T/d" "$T/g.ndjson" >"$T/m" 2>>"$T/e" &&
	gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>>"$T/e"
ok $? "fixture: a b1c8 network and shards"
outer() { # gt-outer for one version; its events in $T/ev, errors in $T/outer.err
	gt-outer --store "$S" --state "$T/outer" --init "$T/m0.bin.gz" --quorum 1 --grace 0 \
		--poll 0.05 --versions 1 --insecure-units "$@" >>"$T/ev" 2>"$T/outer.err"
}
unit() { # one round of gt-unit u0
	gt-unit --store "$S" --data "$T/d" --unit u0 --rounds 1 --inner-steps 2 --batch 8 \
		--window 1000 --codec fp32 --cache "$T/c" --wait-version 0 --poll 0.05 \
		>>"$T/units.out" 2>>"$T/units.err"
}
# requests PHASE: the proxy's log of the phase that ended, summed up
requests() {
	mv "$L" "$T/log.$1"
	: > "$L"
	s3_requests "$T/log.$1"
}
cur() { s3aws s3 cp s3://gt/r/diloco/current.json - 2>/dev/null; }

# version 0, then version 1 of one unit's delta
outer &
OP=$!
unit; ok $? "a unit round over s3://"
wait $OP; ok $? "gt-outer made version 1 over s3://"
is "$(cur | jq .version)" 1 "the pointer names version 1"
grep -q '^PUT /gt/r/diloco/current.json 200 .* \*$' "$L"; ok $? "the first pointer put with If-None-Match: *"
grep -q '^PUT /gt/r/diloco/current.json 200 .* "[0-9a-f]*"$' "$L"; ok $? "the next with If-Match: the ETag read"
grep -q '^PUT /gt/r/diloco/lease.json 200 .* \*$' "$L" &&
	grep -q '^PUT /gt/r/diloco/lease.json 200 .* "[0-9a-f]*"$' "$L"
ok $? "and the lease likewise"
is "$(grep -c ' 403 ' "$L")" 0 "no request refused by the signature check"
diag "outer start (version 0), one unit round, version 1: $(requests start)"

# one round alone: a unit's round, then gt-outer's start and version 2
unit; ok $? "a second unit round"
diag "one unit round (fetch version 1, a delta up): $(requests unit)"
outer; ok $? "version 2"
diag "gt-outer's start and one version of one delta: $(requests version)"
is "$(cur | jq .version)" 2 "the pointer names version 2"

# a put of the pointer that the server took but whose answer was lost:
# the retry's If-Match fails (412), and the pointer read back is this
# one's, so no conflict
unit; ok $? "a third unit round"
printf 'gt/r/diloco/current.json\n' > "$S3/proxy/drop"
: > "$L"
outer; ok $? "version 3, though the answer to the pointer's put was lost: $(cat "$T/outer.err")"
grep -q '^PUT /gt/r/diloco/current.json 0 ' "$L" && grep -q '^PUT /gt/r/diloco/current.json 412 ' "$L"
ok $? "(the put taken, the retry's refused: 412)"
is "$(cur | jq .version)" 3 "the pointer names version 3"

# another writer between gt-outer's read of the pointer at the version's
# put and its put: the server answers 412 and gt-outer stops
unit; ok $? "a fourth unit round"
printf '{"version":99,"by":"another writer"}\n' > "$T/theirs.json"
# GET 1: gt-outer's start; GET 2: the read just before the put
printf 'gt/r/diloco/current.json 2 %s\n' "$T/theirs.json" > "$S3/proxy/race"
: > "$L"
outer; is $? 1 "a lost race: gt-outer fails"
is "$(wc -l < "$T/outer.err")" 1 "with one line"
grep -q "^gt-outer: put pointer: s3://gt/r/diloco/current.json changed since it was read; not overwritten" "$T/outer.err"
ok $? "saying so: $(cat "$T/outer.err")"
grep -q '^PUT /gt/r/diloco/current.json 412 ' "$L"; ok $? "the server refused the put (412)"
cur > "$T/now.json"
cmp -s "$T/theirs.json" "$T/now.json"; ok $? "the other writer's pointer stays"

# the lease: another gt-outer takes it between this one's read and put
printf '{"owner":"elsewhere:/outer","expires":%s}\n' "$(($(date +%s) + 600))" > "$T/lease.json"
printf 'gt/r/diloco/lease.json 2 %s\n' "$T/lease.json" > "$S3/proxy/race"
: > "$L"
outer; is $? 1 "a lost race for the lease: gt-outer does not start"
grep -q "lease taken by elsewhere:/outer" "$T/outer.err"; ok $? "saying so: $(cat "$T/outer.err")"
grep -q '^PUT /gt/r/diloco/lease.json 412 ' "$L"; ok $? "the server refused the put (412)"
is "$(grep -c ' 403 ' "$T"/log.* "$L" | awk -F: '{ s += $2 } END { print s }')" 0 \
	"no request of gt was refused by the signature check"
done_testing
