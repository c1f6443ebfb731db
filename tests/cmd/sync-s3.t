#!/bin/sh
# gt-sync over s3:// against npm's s3rver on 127.0.0.1, every request of gt
# through tests/s3/s3proxy.py, which checks its SigV4 signature with AWS's
# own code (botocore) and does conditional writes as S3 documents them;
# Debian's aws is the independent client on the other side.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/s3/s3.sh"
s3_up
U=s3://gt
L=$S3/proxy/requests.log
sha() { sha256sum "$1" | cut -d' ' -f1; }
mkdir -p "$T/w" "$T/dl"
printf '{"game_id":"a1"}\n{"game_id":"a2"}\n' | gzip > "$T/w/alice-1-aa.ndjson.gz"
printf '{"game_id":"b1"}\n' | gzip > "$T/w/bob-1-bb.ndjson.gz"

# gt puts, aws reads back; aws puts, gt reads
gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/" 2>"$T/err"; ok $? "put over s3://"
s3aws s3 cp "s3://gt/games/alice-1-aa.ndjson.gz" "$T/dl/aws.gz" >/dev/null 2>"$T/err"
cmp -s "$T/w/alice-1-aa.ndjson.gz" "$T/dl/aws.gz"; ok $? "aws reads back the same bytes"
gt-sync put "$T/w/alice-1-aa.ndjson.gz" "$U/games/"; ok $? "same bytes again succeed"
is "$(grep -c '^PUT /gt/games/alice-1-aa.ndjson.gz 200' "$L")" 1 "and are not sent again"
grep -q '^PUT /gt/games/alice-1-aa.ndjson.gz 200 .* If-None-Match\|^PUT /gt/games/alice-1-aa.ndjson.gz 200 .* \*$' "$L"
ok $? "a new immutable name is put with If-None-Match: *"
gt-sync put "$T/w/bob-1-bb.ndjson.gz" "$U/games/alice-1-aa.ndjson.gz" 2>"$T/err"
is $? 1 "different bytes under an existing name fail"
grep -q immutable "$T/err"; ok $? "with a message: $(cat "$T/err")"
s3aws s3 cp "$T/w/bob-1-bb.ndjson.gz" "s3://gt/games/bob-1-bb.ndjson.gz" >/dev/null 2>"$T/err"
ok $? "aws puts an object"
gt-sync get "$U/games/bob-1-bb.ndjson.gz" "$T/dl/bob.gz"; ok $? "gt-sync gets it"
cmp -s "$T/w/bob-1-bb.ndjson.gz" "$T/dl/bob.gz"; ok $? "byte for byte"
gt-sync pull "$U/games/" --state "$T/state" > "$T/out"; ok $? "pull over s3://"
is "$(tr '\n' ' ' < "$T/out")" '{"game_id":"a1"} {"game_id":"a2"} {"game_id":"b1"} ' "every record once, in name order"
gt-sync ls "$U/games/" > "$T/ls"; ok $? "ls"
is "$(sed 's/"time":"[^"]*"/T/' "$T/ls" | head -1)" \
	"{\"name\":\"alice-1-aa.ndjson.gz\",\"bytes\":$(stat -c %s "$T/w/alice-1-aa.ndjson.gz"),T}" "ls line"
# sub-folders are no objects of the folder
s3aws s3 cp "$T/w/bob-1-bb.ndjson.gz" "s3://gt/games/sub/x.ndjson.gz" >/dev/null
is "$(gt-sync ls "$U/games/" | wc -l)" 2 "a sub-folder's object is not listed with the folder's"
gt-sync pull -q "$U/games/" --state "$T/state" --rejects "$T/rej" > "$T/out"; ok $? "pull with a worker's folder"
is "$(wc -c < "$T/out")" 0 "its record, which names no worker, is not pulled"
is "$(jq -r '.file + " " + .reason' "$T/rej")" "sub/x.ndjson.gz uploader" "but rejected (the folder is a common prefix)"
# a key with characters that UriEncode escapes (signed as AWS does)
cp "$T/w/bob-1-bb.ndjson.gz" "$T/w/b+c=d,e~f.gz"
gt-sync put "$T/w/b+c=d,e~f.gz" "$U/odd/"; ok $? "a key with + = , ~ is put (signature accepted)"
is "$(s3aws s3 ls s3://gt/odd/ | awk '{print $4}')" "b+c=d,e~f.gz" "under that very key"

# a listing of more than 1000 objects: ListObjectsV2 pages and continuation tokens
mkdir -p "$T/many"
i=0
while [ $i -lt 1005 ]; do printf '%d\n' $i > "$T/many/o-$(printf %04d $i).txt"; i=$((i + 1)); done
s3aws s3 cp --quiet --recursive "$T/many" s3://gt/many/ 2>"$T/err"; ok $? "aws puts 1005 objects"
: > "$L"
gt-sync ls "$U/many/" > "$T/ls"; ok $? "ls of 1005 objects"
is "$(wc -l < "$T/ls")" 1005 "lists every one"
is "$(cut -d'"' -f4 "$T/ls" | sort -u | wc -l)" 1005 "each once"
is "$(grep -c '^GET /gt?.*list-type=2' "$L")" 2 "in two pages"
grep -q '^GET /gt?continuation-token=[^&]*&delimiter=%2F&list-type=2&prefix=many%2F 200' "$L"
ok $? "the second with the continuation token"

# get: sha256, size, resume
get_resumes "$U" "$L"
grep -q '^GET /gt/models/big.bin 206 0 200000 bytes=100000-' "$L"; ok $? "with a Range request (206, 200000 bytes sent)"
[ ! -e "$T/dl/.resumed.bin.part" ]; ok $? "the partial file is gone"
head -c 200000 "$T/w/big.bin" > "$T/w/trunc.bin"
s3aws s3 cp "$T/w/trunc.bin" s3://gt/models/trunc.bin >/dev/null
get_refusals "$U" "$BS" "a missing object fails"

# latest: the model fetched, verified; a truncated model refused
gt-model init b1c8 --seed 1 -o "$T/w/model.bin.gz"
MS=$(sha "$T/w/model.bin.gz")
MB=$(stat -c %s "$T/w/model.bin.gz")
gt-sync put "$T/w/model.bin.gz" "$U/models/run1-b6c64-s100-d500.bin.gz"
printf '{"name":"run1-b6c64-s100-d500.bin.gz","sha256":"%s","bytes":%d,"steps":100}\n' "$MS" "$MB" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"; ok $? "put --overwrite of a pointer"
P=$(gt-sync latest "$U" "$T/inst"); ok $? "latest"
cmp -s "$T/w/model.bin.gz" "$P"; ok $? "installs the model"
head -c 1000 "$T/w/model.bin.gz" > "$T/w/short"
s3aws s3 cp "$T/w/short" s3://gt/models/run2-s200.bin.gz >/dev/null
printf '{"name":"run2-s200.bin.gz","sha256":"%s","bytes":%d}\n' "$MS" "$MB" > "$T/latest.json"
gt-sync put --overwrite "$T/latest.json" "$U/models/latest.json"
gt-sync latest "$U" "$T/inst" > "$T/out" 2>"$T/err"
is $? 1 "latest refuses a truncated model"
[ ! -e "$T/inst/run2-s200.bin.gz" ] && [ ! -e "$T/inst/.run2-s200.bin.gz.part" ]; ok $? "and installs nothing"

# every request gt sent passed the signature check; a wrong key does not
is "$(grep -c ' 403 ' "$L")" 0 "no request of gt was refused by the signature check"
AWS_SECRET_ACCESS_KEY=wrong gt-sync ls "$U/games/" > /dev/null 2>"$T/err"
is $? 1 "a wrong secret key fails"
is "$(wc -l < "$T/err")" 1 "with one line"
grep -q "^gt-sync: GET s3://gt/games/: HTTP 403 (check the AWS credentials" "$T/err"; ok $? "naming the store: $(cat "$T/err")"
grep -q wrong "$T/err"; is $? 1 "the secret is never printed"
tail -1 "$L" | grep -q '^GET /gt?.* 403 '; ok $? "the proxy answered 403"
AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= gt-sync ls "$U/games/" > /dev/null 2>"$T/err"
grep -q "no AWS credentials" "$T/err"; ok $? "no credentials: says so"
# the credentials file of a profile
printf '[other]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_KEY" "$S3_SECRET" > "$S3/aws/credentials"
AWS_PROFILE=other AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= gt-sync ls "$U/games/" > "$T/ls"
ok $? "AWS_PROFILE: keys from the credentials file"
printf '[profile other]\nregion = us-east-1\nendpoint_url = %s\n' "$AWS_ENDPOINT_URL" > "$S3/aws/config"
AWS_PROFILE=other AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= AWS_ENDPOINT_URL= gt-sync ls "$U/games/" > "$T/ls"
ok $? "and the endpoint from the config file"
is "$(wc -l < "$T/ls")" 2 "the same listing"

# a pointer replaced only over the version read (gt-publish): another
# writer between the read and the put is detected and wins
summary() { printf '{"a":"%s","b":"cur","games":100,"wins":60,"draws":4,"losses":36,"score":0.6,"elo":85,"elo_ci95":[-10,10],"los":0.9}\n' "$1"; }
pub() { # seed name: publish a new network
	gt-model init b1c8 --series run1 --seed "$1" -o "$T/w/$2.bin.gz"
	summary "$2" | gt-publish --candidate "$T/w/$2.bin.gz" --store "$U" --series run1 --steps "$1" \
		--name "$2.bin.gz" > "$T/out" 2>"$T/err"
}
s3aws s3 rm s3://gt/models/latest.json >/dev/null
: > "$L"
pub 1000 run1-b1c8-s1000-d100; ok $? "gt-publish to an empty store"
grep -q '^PUT /gt/models/latest.json 200 .* \*$' "$L"; ok $? "the first pointer with If-None-Match: *"
s3aws s3 cp s3://gt/models/latest.json "$T/dl/l1" >/dev/null
grep -q '"name":"run1-b1c8-s1000-d100.bin.gz"' "$T/dl/l1"; ok $? "aws reads the pointer"
# the pointer's put taken by the server, its answer lost: the retry is
# refused (412), and the pointer read back is this release's
printf 'gt/models/latest.json\n' > "$S3/proxy/drop"
: > "$L"
pub 1500 run1-b1c8-s1500-d100; ok $? "a release whose pointer's put lost its answer: $(head -1 "$T/err")"
grep -q '^PUT /gt/models/latest.json 412 ' "$L"; ok $? "(the retry refused: 412)"
grep '"candidate":"run1-b1c8-s1500' "$T/out" | grep -q '"released":true'; ok $? "recorded as released"
: > "$L"
pub 2000 run1-b1c8-s2000-d100; ok $? "a second release"
grep -q '^PUT /gt/models/latest.json 200 .* "[0-9a-f]*"$' "$L"; ok $? "replaces the pointer with If-Match: its ETag"
# the other writer after gt-publish's first read of the pointer, and after
# its last (the check just before the put), where only the server's 412
# can see it
last=$(grep -c '^GET /gt/models/latest.json ' "$L")
for n in 1 $last; do
	printf '{"name":"theirs-%d.bin.gz"}\n' $n > "$T/w/theirs.json"
	printf 'gt/models/latest.json %d %s\n' $n "$T/w/theirs.json" > "$S3/proxy/race"
	: > "$L"
	pub $((3000 + n)) run1-b1c8-s$((3000 + n))-d100
	is $? 1 "another writer after gt-publish's read number $n: gt-publish fails"
	grep -q "models/latest.json changed since it was read; not overwritten\|changed by someone else" "$T/err"
	ok $? "and says so: $(head -1 "$T/err")"
	s3aws s3 cp s3://gt/models/latest.json "$T/dl/l2" >/dev/null
	cmp -s "$T/w/theirs.json" "$T/dl/l2"; ok $? "the other writer's pointer stays"
	grep '"candidate":"run1-b1c8-s'$((3000 + n)) "$T/out" | grep -q '"released":false'
	ok $? "the decision is recorded as not released"
done
grep -q '^PUT /gt/models/latest.json 412 ' "$L"; ok $? "the second time the server refused the put (412)"
# contributions: another writer between the read and the put (here after
# the read just before the put, where only the server's 412 sees it) is
# read again and added to, not overwritten
printf '{"game_id":"c1","worker":"alice","positions":[1,2]}\n' > "$T/acc"
gt-sync contrib "$U" g1 "$T/acc" > /dev/null; ok $? "contrib over s3://"
printf '{"generations":["z1"],"workers":{"zed":{"games":7,"positions":70,"rejected":0,"generations":1}}}\n' > "$T/theirs.json"
printf 'gt/stats/contributions.json 2 %s\n' "$T/theirs.json" > "$S3/proxy/race"
: > "$L"
gt-sync contrib "$U" g2 "$T/acc" > /dev/null 2>"$T/err"; ok $? "contrib with another writer in between: $(cat "$T/err")"
grep -q '^PUT /gt/stats/contributions.json 412 ' "$L"; ok $? "whose put the server refused (412)"
is "$(s3aws s3 cp s3://gt/stats/contributions.json - | jq -c '[.generations, (.workers | map_values(.games))]')" \
	'[["z1","g2"],{"alice":1,"zed":7}]' "the other writer's counts kept, this one's added to them"
is "$(grep -c ' 403 ' "$L")" 0 "no request of gt was refused by the signature check"
done_testing
