#!/bin/sh
# gt-sync against a store or a wire that lies (issue 17, items 8 to 11),
# each written as the attack: a lying HTTP server on 127.0.0.1
# (tests/py/lying_store.py) sends endless bodies and redirects and records
# which requests carried the token; a file:// store holds a symbolic link
# to a file outside it; a state file is cut in the middle of a line.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/cmd/lying.sh"
unset GT_STORE_TOKEN GT_STORE_INSECURE_TOKEN
R=$T/root
mkdir -p "$R/games" "$R/models" "$T/tmp" "$T/dl"
python3 - "$R/games" <<'PY'
import gzip, os, sys
for b in "ab":
    with gzip.open(os.path.join(sys.argv[1], "w-%s.ndjson.gz" % b), "wb") as f:
        for g in range(20):
            f.write(b'{"g":"%s%d"}\n' % (b.encode(), g))
PY
gt-model init b1c8 --series run1 --seed 1 -o "$R/models/net.bin"
NB=$(stat -c %s "$R/models/net.bin")
NS=$(sha256sum "$R/models/net.bin" | cut -d' ' -f1)

lying_serve lie "$R" || skip_all "the lying server did not start"
U=$URL
export TMPDIR=$T/tmp
no_part() { [ -z "$(ls -A "$1")" ]; }

# --- item 8: a download stops at the size promised ---
start=$(date +%s)
timeout 60 gt-sync get --bytes "$NB" "$U/endless/models/net.bin" "$T/dl/net.bin" 2>"$T/err"
is $? 1 "an endless body for an object of known size fails"
[ $(($(date +%s) - start)) -lt 30 ]; ok $? "at once, not at the timeout"
grep -q "more than the $NB bytes expected" "$T/err"; ok $? "saying it got more than the $NB bytes promised"
no_part "$T/dl"; ok $? "no .part file and nothing under the name are left"

timeout 60 gt-sync get --bytes "$NB" "$U/endless-cl/models/net.bin" "$T/dl/net.bin" 2>"$T/err"
is $? 1 "an answer announced as 10 GB for a $NB-byte object fails"
grep -q "larger than the $NB bytes expected" "$T/err"; ok $? "refused on its Content-Length"
no_part "$T/dl"; ok $? "and leaves nothing"

printf '{"name":"net.bin","sha256":"%s","bytes":%s}\n' "$NS" "$NB" > "$R/models/latest.json"
timeout 60 gt-sync latest "$U/endless" "$T/inst" > /dev/null 2>"$T/err"
is $? 1 "latest: a network behind an endless body is refused"
[ ! -e "$T/inst" ] || no_part "$T/inst"; ok $? "at the size latest.json promised, leaving nothing in DIR"
P=$(gt-sync latest "$U/plain" "$T/inst" 2>"$T/err") && cmp -s "$P" "$R/models/net.bin"
ok $? "the truth is installed"

# pull: each batch bounded by the size its listing gave while it
# downloads, in TMPDIR (issue 31, item 5: not only by --max-batch)
SA=$(stat -c %s "$R/games/w-a.ndjson.gz")
start=$(date +%s)
timeout 60 gt-sync pull "$U/endless/games/" --state "$T/st-endless" > "$T/out" 2>"$T/err"
ok $? "pull of endless batches goes on"
[ $(($(date +%s) - start)) -lt 30 ]; ok $? "at once: no endless batch read to the default --max-batch (16 GiB)"
is "$(tr '\t\n' ': ' < "$T/st-endless")" "w-a.ndjson.gz:bad w-b.ndjson.gz:bad " "both batches are bad"
grep -q "w-a.ndjson.gz\": more than the $SA bytes its listing promised; stopped there" "$T/err"
ok $? "stopped at the $SA bytes the listing gave"
is "$(wc -c < "$T/out")" 0 "nothing of them is written"
no_part "$T/tmp"; ok $? "the temporary files are gone"
mkdir -p "$R/big"
head -c 199 /dev/zero | tr '\0' 'x' > "$R/big/w-c.ndjson"; echo >> "$R/big/w-c.ndjson"
timeout 60 gt-sync pull --max-batch 100 "$U/endless/big/" --state "$T/st-big" > "$T/out" 2>"$T/err"
grep -q "w-c.ndjson\": listed as 200 bytes, more than 100 as stored (--max-batch)" "$T/err"
ok $? "a batch listed larger than --max-batch allows is bad"
! grep -q "GET /endless/big/w-c" "$T/lie.log"; ok $? "without a request for it"

