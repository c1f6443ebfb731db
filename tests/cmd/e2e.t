#!/bin/sh
# End to end, over nginx and then over file://: two workers
# (share/gt/worker --once, alice and bob) and a bad upload (mallory), then
# one trainer generation (share/gt/trainer). Every game a worker uploaded is
# in a shard (the manifest's games) or in the rejects file, the
# contributions are counted, and with gt-train and gt-elo built the
# generation is published with its curriculum and the next worker batch is
# played with it. Tiny settings: b1c8, few games, visits and steps
# (tests/cmd/e2e.sh).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/cmd/e2e.sh"

. "$GT_SRC/tests/nginx/nginx.sh"
nginx_need
if nginx_start; then
	unset GT_STORE_TOKEN
	e2e "$NGX_URL/e2e" "$T/store/e2e" http
	nginx_stop
else
	diag "nginx did not start: $(cat "$NGX"/*.err)"
	ok 1 "nginx started"
fi
mkdir -p "$T/fstore"
e2e "file://$T/fstore" "$T/fstore" file
done_testing
