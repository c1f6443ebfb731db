#!/bin/sh
# The public store's roles, enforced by nginx started from the shipped
# share/gt/nginx/gt-store.conf (only its port, folder and password file
# changed): a worker's account writes only its own games folder, never
# models/ or diloco/; the trainer's account writes models/, stats/ and
# diloco/ and site/ (the status page: report = yes); reads are
# public, every file but site/'s served as a download (an uploaded .html
# too); one account's uploads are bounded in size and rate. Two workers (share/gt/worker, own_folder = 1) and one trainer
# generation run with their own accounts (~/.netrc); a record claiming
# another worker's name is rejected with the reason "uploader" and counted
# against the account that uploaded it.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
. "$GT_SRC/tests/cmd/e2e.sh"
[ -n "$NGX_BIN" ] && [ -x "$NGX_BIN" ] || skip_all "nginx is not installed"
mkdir -p "$NGX" "$T/store"
chmod 777 "$T/store"
chmod 755 "$T"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
U=http://127.0.0.1:$PORT
for a in alice bob carol trainer; do
	printf '%s:%s\n' "$a" "$(openssl passwd -apr1 "pw-$a")" >> "$T/htpasswd"
	mkdir -p "$T/home-$a"
	printf 'machine 127.0.0.1 login %s password pw-%s\n' "$a" "$a" > "$T/home-$a/.netrc"
done
chmod 644 "$T/htpasswd"
sed -e "s|^\tlisten 80; .*|\tlisten 127.0.0.1:$PORT;|" -e "s|^\troot /srv/gt/store; .*|\troot $T/store;|" \
	-e "s|/etc/gt/htpasswd;|$T/htpasswd;|" "$GT_SRC/share/gt/nginx/gt-store.conf" > "$NGX/gt-store.conf"
is "$(diff "$GT_SRC/share/gt/nginx/gt-store.conf" "$NGX/gt-store.conf" | grep -c '^>')" 5 \
	"the shipped conf with its port, folder and password file (3 places) changed"
{ nginx_head '$request_method $uri $status $remote_user $request_length $bytes_sent'
cat <<CONF
	include $NGX/gt-store.conf;
}
CONF
} > "$NGX/nginx.conf"
"$NGX_BIN" -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/error.log" 2>"$NGX/start.err" && wait_http "$U/" ||
	{ cat "$NGX/start.err" "$NGX/error.log" >&2; skip_all "nginx did not start from gt-store.conf"; }
trap 'nginx_stop; rm -rf "$T"' EXIT
unset GT_STORE_TOKEN
as() { _a=$1; shift; HOME=$T/home-$_a "$@"; }
echo '{"game_id":"x"}' | gzip > "$T/b.ndjson.gz"

# what each account may write
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/alice/"; ok $? "alice puts under games/alice/"
[ -f "$T/store/games/alice/b.ndjson.gz" ]; ok $? "stored"
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/bob/" 2>"$T/err"
is $? 1 "alice cannot put under games/bob/"
grep -q "HTTP 403" "$T/err"; ok $? "403: $(cat "$T/err")"
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/" 2>"$T/err"
grep -q "HTTP 403" "$T/err"; ok $? "nor directly under games/ (403)"
echo '{"name":"evil.bin.gz"}' > "$T/evil.json"
as alice gt-sync put --overwrite "$T/evil.json" "$U/models/latest.json" 2>"$T/err"
grep -q "HTTP 403" "$T/err"; ok $? "nor models/latest.json (403)"
as alice gt-sync put --overwrite "$T/evil.json" "$U/diloco/current.json" 2>"$T/err"
grep -q "HTTP 403" "$T/err"; ok $? "nor diloco/current.json, the learning units' pointer (403)"
is "$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$T/evil.json" "$U/models/latest.json")" 403 \
	"an anonymous PUT of models/latest.json: 403"
is "$(curl -s -o /dev/null -w '%{http_code}' -u alice:wrong -X PUT --data-binary @"$T/evil.json" "$U/games/alice/c")" 401 \
	"a wrong password: 401"
[ ! -e "$T/store/models/latest.json" ] && [ ! -e "$T/store/games/bob" ] && [ ! -e "$T/store/games/alice/c" ] &&
	[ ! -e "$T/store/diloco" ]
