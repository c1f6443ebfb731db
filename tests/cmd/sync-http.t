#!/bin/sh
# gt-sync against a real nginx WebDAV store on 127.0.0.1 (gt(7) "The store").
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
nginx_need
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
U=$NGX_URL
S=$T/store
unset GT_STORE_TOKEN

mkdir -p "$T/w" "$T/dl"
printf '{"game_id":"a1"}\n{"game_id":"a2"}\n' | gzip > "$T/w/alice-1-aa.ndjson.gz"
printf '{"game_id":"b1"}\n' | gzip > "$T/w/bob-1-bb.ndjson.gz"

# put, immutability
gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/" 2>"$T/err"; ok $? "put over HTTP"
cmp -s "$T/w/alice-1-aa.ndjson.gz" "$S/games/alice-1-aa.ndjson.gz"; ok $? "nginx stored the same bytes"
gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/" 2>"$T/err"; ok $? "same bytes again succeed"
is "$(grep -c '^PUT /games/alice-1-aa.ndjson.gz' "$NGX/access.log")" 1 "and are not sent again"
gt-sync put "$T/w/bob-1-bb.ndjson.gz" "$U/games/alice-1-aa.ndjson.gz" 2>"$T/err"
is $? 1 "different bytes under an existing name fail"
grep -q immutable "$T/err"; ok $? "with a message: $(cat "$T/err")"
cmp -s "$T/w/alice-1-aa.ndjson.gz" "$S/games/alice-1-aa.ndjson.gz"; ok $? "the stored object is unchanged"
# same size, different bytes: found by the sha256 comparison, not the size
printf '{"game_id":"a1"}\n{"game_id":"a3"}\n' | gzip > "$T/w/same-size"
[ "$(stat -c %s "$T/w/same-size")" = "$(stat -c %s "$T/w/alice-1-aa.ndjson.gz")" ] || diag "sizes differ; the size check catches it"
gt-sync put "$T/w/same-size" "$U/games/alice-1-aa.ndjson.gz" 2>"$T/err"
is $? 1 "same size but different bytes fail too"
gt-sync put "$T/w/bob-1-bb.ndjson.gz" "$U/games/" && ok 0 "second batch stored" || ok 1 "second batch stored"

