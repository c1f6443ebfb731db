#!/bin/sh
# Decoupled DiLoCo over an nginx WebDAV store on 127.0.0.1: four learning
# units and the outer process under SIGKILL chaos
# (tests/cmd/diloco-chaos.sh).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
. "$GT_SRC/tests/nginx/nginx.sh"
nginx_need
nginx_start || { cat "$NGX"/*.err "$NGX/error.log" >&2; skip_all "nginx did not start"; }
SD=$T/store
S=$NGX_URL/run1
SD=$T/store/run1
mkdir -p "$SD" && chmod 777 "$SD"
unset GT_STORE_TOKEN
. "$GT_SRC/tests/cmd/diloco-chaos.sh"
done_testing
