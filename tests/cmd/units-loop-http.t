#!/bin/sh
# Self-play trained by learning units over an nginx WebDAV store on
# 127.0.0.1, releases signed (tests/cmd/units-loop.sh).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
command -v openssl >/dev/null || skip_all "openssl(1) is not installed (needed to make Ed25519 keys)"
nginx_need
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
S=$NGX_URL/run1
SD=$T/store/run1
mkdir -p "$SD" && chmod 777 "$SD"
unset GT_STORE_TOKEN
KEY=$T/key.pem
ed25519_key "$KEY" "$KEY.pub"
ok $? "an Ed25519 key pair"
. "$GT_SRC/tests/cmd/units-loop.sh"
done_testing
