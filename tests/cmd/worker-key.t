#!/bin/sh
# The worker's verify_key (issue 17, item 14) is one path, spaces and all:
# a worker whose key lies in "my keys/" verifies the signed pointer and
# plays with its network; the key of another publisher there refuses it.
# (The worker once split the path on spaces and so never verified.)
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v openssl >/dev/null || skip_all "openssl(1) is not installed (needed to make Ed25519 keys)"
WORKER=$GT_SRC/share/gt/worker
S=$T/store
K="$T/my keys"
mkdir -p "$K"
ed25519_key "$K/key.pem" "$K/pub key.pem" && ed25519_key "$K/other.pem" "$K/other pub.pem"
ok $? "Ed25519 keys in a folder whose name has a space"
gt-model init b1c8 --series run1 --seed 1 -o "$T/run1-b1c8-s0-d0.bin.gz"
echo '{"games":10,"wins":8,"draws":0,"losses":2,"elo":240.8}' |
	gt-publish --candidate "$T/run1-b1c8-s0-d0.bin.gz" --store "$S" --sign-key "$K/key.pem" > /dev/null
ok $? "a signed release in the store"
cfg() { # cfg NAME KEY: a worker's settings
	printf 'store = %s\nworker = %s\nwork_dir = %s\ngames_per_batch = 1\nboard_size = 7\nvisits = 4\ncheap_visits = 2\nretries = 0\nverify_key = %s\n' \
		"$S" "$1" "$T/$1" "$2" > "$T/$1.cfg"
}
cfg alice "$K/pub key.pem"
sh "$WORKER" -c "$T/alice.cfg" --once 2> "$T/err"
is "$?" 0 "worker with verify_key '.../my keys/pub key.pem': exit 0"
grep -q "network run1-b1c8-s0-d0.bin.gz" "$T/alice/worker.log"; ok $? "it verified the pointer and plays with the published network"
is "$(ls "$S/games" | grep -c '^alice-.*\.ndjson\.gz$')" 1 "and uploaded its batch"
cfg bob "$K/other pub.pem"
sh "$WORKER" -c "$T/bob.cfg" --once 2> "$T/err"
is "$?" 1 "another publisher's key (also in that folder): exit 1"
grep -q "does not verify" "$T/bob/worker.log"; ok $? "the pointer does not verify"
is "$(ls "$S/games" | grep -c '^bob-')" 0 "nothing played or uploaded"
done_testing
