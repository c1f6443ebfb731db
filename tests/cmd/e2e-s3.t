#!/bin/sh
# End to end over s3:// (tests/cmd/e2e.sh): two workers, a bad upload and
# one trainer generation against npm's s3rver behind the SigV4-checking
# proxy (tests/s3/s3.sh); Debian's aws mirrors the bucket into a folder for
# the checks. The requests and bytes of each phase, as the proxy logged
# them, are printed as diagnostics (what a worker's batch and a trainer's
# generation cost against an S3 store).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/s3/s3.sh"
s3_up
PL=$S3/proxy/requests.log   # (e2e.sh uses L)
phase=0
# store_view: the bucket's e2e/ into DIR (by aws, straight from s3rver);
# the proxy's log of the phase that ended kept as $T/phase.N
store_view() {
	phase=$((phase + 1))
	mv "$PL" "$T/phase.$phase"
	: > "$PL"
	rm -rf "$2"
	mkdir -p "$2"
	s3aws s3 sync --quiet s3://gt/e2e "$2"
}
. "$GT_SRC/tests/cmd/e2e.sh"
: > "$PL"
e2e s3://gt/e2e "$T/view" s3
# requests of gt that failed the signature check: none
is "$(cat "$T"/phase.* | grep -c ' 403 ')" 0 "no request of gt was refused by the signature check"
for p in "$T"/phase.*; do
	case $p in
	*.1) what="two workers' first batches (3 games each) and a 1-game upload" ;;
	*.2) what="one trainer generation (pull, validate, train, match, publish, contributions)" ;;
	*.3) what="one worker batch with the new network (3 games)" ;;
	esac
	diag "$what: $(s3_requests "$p")"
done
done_testing
