#!/bin/sh
# Signed releases: gt-publish --sign-key signs latest.json; gt-sync latest
# --verify-key refuses an unsigned or tampered pointer and a tampered model.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v openssl >/dev/null || skip_all "openssl(1) is not installed (needed to make Ed25519 keys)"
S=$T/store
ed25519_key "$T/key.pem" "$T/pub.pem" && ed25519_key "$T/key2.pem" "$T/pub2.pem"
ok $? "Ed25519 keys made with openssl"
gt-model init b1c8 --series run1 --seed 1 -o "$T/run1-b1c8-s0-d0.bin.gz"
line='{"games":10,"wins":8,"draws":0,"losses":2,"elo":240.8}'
field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline()).get(sys.argv[1]))' "$1"; }

echo "$line" | gt-publish --candidate "$T/run1-b1c8-s0-d0.bin.gz" --store "$S" --sign-key "$T/key.pem" > "$T/out"
ok $? "signed release"
sig=$(field signature < "$S/models/latest.json")
is "${#sig}" 128 "latest.json carries a 128-digit signature"

P=$(gt-sync latest --verify-key "$T/pub.pem" "$S" "$T/inst" 2>"$T/err"); ok $? "latest verifies the signature"
cmp -s "$T/run1-b1c8-s0-d0.bin.gz" "$P"; ok $? "and installs the model"

gt-sync latest --verify-key "$T/pub2.pem" "$S" "$T/inst2" > /dev/null 2>"$T/err"
is $? 1 "another publisher's key refuses it"
grep -q "does not verify" "$T/err"; ok $? "saying the signature does not verify"
[ ! -e "$T/inst2" ] || [ -z "$(ls -A "$T/inst2")" ]; ok $? "nothing installed"

# tampered pointer: same signature, other model
cp "$S/models/latest.json" "$T/good.json"
gt-model init b1c8 --series evil --seed 2 -o "$S/models/evil.bin.gz"
python3 - "$S/models/latest.json" "$(sha256sum "$S/models/evil.bin.gz" | cut -d' ' -f1)" "$(stat -c %s "$S/models/evil.bin.gz")" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["name"] = "evil.bin.gz"; j["sha256"] = sys.argv[2]; j["bytes"] = int(sys.argv[3])
open(p, "w").write(json.dumps(j) + "\n")
PY
gt-sync latest --verify-key "$T/pub.pem" "$S" "$T/inst3" > /dev/null 2>"$T/err"
is $? 1 "a tampered latest.json is refused"
[ ! -e "$T/inst3/evil.bin.gz" ]; ok $? "and the other model is not installed"
gt-sync latest "$S" "$T/inst4" > /dev/null; ok $? "without --verify-key the same pointer is taken (no check asked for)"

# unsigned pointer
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j.pop("signature"); print(json.dumps(j))' "$T/good.json" > "$S/models/latest.json"
gt-sync latest --verify-key "$T/pub.pem" "$S" "$T/inst5" > /dev/null 2>"$T/err"
is $? 1 "an unsigned latest.json is refused"
grep -q "not signed" "$T/err"; ok $? "saying it is not signed"

# tampered model behind a good pointer
cp "$T/good.json" "$S/models/latest.json"
head -c "$(stat -c %s "$T/run1-b1c8-s0-d0.bin.gz")" /dev/urandom > "$S/models/run1-b1c8-s0-d0.bin.gz"
gt-sync latest --verify-key "$T/pub.pem" "$S" "$T/inst6" > /dev/null 2>"$T/err"
is $? 1 "a tampered model is refused"
grep -q sha256 "$T/err"; ok $? "by its sha256"
[ ! -e "$T/inst6/run1-b1c8-s0-d0.bin.gz" ]; ok $? "and not installed"

echo "$line" | gt-publish --candidate "$T/run1-b1c8-s0-d0.bin.gz" --store "$T/s2" --sign-key "$T/pub.pem" >/dev/null 2>"$T/err"
is $? 1 "a public key cannot sign a release"
[ ! -e "$T/s2/models/latest.json" ] && [ ! -e "$T/s2/models/run1-b1c8-s0-d0.bin.gz" ]; ok $? "and nothing is published"
done_testing
