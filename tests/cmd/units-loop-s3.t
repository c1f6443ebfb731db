#!/bin/sh
# Self-play trained by learning units over s3:// (tests/cmd/units-loop.sh):
# npm's s3rver on 127.0.0.1 behind the proxy that checks every request's
# SigV4 signature with botocore (tests/s3/s3.sh), releases signed. The
# checks read a copy of the bucket that Debian's aws makes; the requests
# of the units' phase, as the proxy logged them, are printed as
# diagnostics (what an outer round costs against an S3 store).
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
is "$(grep -c ' 403 ' "$S3/proxy/requests.log")" 0 "no request of gt was refused by the signature check"
done_testing