ok $? "none of these wrote anything"
as trainer gt-sync put --overwrite "$T/evil.json" "$U/models/test.json"; ok $? "the trainer puts under models/"
as trainer gt-sync put --overwrite "$T/evil.json" "$U/stats/test.json"; ok $? "and stats/"
as trainer gt-sync put --overwrite "$T/evil.json" "$U/diloco/test.json"; ok $? "and diloco/ (the units and gt-outer)"
as trainer gt-sync put "$T/b.ndjson.gz" "$U/games/trainer-b/" 2>"$T/err"
grep -q "HTTP 403" "$T/err"; ok $? "but not a games folder not its own (403)"
rm -f "$T/store/models/test.json" "$T/store/stats/test.json" "$T/store/diloco/test.json" "$T/store/games/alice/b.ndjson.gz"
gt-sync ls "$U/games/alice/" >/dev/null; ok $? "reads need no account"

# --- issue 31, item 5: uploads are downloads; the trainer writes site/ ---
printf '<html><body><script>alert(1)</script></body></html>\n' > "$T/evil.html"
as alice gt-sync put "$T/evil.html" "$U/games/alice/"; ok $? "alice uploads a page, evil.html, into her folder"
hdr() { curl -s -o /dev/null -D - "$1" | tr -d '\r' | grep -i "^$2:" | cut -d' ' -f2- | tr '\n' ' ' | sed 's/ $//'; }
is "$(hdr "$U/games/alice/evil.html" Content-Type)" "application/octet-stream" "it is served as application/octet-stream"
is "$(hdr "$U/games/alice/evil.html" X-Content-Type-Options)" "nosniff" "with nosniff"
is "$(hdr "$U/games/alice/evil.html" Content-Disposition)" "attachment" "as an attachment (a download)"
cmp -s "$T/evil.html" "$(curl -s -o "$T/back.html" "$U/games/alice/evil.html"; echo "$T/back.html")"
ok $? "its bytes unchanged"
is "$(hdr "$U/games/alice/" Content-Disposition)" "attachment" "a folder's listing is a download too"
printf '<html><body>status</body></html>\n' > "$T/index.html"
as alice gt-sync put --overwrite "$T/index.html" "$U/site/index.html" 2>"$T/err"
grep -q "HTTP 403" "$T/err"; ok $? "alice cannot write site/, the status page (403)"
as trainer gt-sync put --overwrite "$T/index.html" "$U/site/index.html"; ok $? "the trainer writes site/index.html"
as trainer gt-sync put --overwrite "$T/evil.json" "$U/site/status.json"; ok $? "and site/status.json"
is "$(hdr "$U/site/" Content-Type)" "text/html" "site/ is served as a page (text/html)"
is "$(hdr "$U/site/index.html" Content-Disposition)" "" "not as a download"
is "$(hdr "$U/site/index.html" X-Content-Type-Options)" "nosniff" "with nosniff"
is "$(curl -s "$U/site/")" "$(cat "$T/index.html")" "its index"
is "$(hdr "$U/site/status.json" Content-Type)" "application/json" "status.json as JSON"
rm -f "$T/store/games/alice/evil.html" "$T/store/site/index.html" "$T/store/site/status.json"

# the bounds of one volunteer's uploads: 64 MiB an upload (refused from the
# announced length, before the body), 2 a minute with bursts of 20
put_len() {
	python3 - "$PORT" "$1" "$2" <<'PY'
import base64, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
auth = base64.b64encode(sys.argv[2].encode()).decode()
s.sendall(("PUT /games/alice/big.ndjson.gz HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %s\r\n"
           "Content-Length: %s\r\nConnection: close\r\n\r\n" % (auth, sys.argv[3])).encode())
print(s.recv(4096).split(b"\r\n")[0].decode())
PY
}
is "$(put_len alice:pw-alice 67108865)" "HTTP/1.1 413 Request Entity Too Large" "an upload announced as 64 MiB + 1: 413"
[ ! -e "$T/store/games/alice/big.ndjson.gz" ]; ok $? "nothing stored"
head -c 1000 /dev/urandom > "$T/small"
for i in $(seq 1 25); do
	curl -s -o /dev/null -w '%{http_code}\n' -u carol:pw-carol -T "$T/small" "$U/games/carol/b$i.ndjson.gz"
done > "$T/codes"
is "$(sort "$T/codes" | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" "201:21 429:4 " \
	"25 uploads at once by one account: 21 taken (1 + a burst of 20), 4 refused with 429"
