#!/bin/sh
# Self-play trained by learning units over s3:// (tests/cmd/units-loop.sh):
# npm's s3rver on 127.0.0.1 behind the proxy that checks every request's
# SigV4 signature with botocore (tests/s3/s3.sh), releases signed. The
# checks read a copy of the bucket that Debian's aws makes; gt-report
# reads the run from the bucket and writes its page into it. The whole
# run's requests, as the proxy logged them, are printed as a diagnostic
# (tests/cmd/outer-s3.t shows those of one round).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/s3/s3.sh"
command -v openssl >/dev/null || skip_all "openssl(1) is not installed (needed to make Ed25519 keys)"
s3_up
S=s3://gt/run1
SD=$T/view
CUR=$S3/data/gt/run1/diloco/current.json._S3rver_object
VIEW='rm -rf "$SD" && mkdir -p "$SD" && s3aws s3 sync --quiet s3://gt/run1 "$SD"'
KEY=$T/key.pem
openssl genpkey -algorithm ed25519 -out "$KEY" 2>/dev/null && openssl pkey -in "$KEY" -pubout -out "$KEY.pub"
ok $? "an Ed25519 key pair"
. "$GT_SRC/tests/cmd/units-loop.sh"
# the status page of the run, read from the bucket and written into it
gt-report --gnuplot '' "$S" >/dev/null 2>"$T/rep.err"; ok $? "gt-report over s3://"
s3aws s3 ls s3://gt/run1/site/index.html >/dev/null; ok $? "its page in the bucket"
is "$(s3aws s3 cp s3://gt/run1/site/status.json - 2>/dev/null | jq -r '[.units.version, (.units.units[].unit)] | join(" ")')" \
	"$(ver) u0 u1" "status.json: the store's version and both units"
is "$(grep -c ' 403 ' "$S3/proxy/requests.log")" 0 "no request of gt was refused by the signature check"
diag "$(ver) versions, $(ls "$SD/games" | wc -l) batches, the tests' polling (--poll 0.1, feed_poll 1): $(s3_requests "$S3/proxy/requests.log")"
done_testing
