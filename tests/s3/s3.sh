# s3.sh: an S3-compatible store on 127.0.0.1 for the S3 tests, sourced after
# tests/cmd/tap.sh. npm's s3rver (installed into $T/node from the npm
# registry; the test is skipped, with the reason, when npm or the registry
# cannot be reached) keeps the objects in $S3/data; it does not check
# signatures as AWS does nor honour conditional writes, so gt talks to it
# through tests/s3/s3proxy.py, which checks every request's SigV4 signature
# with botocore and the known secret and does If-Match/If-None-Match.
#   s3_need    skip_all unless node, npm, /usr/bin/aws and botocore are
#              here and s3rver installs
#   s3_start   s3rver with the bucket "gt" and the proxy; exports the AWS_
#              variables gt reads (the proxy as AWS_ENDPOINT_URL, key
#              $S3_KEY, secret $S3_SECRET) with empty ~/.aws files
#   s3_stop    both stopped (s3_need arranges it at exit)
#   s3_up      s3_need and s3_start, skip_all (the logs on stderr) if they
#              do not start
#   s3aws ARGS Debian's aws (an independent client) straight to s3rver,
#              with s3rver's own key
#   s3_requests FILE  a proxy log summed up on one line: requests by kind
#              (a ListObjectsV2 listing counted as LIST) and the bytes of
#              their bodies both ways
# $S3/proxy/requests.log: one line per request gt sent:
#   METHOD PATH?QUERY STATUS BYTES_IN BYTES_OUT RANGE CONDITION
# $S3/proxy/users (written by a test): more keys, each an IAM user whose
# requests the proxy allows only as its policy does (s3proxy.py);
# $S3/proxy/race: another writer of an object (s3proxy.py)
S3=$T/s3
S3_KEY=gtkey
S3_SECRET=gt-secret-key-0123456789
S3_AWS=/usr/bin/aws
S3_PY=/usr/bin/python3

s3_need() {
	command -v node >/dev/null || skip_all "node not installed (Debian: nodejs npm)"
	command -v npm >/dev/null || skip_all "npm not installed (Debian: npm)"
	[ -x "$S3_AWS" ] || skip_all "Debian's awscli is not installed"
	"$S3_PY" -c 'import botocore.auth' 2>/dev/null || skip_all "python3-botocore is not installed"
	mkdir -p "$S3/node" "$S3/data" "$S3/proxy" "$S3/aws"
	if ! (cd "$S3/node" && timeout 180 npm install --no-audit --no-fund --loglevel=error \
		s3rver@3.7.1 >"$S3/npm.log" 2>&1); then
		skip_all "npm could not install s3rver (registry unreachable?): $(tail -1 "$S3/npm.log")"
	fi
	: > "$S3/aws/config"
	: > "$S3/aws/credentials"
	trap 's3_stop; rm -rf "$T"' EXIT
}

_s3_port() {
	"$S3_PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

s3_start() {
	S3_PORT=$(_s3_port)
	S3_PROXY_PORT=$(_s3_port)
	# s3rver signs its continuation tokens with DES, which OpenSSL 3 keeps
	# in its legacy provider
	NODE_OPTIONS=--openssl-legacy-provider node "$S3/node/node_modules/.bin/s3rver" -d "$S3/data" -a 127.0.0.1 -p "$S3_PORT" -s \
		--allow-mismatched-signatures --configure-bucket gt >"$S3/s3rver.log" 2>&1 &
	S3_PID=$!
	"$S3_PY" "$GT_SRC/tests/s3/s3proxy.py" "$S3_PROXY_PORT" "$S3_PORT" "$S3_KEY" "$S3_SECRET" \
		"$S3/proxy" >"$S3/proxy.log" 2>&1 &
	S3_PROXY_PID=$!
	# the proxy is listening once it has written proxy.ready (a request
	# to see would be logged, refused)
	_w=0
	while [ ! -s "$S3/proxy/proxy.ready" ] && [ $_w -lt 100 ]; do sleep 0.1; _w=$((_w + 1)); done
	[ -s "$S3/proxy/proxy.ready" ] && wait_http "http://127.0.0.1:$S3_PORT/" || return 1
	export AWS_ACCESS_KEY_ID=$S3_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET AWS_REGION=us-east-1
	export AWS_ENDPOINT_URL=http://127.0.0.1:$S3_PROXY_PORT
	export AWS_CONFIG_FILE=$S3/aws/config AWS_SHARED_CREDENTIALS_FILE=$S3/aws/credentials
	unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL_S3 AWS_DEFAULT_REGION
	unset GT_STORE_TOKEN
	return 0
}

s3_up() {
	s3_need
	s3_start || { cat "$S3"/*.log >&2; skip_all "s3rver or the proxy did not start"; }
}

s3_stop() {
	for _p in $S3_PROXY_PID $S3_PID; do
		kill "$_p" 2>/dev/null && wait "$_p" 2>/dev/null
	done
	S3_PID= S3_PROXY_PID=
}

s3_requests() {
	awk '{ w = index($2, "list-type=2") ? "LIST" : $1; n[w]++; i += $4; o += $5 }
	     END { for (m in n) printf "%s %d, ", m, n[m]; printf "%d bytes up, %d down", i, o }' "$1"
}

s3aws() {   # s3rver's own key (it checks signatures, not as AWS does)
	AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL= "$S3_AWS" --endpoint-url "http://127.0.0.1:$S3_PORT" --no-cli-pager "$@"
}
