# tap.sh: TAP helpers for the command tests (tests/cmd/*.t), sourced as
#   . "${GT_SRC:-.}/tests/cmd/tap.sh"
# Commands are found in $GT_BIN (set by make check), fixtures under $GT_SRC.
# Each test gets a fresh $T directory that is removed at exit.
: "${GT_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GT_BIN:=$GT_SRC/bin}"
PATH=$GT_BIN:$PATH
export GT_SRC GT_BIN PATH
T=$(mktemp -d "${TMPDIR:-/tmp}/gt-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0 _fail=0
ok() {   # ok COND-EXIT-STATUS "name"
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=$((_fail + 1)); fi
}
check() { # check "name" cmd args...   (passes when cmd exits 0)
	_name=$1; shift
	if "$@"; then ok 0 "$_name"; else ok 1 "$_name"; fi
}
is() {   # is GOT WANT "name"
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'"; fi
}
check_help() { # check_help CMD OPTION: "CMD -h" exits 0 and lists OPTION (two assertions)
	"$1" -h >"$T/help" 2>&1; ok $? "-h exits 0"
	grep -q -- "$2" "$T/help"; ok $? "-h lists the options"
}
diag() { echo "# $*"; }
wait_http() { # wait_http URL: 0 once URL answers anything over HTTP (10 s at most)
	_w=0
	while [ $_w -lt 100 ]; do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}
ed25519_key() { # ed25519_key PRIV PUB: a new Ed25519 key pair in PEM files, by openssl(1)
	openssl genpkey -algorithm ed25519 -out "$1" 2>/dev/null &&
		openssl pkey -in "$1" -pubout -out "$2" 2>/dev/null
}
random_shards() { # random_shards GAMES DIR: GAMES 9x9 games of the random network (seed 11)
	# in $T/g.ndjson, then in shards of 100 rows in DIR; stderr in $T/e; gt-shard's status
	gt-selfplay --model none --games "$1" --visits 8 --cheap-visits 4 --full-prob 1 \
		--board-size 9 --seed 11 >"$T/g.ndjson" 2>"$T/e"
	gt-shard -o "$2" --rows 100 "$T/g.ndjson" >/dev/null 2>>"$T/e"
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$_n"; [ "$_fail" -eq 0 ]; }
