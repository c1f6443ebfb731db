#!/bin/sh
# The public store's roles on S3, enforced as S3 would enforce the shipped
# bucket policies share/gt/s3/policy-worker.json and policy-trainer.json
# (only BUCKET and PREFIX replaced): tests/s3/s3proxy.py checks each IAM
# user's requests against its policy (and its SigV4 signature with
# botocore). A worker's key writes only games/NAME/, never models/ or
# diloco/; the trainer's writes models/, stats/, diloco/ and site/ (the
# status page, report = yes); a missing
# object is 404, not 403, to both (gt asks for some: a new batch's name, a
# first latest.json). Two workers (share/gt/worker, own_folder = 1), one
# trainer generation, a learning unit's round and gt-outer's version run
# with their own keys: every request they make is one the policies allow.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/s3/s3.sh"
. "$GT_SRC/tests/cmd/e2e.sh"
s3_up
U=s3://gt/run1
L=$S3/proxy/requests.log
for r in worker trainer; do
	sed 's/BUCKET/gt/g; s/PREFIX/run1/g' "$GT_SRC/share/gt/s3/policy-$r.json" > "$T/policy-$r.json"
done
is "$(cat "$T"/policy-*.json | jq -s 'length')" 2 "the shipped policies are JSON"
is "$(diff "$GT_SRC/share/gt/s3/policy-worker.json" "$T/policy-worker.json" | grep -c '^>')" \
	"$(grep -c 'BUCKET\|PREFIX' "$GT_SRC/share/gt/s3/policy-worker.json")" "only BUCKET and PREFIX replaced"
for a in alice bob; do echo "key-$a secret-$a-0123456789 $a $T/policy-worker.json"; done > "$S3/proxy/users"
echo "key-trainer secret-trainer-0123456789 trainer $T/policy-trainer.json" >> "$S3/proxy/users"
as() { _a=$1; shift; AWS_ACCESS_KEY_ID=key-$_a AWS_SECRET_ACCESS_KEY=secret-$_a-0123456789 "$@"; }
echo '{"game_id":"x"}' | gzip > "$T/b.ndjson.gz"
echo '{"name":"evil.bin.gz"}' > "$T/evil.json"
denied() { grep -q "HTTP 403" "$T/err"; }

# what each key may do
as alice gt-sync latest --or-none "$U" "$T/m" >"$T/out" 2>"$T/err"; ok $? "alice: no latest.json yet is no error (404, not 403)"
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/alice/" 2>"$T/err"; ok $? "alice puts under games/alice/ (a HEAD of a new name: 404)"
s3aws s3 ls s3://gt/run1/games/alice/ | grep -q b.ndjson.gz; ok $? "stored"
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/bob/" 2>"$T/err"
is $? 1 "alice cannot put under games/bob/"
denied; ok $? "403: $(cat "$T/err")"
as alice gt-sync put "$T/b.ndjson.gz" "$U/games/" 2>"$T/err"; denied; ok $? "nor directly under games/ (403)"
as alice gt-sync put --overwrite "$T/evil.json" "$U/models/latest.json" 2>"$T/err"; denied
ok $? "nor models/latest.json (403)"
as alice gt-sync put --overwrite "$T/evil.json" "$U/diloco/current.json" 2>"$T/err"; denied
ok $? "nor diloco/current.json (403)"
as alice gt-sync put "$T/evil.json" "$U/stats/" 2>"$T/err"; denied; ok $? "nor stats/ (403)"
as alice gt-sync get "$U/games/bob/none.gz" "$T/none" 2>"$T/err"; denied; ok $? "nor read another's folder (403)"
is "$(s3aws s3 ls --recursive s3://gt/run1/ | wc -l)" 1 "none of these wrote anything"
as alice gt-sync put "$T/evil.json" "$U/site/" 2>"$T/err"; denied; ok $? "nor site/, the status page (403)"
as trainer gt-sync put "$T/evil.json" "$U/models/" && as trainer gt-sync put "$T/evil.json" "$U/stats/" &&
	as trainer gt-sync put "$T/evil.json" "$U/diloco/" && as trainer gt-sync put "$T/evil.json" "$U/site/"
ok $? "the trainer puts under models/, stats/, diloco/ and site/ (report = yes)"
as trainer gt-sync put "$T/b.ndjson.gz" "$U/games/trainer/" 2>"$T/err"; denied
ok $? "but not a games folder (403)"
as trainer gt-sync get "$U/games/alice/b.ndjson.gz" "$T/b2" && cmp -s "$T/b.ndjson.gz" "$T/b2"
ok $? "and reads the workers' games"
for o in models/evil.json stats/evil.json diloco/evil.json site/evil.json games/alice/b.ndjson.gz; do s3aws s3 rm --quiet s3://gt/run1/$o; done

# two workers and one trainer generation, each with its own key
: > "$L"
e2e_own_workers "$U" "$T/r"
is "$(s3aws s3 ls s3://gt/run1/games/alice/ | wc -l) $(s3aws s3 ls s3://gt/run1/games/bob/ | wc -l)" "1 1" "each into its own folder"
printf '%s\n' '{"from_step":0,"board_size":7,"visits":8,"cheap_visits":4}' > "$T/r/cur"
{ e2e_trainer_cfg "$U" "$T/r/tr" roles "$T/r/cur" | sed 's/^min_games = .*/min_games = 4/'; echo "report = yes"; } \
	> "$T/r/trainer.cfg"
as trainer sh "$GT_SRC/share/gt/trainer" -c "$T/r/trainer.cfg" 2>"$T/err"
rc=$?
if [ $full = 1 ]; then is $rc 0 "the trainer runs one generation with its key"
else is $rc 1 "the trainer stops at gt-train, which is missing"; fi
is "$(s3aws s3 cp s3://gt/run1/stats/contributions.json - | jq -r '.workers | keys | join(" ")')" "alice bob" \
	"contributions per key's folder"
if [ $full = 1 ]; then
	grep -q '^PUT /gt/run1/models/latest.json 200 ' "$L"; ok $? "the trainer's key published latest.json"
	grep -q '^PUT /gt/run1/site/index.html 200 ' "$L"; ok $? "and, with report = yes, the status page into site/"
	as alice sh "$GT_SRC/share/gt/worker" -c "$T/r/alice.cfg" --once 2>"$T/err"; ok $? "alice plays with it"
fi

# a learning unit and the outer process with the trainer's key
gt-selfplay --model none --games 2 --visits 8 --cheap-visits 4 --full-prob 1 --board-size 7 --seed 5 \
	2>/dev/null | gt-shard -o "$T/d" >/dev/null 2>&1
gt-model init b1c8 --seed 1 -o "$T/m0.bin.gz" 2>/dev/null
as trainer gt-outer --store "$U" --state "$T/outer" --init "$T/m0.bin.gz" --quorum 1 --grace 0 \
	--poll 0.05 --versions 1 --insecure-units >"$T/ev" 2>"$T/outer.err" &
OP=$!
as trainer gt-unit --store "$U" --data "$T/d" --unit u0 --rounds 1 --inner-steps 2 --batch 8 \
	--window 1000 --codec fp32 --cache "$T/c" --wait-version 0 --poll 0.05 >"$T/u.out" 2>"$T/u.err"
ok $? "a unit round with the trainer's key"
wait $OP; ok $? "gt-outer's version 1 with it"
is "$(grep -c ' 403 ' "$L")" 0 "no request of the workers, the trainer, the unit or gt-outer was refused"
grep ' 403 ' "$L" | head -3 | while read -r l; do diag "$l"; done
done_testing