# --- item 5 of issue 31: every listing is bounded in entries and pages ---
# an S3 listing that never ends: pages without keys, each with a new token
export AWS_ENDPOINT_URL=$U AWS_ACCESS_KEY_ID=k AWS_SECRET_ACCESS_KEY=s AWS_REGION=us-east-1
export AWS_CONFIG_FILE=$T/none AWS_SHARED_CREDENTIALS_FILE=$T/none
# AddressSanitizer needs terabytes of address space: no bound then
lim=400000
ldd "$GT_BIN/gt-sync" 2>/dev/null | grep -q libasan && lim=unlimited
start=$(date +%s)
(ulimit -v $lim; exec timeout 60 gt-sync ls --max-list 1000 s3://s3-empty/games/) > "$T/out" 2>"$T/err"
is $? 1 "an endless S3 listing of empty pages fails"
[ $(($(date +%s) - start)) -lt 30 ]; ok $? "at once"
is "$(cat "$T/err")" "gt-sync: listing of s3://s3-empty/games/: more than 11 pages (--max-list 1000 / 100 + 1); stopped there" \
	"saying which bound"
is "$(grep -c '^GET /s3-empty?.*list-type=2' "$T/lie.log")" 11 "after exactly 11 pages"
# pages of 1000 new keys each
(ulimit -v $lim; exec timeout 60 gt-sync ls --max-list 2500 s3://s3-full/games/) > "$T/out" 2>"$T/err"
is $? 1 "an endless S3 listing of full pages fails"
is "$(cat "$T/err")" "gt-sync: listing of s3://s3-full/games/: more than 2500 entries (--max-list); stopped there" \
	"at --max-list entries"
is "$(grep -c '^GET /s3-full?.*list-type=2' "$T/lie.log")" 3 "in the third page"
(ulimit -v $lim; exec timeout 120 gt-sync ls s3://s3-full/games/) > "$T/out" 2>"$T/err"
is "$(cat "$T/err")" "gt-sync: listing of s3://s3-full/games/: more than 1048576 entries (--max-list); stopped there" \
	"by default at 1048576 entries, within ulimit -v $lim"
unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_CONFIG_FILE AWS_SHARED_CREDENTIALS_FILE
# the same bound on an HTTP listing and a local folder
gt-sync ls --max-list 1 "$U/plain/games/" > "$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "1:gt-sync: listing of $U/plain/games/: more than 1 entries (--max-list); stopped there" \
	"an HTTP listing of 2 files with --max-list 1"
gt-sync ls --max-list 1 "$R/games/" > "$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "1:gt-sync: listing of $R/games/: more than 1 entries (--max-list); stopped there" \
	"a local folder too"
is "$(gt-sync ls --max-list 2 "$U/plain/games/" | wc -l)" 2 "2 entries are within --max-list 2"

# --- item 9: a 3xx is an error that is retried, never the object ---
gt-sync get "$U/redirect-once/models/net.bin" "$T/dl/net.bin" 2>"$T/err"
ok $? "a 302 then the object: get succeeds"
cmp -s "$T/dl/net.bin" "$R/models/net.bin"; ok $? "with the object, not the redirect page"
grep -q "HTTP 302, a redirect to \"http://elsewhere.invalid/models/net.bin\" (not followed); retrying" "$T/err"
ok $? "after saying it retries the redirect"
gt-sync get --retries 2 "$U/redirect/models/net.bin" "$T/dl/red.bin" 2>"$T/err"
is $? 1 "a redirect every time fails"
is "$(grep -c '^GET /redirect/models/net.bin 302' "$T/lie.log")" 3 "after 1 + 2 tries"
[ ! -e "$T/dl/red.bin" ] && [ ! -e "$T/dl/.red.bin.part" ]; ok $? "nothing written, no .part"
gt-sync get "$U/redirect/models/net.bin" - --retries 0 > "$T/dl/stream" 2>/dev/null
is "$?:$(wc -c < "$T/dl/stream")" "1:0" "get - writes none of the redirect page"

# pull: a batch behind a transient 302 is not marked, and comes next time
gt-sync pull --retries 0 "$U/redirect-once/games/" --state "$T/st-red" > "$T/out" 2>"$T/err"
is $? 1 "pull: a batch behind a 302 (no retries) stops the pull"
! grep -q "w-a" "$T/st-red" 2>/dev/null; ok $? "and is not marked (not bad, not ok)"
for i in 1 2; do
	gt-sync pull --retries 0 "$U/redirect-once/games/" --state "$T/st-red" >> "$T/out" 2>/dev/null
done
is "$(tr '\t\n' ': ' < "$T/st-red")" "w-a.ndjson.gz:ok w-b.ndjson.gz:ok " "the next pulls take both batches"
is "$(sort -u "$T/out" | wc -l)" 40 "every record, once"
! grep -q html "$T/out"; ok $? "none of the redirect page"

# --- item 10: the token is not sent over plain http ---
GT_STORE_TOKEN=secret gt-sync get "http://localhost:$(cat "$T/lie.port")/plain/models/net.bin" "$T/dl/lo.bin"
ok $? "to localhost the token goes over http"
grep -q '^GET /plain/models/net.bin 200 auth=yes' "$T/lie.log"; ok $? "and is sent"
IP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -n 1)
if [ -n "$IP" ] && lying_serve far "$R" "$IP"; then
	F=$URL
	GT_STORE_TOKEN=secret gt-sync get "$F/plain/models/net.bin" "$T/dl/far.bin" 2>"$T/err"
	is $? 1 "to $IP over plain http the token is refused"
	is "$(wc -l < "$T/err")" 1 "in one line"
	grep -q "refusing to send the bearer token over plain http://" "$T/err"; ok $? "that says why"
	[ ! -s "$T/far.log" ]; ok $? "before any request is made"
	GT_STORE_TOKEN=secret gt-sync get --insecure-token "$F/plain/models/net.bin" "$T/dl/far.bin"
	ok $? "--insecure-token allows it"
	GT_STORE_TOKEN=secret GT_STORE_INSECURE_TOKEN=1 gt-sync ls "$F/plain/games/" > /dev/null
	ok $? "so does GT_STORE_INSECURE_TOKEN=1"
	is "$(grep -c 'auth=yes' "$T/far.log")" 2 "the token went only where allowed"
	gt-sync get "$F/plain/models/net.bin" "$T/dl/far2.bin"; ok $? "without a token plain http is fine"
else
	GT_STORE_TOKEN=secret gt-sync get --retries 0 "http://192.0.2.1:9/x" "$T/dl/far.bin" 2>"$T/err"
	is $? 1 "to another host over plain http the token is refused"
	grep -q "refusing to send the bearer token" "$T/err"; ok $? "that says why"
fi

# --- item 10: a file:// store follows no symbolic link ---
S=$T/fstore
mkdir -p "$S/games"
cp "$R/games/w-a.ndjson.gz" "$S/games/"
printf '{"secret":"the trainer'"'"'s key"}\n' | gzip > "$T/secret.ndjson.gz"
ln -s "$T/secret.ndjson.gz" "$S/games/w-z.ndjson.gz"
gt-sync ls "file://$S/games/" > "$T/ls" 2>"$T/err"
is "$(cut -d'"' -f4 "$T/ls" | paste -sd' ' -)" "w-a.ndjson.gz" "ls: the link is not listed"
grep -q '"w-z.ndjson.gz": a symbolic link' "$T/err"; ok $? "with a warning"
gt-sync get "file://$S/games/w-z.ndjson.gz" "$T/dl/z" 2>"$T/err"
is $? 1 "get of the link fails"
grep -q "symbolic link; not followed" "$T/err"; ok $? "saying it is a link"
gt-sync pull "file://$S/games/" --state "$T/st-link" > "$T/out" 2>"$T/err"
ok $? "pull of the store goes on"
! grep -q secret "$T/out"; ok $? "and does not read the file behind the link"
is "$(tr '\t\n' ': ' < "$T/st-link")" "w-a.ndjson.gz:ok " "the link is not in the state"
gt-sync pull "$S/games/" --state "$T/st-link2" > "$T/out" 2>/dev/null && ! grep -q secret "$T/out"
ok $? "a plain path store the same"

# --- item 11: a state file cut in the middle of a line ---
printf 'w-a.ndjson.gz\tok\nw-b.ndj' > "$T/st-torn"
gt-sync pull "$R/games/" --state "$T/st-torn" > "$T/out" 2>"$T/err"
ok $? "pull with a torn state file works"
grep -q "the last line was cut short" "$T/err"; ok $? "with a warning"
is "$(tr '\t\n' ': ' < "$T/st-torn")" "w-a.ndjson.gz:ok w-b.ndjson.gz:ok " "the torn line is replaced by a whole one"
is "$(wc -l < "$T/out")" 20 "the batch of the torn line is pulled (again)"
gt-sync pull "$R/games/" --state "$T/st-torn" > "$T/out" 2>"$T/err"
is "$(wc -c < "$T/out"):$(wc -c < "$T/err")" "0:0" "and the next pull is quiet"
done_testing
