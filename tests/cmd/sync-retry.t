#!/bin/sh
# gt-sync retries: uploads while nginx is down succeed once it is back, and
# no game is lost; 5xx are retried a bounded number of times.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
nginx_need
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
U=$NGX_URL
unset GT_STORE_TOKEN
mkdir -p "$T/w"
python3 - "$T/w" <<'PY'
import gzip, sys, os
for b in range(3):
    with gzip.open(os.path.join(sys.argv[1], "w%d-batch.ndjson.gz" % b), "wb") as f:
        for g in range(50):
            f.write(b'{"game_id":"%d-%d","moves":["E5","pass","pass"]}\n' % (b, g))
PY
gt-sync put "$T/w/w0-batch.ndjson.gz" "$U/games/"; ok $? "first batch while nginx is up"

nginx_stop
curl -s -o /dev/null "$U/" ; is $? 7 "nginx is down (connection refused)"
(sleep 1.5; nginx_start) &
bg=$!
gt-sync put "$T/w/w1-batch.ndjson.gz" "$U/games/" 2>"$T/err"; ok $? "upload while nginx is down succeeds after it restarts"
wait $bg
grep -q "retrying" "$T/err"; ok $? "and said it was retrying"
n=$(grep -c 'retrying' "$T/err")
[ "$n" -ge 1 ] && [ "$n" -le 5 ]; ok $? "at most --retries (5) retries: $n"
gt-sync put "$T/w/w2-batch.ndjson.gz" "$U/games/"; ok $? "third batch"

gt-sync pull "$U/games/" --state "$T/state" > "$T/out"; ok $? "pull"
is "$(zcat "$T"/w/*.ndjson.gz | wc -l)" 150 "150 games uploaded"
is "$(wc -l < "$T/out")" 150 "150 games pulled"
is "$(sort "$T/out" | uniq | wc -l)" 150 "each exactly once"
zcat "$T"/w/*.ndjson.gz | sort > "$T/in.sorted"
sort "$T/out" | cmp -s - "$T/in.sorted"; ok $? "the same records"

# 503 is retried --retries times, then fails
gt-sync get --retries 2 "$U/flaky/x" "$T/x" 2>"$T/err"
is $? 1 "a persistent 503 fails"
is "$(grep -c '^GET /flaky/x 503' "$NGX/access.log")" 3 "after 1 + 2 retries"
grep -q "retries exhausted" "$T/err"; ok $? "and says so"
[ ! -e "$T/x" ]; ok $? "installs nothing"

# a 4xx is not retried
gt-sync get --retries 3 "$U/games/none" "$T/x" 2>/dev/null
is "$(grep -c '^GET /games/none 404' "$NGX/access.log")" 1 "404 is not retried"

# a timeout with nothing listening: bounded by --retries and --timeout
nginx_stop
start=$(date +%s)
gt-sync ls --retries 1 --timeout 1 "$U/games/" 2>"$T/err" >/dev/null
is $? 1 "with the store down and one retry, ls fails"
end=$(date +%s)
[ $((end - start)) -le 5 ]; ok $? "quickly ($((end - start)) s)"
done_testing
