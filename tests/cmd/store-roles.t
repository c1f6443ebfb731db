#!/bin/sh
# The public store's roles, enforced by nginx started from the shipped
# share/gt/nginx/gt-store.conf (only its port, folder and password file
# changed): a worker's account writes only its own games folder, never
# models/ or diloco/; the trainer's account writes models/, stats/ and
# diloco/; reads are
# public. Two workers (share/gt/worker, own_folder = 1) and one trainer
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
for a in alice bob trainer; do
	printf '%s:%s\n' "$a" "$(openssl passwd -apr1 "pw-$a")" >> "$T/htpasswd"
	mkdir -p "$T/home-$a"
	printf 'machine 127.0.0.1 login %s password pw-%s\n' "$a" "$a" > "$T/home-$a/.netrc"
done
chmod 644 "$T/htpasswd"
sed -e "s|^\tlisten 80; .*|\tlisten 127.0.0.1:$PORT;|" -e "s|^\troot /srv/gt/store; .*|\troot $T/store;|" \
	-e "s|/etc/gt/htpasswd;|$T/htpasswd;|" "$GT_SRC/share/gt/nginx/gt-store.conf" > "$NGX/gt-store.conf"
is "$(diff "$GT_SRC/share/gt/nginx/gt-store.conf" "$NGX/gt-store.conf" | grep -c '^>')" 4 "the shipped conf with its port, folder and password file changed"
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
e2e_trainer_cfg "$U" "$T/r/tr" roles "$T/r/cur" > "$T/r/trainer.cfg"
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
fi
done_testing