# ls
gt-sync ls "$U/games/" > "$T/ls"; ok $? "ls over HTTP"
is "$(sed 's/"time":"[^"]*"/T/' "$T/ls" | head -1)" \
	"{\"name\":\"alice-1-aa.ndjson.gz\",\"bytes\":$(stat -c %s "$T/w/alice-1-aa.ndjson.gz"),T}" "ls line"
is "$(wc -l < "$T/ls")" 2 "ls lists two objects"

# the hostile listing: only the first name is admitted, nothing written outside
mkdir -p "$T/pullout"
gt-sync ls "$U/evil/games/" > "$T/ls" 2>"$T/err"; ok $? "ls of a hostile listing"
is "$(cut -d'"' -f4 "$T/ls")" "worker1-20261129-0001.ndjson.gz" "only the safe name is listed"
is "$(grep -c 'refusing listed name' "$T/err")" 4 "four names refused with a message"
(cd "$T/pullout" && gt-sync pull -q "$U/evil/games/" --state "$T/pullout/state" > "$T/pullout/out" 2>"$T/err")
is "$(ls -A "$T/pullout" | tr '\n' ' ')" "out " "pull of a hostile listing writes nothing but its output (the one safe name is absent: 404)"
[ ! -e "$T/x" ] && [ ! -e /etc/cron.d/evil ]; ok $? "nothing outside the target folder"

# get: sha256, size, resume
get_resumes "$U" "$NGX/access.log.mark"
grep -q '^GET /models/big.bin 206 "bytes=100000-"' "$NGX/access.log"; ok $? "with a Range request (206 in the access log)"
[ ! -e "$T/dl/.resumed.bin.part" ]; ok $? "the partial file is gone"

# a partial file as long as the object, or longer: 416, then a fresh download
cp "$T/w/big.bin" "$T/dl/.full.bin.part"
head -c 350000 /dev/urandom > "$T/dl/.long.bin.part"
gt-sync get --sha256 "$BS" "$U/models/big.bin" "$T/dl/full.bin" && cmp -s "$T/w/big.bin" "$T/dl/full.bin"
ok $? "a complete partial file: the download starts over and is right"
gt-sync get --sha256 "$BS" "$U/models/big.bin" "$T/dl/long.bin" && cmp -s "$T/w/big.bin" "$T/dl/long.bin"
ok $? "a partial file longer than the object: the same"
is "$(grep -c '^GET /models/big.bin 416' "$NGX/access.log")" 2 "after a 416 each"

# a download really interrupted (timeout on a slow location), then resumed
head -c 400000 /dev/urandom > "$T/w/big2.bin"
gt-sync put "$T/w/big2.bin" "$U/models/big2.bin"
gt-sync get -q --retries 0 --timeout 0.5 "$U/slow/models/big2.bin" "$T/dl/big2.bin" 2>"$T/err"
is $? 1 "a download cut by --timeout fails"
part=$(stat -c %s "$T/dl/.big2.bin.part" 2>/dev/null || echo 0)
[ "$part" -gt 0 ] && [ "$part" -lt 400000 ]; ok $? "and keeps its partial file ($part bytes)"
[ ! -e "$T/dl/big2.bin" ]; ok $? "nothing under the final name"
gt-sync get --sha256 "$(sha256sum "$T/w/big2.bin" | cut -d' ' -f1)" "$U/slow/models/big2.bin" "$T/dl/big2.bin"
ok $? "the next get completes it"
cmp -s "$T/w/big2.bin" "$T/dl/big2.bin"; ok $? "bytes match"
grep -q "^GET /slow/models/big2.bin 206 \"bytes=$part-\" \"\\\\x22" "$NGX/access.log"
ok $? "resumed at byte $part with If-Range"
[ ! -e "$T/dl/.big2.bin.part" ] && [ ! -e "$T/dl/.big2.bin.part.etag" ]; ok $? "no partial files left"
# the object changed between the two tries: If-Range makes the server send it whole
gt-sync get -q --retries 0 --timeout 0.5 "$U/slow/models/big2.bin" "$T/dl/big3.bin" 2>/dev/null
head -c 400000 /dev/urandom > "$S/models/big2.bin"
touch -d 2020-01-01 "$S/models/big2.bin"
gt-sync get "$U/models/big2.bin" "$T/dl/big3.bin"; ok $? "get after the object changed"
cmp -s "$S/models/big2.bin" "$T/dl/big3.bin"; ok $? "gives the new object, not a mix"
grep -q '^GET /models/big2.bin 200 "bytes=' "$NGX/access.log"; ok $? "the server ignored the stale range (200)"

head -c 200000 "$T/w/big.bin" > "$S/models/trunc.bin"
get_refusals "$U" "$BS" "404 fails"

# latest: pointer written last, model fetched once, verified
gt-model init b1c8 --seed 1 -o "$T/w/model.bin.gz"
MS=$(sha256sum "$T/w/model.bin.gz" | cut -d' ' -f1)
MB=$(stat -c %s "$T/w/model.bin.gz")
gt-sync put "$T/w/model.bin.gz" "$U/models/run1-b6c64-s100-d500.bin.gz"
printf '{"name":"run1-b6c64-s100-d500.bin.gz","sha256":"%s","bytes":%d,"steps":100}\n' "$MS" "$MB" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"
P=$(gt-sync latest "$U" "$T/inst"); ok $? "latest"
is "$P" "$T/inst/run1-b6c64-s100-d500.bin.gz" "prints the installed path"
cmp -s "$T/w/model.bin.gz" "$P"; ok $? "installs the model"
n0=$(grep -c '^GET /models/run1-b6c64-s100-d500.bin.gz' "$NGX/access.log")
P=$(gt-sync latest "$U" "$T/inst"); ok $? "latest again"
is "$(grep -c '^GET /models/run1-b6c64-s100-d500.bin.gz' "$NGX/access.log")" "$n0" "does not download an installed model again"
head -c 1000 "$T/w/model.bin.gz" > "$S/models/run2-s200.bin.gz"
printf '{"name":"run2-s200.bin.gz","sha256":"%s","bytes":%d}\n' "$MS" "$MB" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"
gt-sync latest "$U" "$T/inst" > "$T/out" 2>"$T/err"
is $? 1 "latest refuses a truncated model"
[ ! -e "$T/inst/run2-s200.bin.gz" ] && [ ! -e "$T/inst/.run2-s200.bin.gz.part" ]; ok $? "and installs nothing"
# a model whose sha256 and size match its pointer but that lib/model cannot read
head -c 3000 "$T/w/model.bin.gz" > "$T/w/bad.bin.gz"
gt-sync put "$T/w/bad.bin.gz" "$U/models/run3-s300.bin.gz"
printf '{"name":"run3-s300.bin.gz","sha256":"%s","bytes":3000}\n' "$(sha256sum "$T/w/bad.bin.gz" | cut -d' ' -f1)" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"
gt-sync latest "$U" "$T/inst" > "$T/out" 2>"$T/err"
is $? 1 "latest refuses a corrupt model over HTTP"
grep -q "not a valid model" "$T/err"; ok $? "saying why: $(cat "$T/err")"
[ ! -e "$T/inst/run3-s300.bin.gz" ] && [ ! -e "$T/inst/.run3-s300.bin.gz.part" ]; ok $? "and installs nothing"
printf '{"name":"../evil","sha256":"%s","bytes":1}\n' "$MS" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"
gt-sync latest "$U" "$T/inst" 2>"$T/err"
is $? 1 "latest refuses a pointer naming ../evil"

# pull over HTTP
gt-sync pull "$U/games/" --state "$T/state" > "$T/out"; ok $? "pull over HTTP"
is "$(tr '\n' ' ' < "$T/out")" '{"game_id":"a1"} {"game_id":"a2"} {"game_id":"b1"} ' "every record once, in name order"

# credentials: 401 without or with a wrong token, fine with the right one
gt-sync put "$T/w/bob-1-bb.ndjson.gz" "$U/auth/games/c.ndjson.gz" 2>"$T/err"
is $? 1 "no token: refused"
grep -q "HTTP 401" "$T/err"; ok $? "with HTTP 401: $(cat "$T/err")"
GT_STORE_TOKEN=wrong gt-sync ls "$U/auth/games/" 2>"$T/err" >/dev/null
is $? 1 "wrong token: refused"
grep -q "wrong" "$T/err"; is $? 1 "the token is never printed"
is "$(grep -c ' 401 ' "$NGX/access.log")" 2 "401s are not retried"
GT_STORE_TOKEN=secret gt-sync put "$T/w/bob-1-bb.ndjson.gz" "$U/auth/games/c.ndjson.gz"; ok $? "right token: put works"
cmp -s "$T/w/bob-1-bb.ndjson.gz" "$S/games/c.ndjson.gz"; ok $? "and stored the bytes"
GT_STORE_TOKEN=secret gt-sync ls "$U/auth/games/" > "$T/ls"; is "$(wc -l < "$T/ls")" 3 "right token: ls works"
gt-sync ls "http://u:p@127.0.0.1:$NGX_PORT/games/" 2>"$T/err" >/dev/null
is $? 1 "credentials in the URL are refused"
printf 'machine 127.0.0.1 login u password p\n' > "$T/netrc"
cp "$T/netrc" "$T/.netrc"
gt-sync ls --netrc "$T/netrc" "$U/basic/games/" > "$T/ls"; ok $? "--netrc: user and password from the netrc file"
is "$(wc -l < "$T/ls")" 3 "ls with netrc credentials works"
HOME=$T gt-sync ls "$U/basic/games/" > "$T/ls"; ok $? "~/.netrc is read by default"
HOME=$T/nowhere gt-sync ls "$U/basic/games/" > /dev/null 2>"$T/err"
is $? 1 "no netrc: 401"
grep -q "password\| p " "$T/err"; is $? 1 "the password is not printed"
done_testing