is "$(ls "$T/store/games/carol" | wc -l)" 21 "21 stored"
is "$(curl -s -o /dev/null -w '%{http_code}' -u bob:pw-bob -T "$T/small" "$U/games/bob/b1.ndjson.gz")" 201 \
	"another account's upload is not held back"
rm -rf "$T/store/games/carol" "$T/store/games/bob/b1.ndjson.gz"

# bob's batch with one game of his and one claiming to be alice's
gt-selfplay --model none --games 2 --visits 8 --board-size 9 --seed 5 --worker bob 2>/dev/null > "$T/bob.ndjson"
{ head -1 "$T/bob.ndjson"; tail -1 "$T/bob.ndjson" | sed 's/"worker":"bob"/"worker":"alice"/'; } |
	gzip > "$T/bob-20261201T000000Z-00000000.ndjson.gz"
as bob gt-sync put "$T/bob-20261201T000000Z-00000000.ndjson.gz" "$U/games/bob/"; ok $? "bob uploads a batch with a record naming alice"

# the pull alone: the impostor record dropped with a reason
gt-sync pull -q "$U/games/" --state "$T/pstate" --rejects "$T/prej" --stats "$T/pst" > "$T/pulled" 2>"$T/err"
ok $? "gt-sync pull of games/ with its worker folders"
is "$(jq -r .worker "$T/pulled" | tr '\n' ' ')" "bob " "only bob's own record passes"
is "$(jq -r '[.file, .worker, .uploader, .reason] | join(" ")' "$T/prej")" \
	"bob/bob-20261201T000000Z-00000000.ndjson.gz alice bob uploader" "the other is rejected with the reason"
is "$(jq -c '{records, rejected}' "$T/pst")" '{"records":1,"rejected":1}' "and counted in --stats"
is "$(cut -f1 "$T/pstate")" "bob/bob-20261201T000000Z-00000000.ndjson.gz" "the state names the batch with its folder"
gt-sync pull -q "$U/games/" --state "$T/pstate" > "$T/pulled2"; is "$(wc -c < "$T/pulled2")" 0 "and a second pull takes nothing again"

# two workers and one trainer generation, each with its own account
e2e_own_workers "$U" "$T/r"
is "$(ls "$T/store/games/alice" | wc -l) $(ls "$T/store/games/bob" | wc -l)" "1 2" "each into its own folder"
printf '%s\n' '{"from_step":0,"board_size":7,"visits":8,"cheap_visits":4}' > "$T/r/cur"
{ e2e_trainer_cfg "$U" "$T/r/tr" roles "$T/r/cur"; echo "report = yes"; } > "$T/r/trainer.cfg"
command -v gt-train >/dev/null && command -v gt-elo >/dev/null && full=1 || full=0
as trainer sh "$GT_SRC/share/gt/trainer" -c "$T/r/trainer.cfg" 2>"$T/err"
rc=$?
if [ $full = 1 ]; then is $rc 0 "the trainer runs one generation with its account"
else is $rc 1 "the trainer stops at gt-train, which is missing"; fi
G=$T/r/tr/gen/0001
is "$(jq -r 'select(.reason == "uploader") | .worker + " from " + .uploader' "$G/rejects.ndjson")" "alice from bob" \
	"the record naming alice in bob's folder is among the generation's rejects"
is "$(jq -c '{u: .rejects_by_reason.uploader, bob: .rejects_by_worker.bob}' "$G/validate.json")" '{"u":1,"bob":1}' \
	"validate.json counts it against bob"
is "$(jq -r '.workers | to_entries | map("\(.key):\(.value.games)/\(.value.rejected)") | join(" ")' "$T/store/stats/contributions.json")" \
	"alice:3/0 bob:4/1" "contributions per account: alice 3 games, bob 4 and 1 rejected"
if [ $full = 1 ]; then
	grep -q '^PUT /models/latest.json 20[14] trainer ' "$NGX/access.log"; ok $? "the trainer's account published latest.json"
	grep -q '^PUT /site/index.html 20[14] trainer ' "$NGX/access.log" && grep -q '^PUT /site/status.json 20[14] trainer ' "$NGX/access.log"
	ok $? "and, with report = yes, the status page into site/"
	! grep -q '^PUT /site/.* 40[0-9] trainer ' "$NGX/access.log"; ok $? "none of its writes refused"
	is "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$U/site/")" "200 text/html" "the page is served"
fi
done_testing
