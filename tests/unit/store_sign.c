/* store_sign: Ed25519 signatures of pointer files (lib/sign): a fresh key
 * pair signs and verifies; a changed message, a changed signature, the
 * wrong key and a non-Ed25519 key are all refused. */
#include "tap.h"
#include "sign.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

static int write_key(EVP_PKEY *k, const char *path, int priv)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int r = priv ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) : PEM_write_PUBKEY(f, k);
	fclose(f);
	return r == 1 ? 0 : -1;
}

static EVP_PKEY *gen(int id)
{
	EVP_PKEY *k = NULL;
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(id, NULL);
	if (c && EVP_PKEY_keygen_init(c) == 1) {
		if (id == EVP_PKEY_EC)
			EVP_PKEY_CTX_set_ec_paramgen_curve_nid(c, NID_X9_62_prime256v1);
		EVP_PKEY_keygen(c, &k);
	}
	EVP_PKEY_CTX_free(c);
	return k;
}

int main(void)
{
	char dir[] = "/tmp/gt-sign.XXXXXX", priv[64], pub[64], pub2[64], ec[64];
	if (!mkdtemp(dir))
		skip_all("cannot create a temporary folder");
	snprintf(priv, sizeof priv, "%s/key.pem", dir);
	snprintf(pub, sizeof pub, "%s/pub.pem", dir);
	snprintf(pub2, sizeof pub2, "%s/pub2.pem", dir);
	snprintf(ec, sizeof ec, "%s/ec.pem", dir);
	EVP_PKEY *k = gen(EVP_PKEY_ED25519), *k2 = gen(EVP_PKEY_ED25519), *k3 = gen(EVP_PKEY_EC);
	ok(k && k2 && k3, "key pairs generated");
	ok(write_key(k, priv, 1) == 0 && write_key(k, pub, 0) == 0 && write_key(k2, pub2, 0) == 0 &&
	   write_key(k3, ec, 1) == 0, "keys written as PEM");

	char *msg, sig[GT_SIGN_HEX];
	size_t n;
	gt_error pe = { 0 };
	const char *sha = "693aba1e0cc08a197ed6db7f1aadfcb45e77ac3a3ca1e1b9904ccc2ed3d298b3";
	char ptr[1024], bad[1024], sp[1200];
	snprintf(ptr, sizeof ptr, "{\"sha256\": \"%s\", \"name\": \"run1-s100.bin.gz\", \"bytes\": 1000,\n"
	         " \"seq\": 3, \"published\": \"2026-12-01T07:00:00Z\",\n"
	         " \"selfplay\": {\"visits\": 200, \"komi\": 7.5}, \"signature\": \"ab\"}\n", sha);
	is_int(gt_sign_pointer_message(ptr, strlen(ptr), &msg, &n, &pe), 0, "the signed text of a pointer");
	/* by hand: keys sorted at every level, no spaces, the signature left out */
	snprintf(bad, sizeof bad, "gt-latest-v2\n{\"bytes\":1000,\"name\":\"run1-s100.bin.gz\","
	         "\"published\":\"2026-12-01T07:00:00Z\",\"selfplay\":{\"komi\":7.5,\"visits\":200},"
	         "\"seq\":3,\"sha256\":\"%s\"}\n", sha);
	is_str(msg, bad, "is the canonical JSON of everything but the signature");
	is_int(n, (long)strlen(msg), "its length");
	free(msg);
	static const char *notptr[] = { "[1,2]", "{\"name\":\"a\",\"name\":\"b\"}", "{\"a\":", "" };
	for (size_t i = 0; i < sizeof notptr / sizeof notptr[0]; i++)
		is_int(gt_sign_pointer_message(notptr[i], strlen(notptr[i]), &msg, &n, &pe), GT_EFORMAT,
		       "not a pointer (%s): %s", notptr[i], pe.text);
	is_int(gt_sign_pointer_message(ptr, strlen(ptr), &msg, &n, &pe), 0, "again");

	gt_error e = { 0 };
	is_int(gt_sign(priv, msg, (size_t)n, sig, &e), 0, "sign");
	is_int(strlen(sig), 128, "128 hex digits");
	is_int(gt_sign_verify(pub, msg, (size_t)n, sig, &e), 0, "verifies with the public key");
	char sig2[GT_SIGN_HEX];
	gt_sign(priv, msg, (size_t)n, sig2, &e);
	is_str(sig2, sig, "Ed25519 is deterministic");

	char bmsg[512];
	snprintf(bmsg, sizeof bmsg, "%s", msg);
	bmsg[strlen(bmsg) - 4] ^= 1;     /* the last digit of the sha256 */
	is_int(gt_sign_verify(pub, bmsg, strlen(bmsg), sig, &e), GT_ECHECKSUM, "a changed message is refused");

	/* whole pointers: the signature put in, then the pointer changed */
	is_int(gt_sign_pointer(priv, ptr, strlen(ptr), sig2, &e), 0, "sign a pointer");
	is_str(sig2, sig, "over the same text");
	snprintf(sp, sizeof sp, "{\"signature\":\"%s\",\"seq\":3,\"bytes\":1000,\"name\":\"run1-s100.bin.gz\","
	         "\"selfplay\":{\"komi\":7.5,\"visits\":200},\"published\":\"2026-12-01T07:00:00Z\","
	         "\"sha256\":\"%s\"}", sig, sha);
	is_int(gt_sign_pointer_verify(pub, sp, strlen(sp), &e), 0, "keys in another order, other spaces: verifies");
	static const struct { const char *from, *to, *what; } lie[] = {
		{ "\"visits\":200", "\"visits\":1", "the self-play settings" },
		{ "\"komi\":7.5", "\"komi\":0.5", "the komi" },
		{ "\"seq\":3", "\"seq\":2", "the sequence number" },
		{ "07:00:00Z", "08:00:00Z", "the time" },
		{ "\"bytes\":1000", "\"bytes\":1000,\"steps\":5", "a key added" },
		{ "\"seq\":3,", "", "a key removed" },
		{ "\"bytes\":1000", "\"bytes\":1000,\"seq\":9", "a key twice" },
	};
	for (size_t i = 0; i < sizeof lie / sizeof lie[0]; i++) {
		char t[1300];
		const char *at = strstr(sp, lie[i].from);
		snprintf(t, sizeof t, "%.*s%s%s", (int)(at - sp), sp, lie[i].to, at + strlen(lie[i].from));
		int v = gt_sign_pointer_verify(pub, t, strlen(t), &e);
		ok(v == GT_ECHECKSUM || v == GT_EFORMAT, "%s changed: refused (%d)", lie[i].what, v);
	}
	is_int(gt_sign_pointer_verify(pub, ptr, strlen(ptr), &e), GT_ECHECKSUM, "a wrong signature is refused");
	is_int(gt_sign_pointer_verify(pub, "{\"name\":\"a\"}", 12, &e), GT_ECHECKSUM, "no signature is refused");
	sig2[10] = sig2[10] == '0' ? '1' : '0';
	is_int(gt_sign_verify(pub, msg, (size_t)n, sig2, &e), GT_ECHECKSUM, "a changed signature is refused");
	is_int(gt_sign_verify(pub2, msg, (size_t)n, sig, &e), GT_ECHECKSUM, "another key's public key refuses it");
	is_int(gt_sign_verify(pub, msg, (size_t)n, "abc", &e), GT_ECHECKSUM, "a short signature is refused");
	is_int(gt_sign_verify(pub, msg, (size_t)n, NULL, &e), GT_ECHECKSUM, "no signature is refused");
	is_int(gt_sign(ec, msg, (size_t)n, sig2, &e), GT_EFORMAT, "an EC key is not an Ed25519 key");
	is_int(gt_sign(pub, msg, (size_t)n, sig2, &e), GT_EFORMAT, "a public key cannot sign");
	is_int(gt_sign("/nonexistent/key.pem", msg, (size_t)n, sig2, &e), GT_EIO, "a missing key file");

	free(msg);
	EVP_PKEY_free(k);
	EVP_PKEY_free(k2);
	EVP_PKEY_free(k3);
	unlink(priv);
	unlink(pub);
	unlink(pub2);
	unlink(ec);
	rmdir(dir);
	return done_testing();
}
