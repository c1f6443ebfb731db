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
get_resumes() { # get_resumes U MARK: 300000 random bytes ($T/w/big.bin, sha256 in BS) put as
	# U/models/big.bin and got whole, then got again from a partial file of 100000
	# bytes (MARK emptied first: the caller then checks the Range request); 4 assertions
	head -c 300000 /dev/urandom > "$T/w/big.bin"
	BS=$(sha256sum "$T/w/big.bin" | cut -d' ' -f1)
	gt-sync put "$T/w/big.bin" "$1/models/big.bin"
	gt-sync get --sha256 "$BS" --bytes 300000 "$1/models/big.bin" "$T/dl/big.bin"; ok $? "get with sha256 and size"
	cmp -s "$T/w/big.bin" "$T/dl/big.bin"; ok $? "bytes match"
	head -c 100000 "$T/w/big.bin" > "$T/dl/.resumed.bin.part"
	: > "$2"
	gt-sync get --sha256 "$BS" "$1/models/big.bin" "$T/dl/resumed.bin" 2>"$T/err"; ok $? "get resumes a partial file"
	cmp -s "$T/w/big.bin" "$T/dl/resumed.bin"; ok $? "and the result is whole"
}
get_refusals() { # get_refusals U BS NAME404: gt-sync get from the store U refuses, and
	# installs nothing in $T/dl: models/big.bin (sha256 BS) asked with another sha256,
	# models/trunc.bin (200000 bytes; the caller puts it) asked as 300000 bytes, and
	# the missing models/none.bin (the assertion named NAME404); 8 assertions
	gt-sync get --sha256 "$(echo "$2" | tr 0-9a-f 1-9a-f0)" "$1/models/big.bin" "$T/dl/bad.bin" 2>"$T/err"
	is $? 1 "a wrong sha256 is rejected"
	[ ! -e "$T/dl/bad.bin" ] && [ ! -e "$T/dl/.bad.bin.part" ]; ok $? "nothing installed, temporary file removed"
	gt-sync get --bytes 300000 "$1/models/trunc.bin" "$T/dl/trunc.bin" 2>"$T/err"
	is $? 1 "a truncated object (wrong length) is rejected"
	grep -q "200000 bytes, expected 300000" "$T/err"; ok $? "with a message: $(cat "$T/err")"
	[ ! -e "$T/dl/trunc.bin" ] && [ ! -e "$T/dl/.trunc.bin.part" ]; ok $? "nothing installed"
	gt-sync get "$1/models/none.bin" "$T/dl/none.bin" 2>"$T/err"
	is $? 1 "$3"
	grep -q "404" "$T/err"; ok $? "and says so"
}
worker_cfg() { # worker_cfg NAME [LINE...]: a worker's settings (gt-worker(1)) in
	# $T/NAME.cfg: store file://$S (a comment after it), worker NAME, work_dir
	# $T/NAME, then the LINEs (a later line of a key wins)
	_wc=$1; shift
	{
		echo "store = file://$S    # a comment"
		echo "worker = $_wc"
		echo "work_dir = $T/$_wc"
		for _kv in "$@"; do echo "$_kv"; done
	} > "$T/$_wc.cfg"
}
wait_lines() { # wait_lines FILE PATTERN [N]: 0 once N (1) lines of FILE match PATTERN (60 s at most)
	_i=0
	while [ $_i -lt 600 ]; do
		[ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$_n"; [ "$_fail" -eq 0 ]; }
