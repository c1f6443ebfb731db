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

	char msg[512], sig[GT_SIGN_HEX];
	const char *sha = "693aba1e0cc08a197ed6db7f1aadfcb45e77ac3a3ca1e1b9904ccc2ed3d298b3";
	int n = gt_sign_pointer_message("run1-s100.bin.gz", sha, 1000, msg, sizeof msg);
	is_str(msg, "gt-latest-v1\nname=run1-s100.bin.gz\nsha256=693aba1e0cc08a197ed6db7f1aadfcb45e77ac3a3ca1e1b9904ccc2ed3d298b3\nbytes=1000\n",
	       "the signed text");
	is_int(n, (long)strlen(msg), "its length");
	is_int(gt_sign_pointer_message("a\nb", sha, 1, msg, sizeof msg), GT_EINVAL, "a name with a newline cannot be signed");
	is_int(gt_sign_pointer_message("a", "abc", 1, msg, sizeof msg), GT_EINVAL, "a short sha256 cannot be signed");
	n = gt_sign_pointer_message("run1-s100.bin.gz", sha, 1000, msg, sizeof msg);

	gt_error e = { 0 };
	is_int(gt_sign(priv, msg, (size_t)n, sig, &e), 0, "sign");
	is_int(strlen(sig), 128, "128 hex digits");
	is_int(gt_sign_verify(pub, msg, (size_t)n, sig, &e), 0, "verifies with the public key");
	char sig2[GT_SIGN_HEX];
	gt_sign(priv, msg, (size_t)n, sig2, &e);
	is_str(sig2, sig, "Ed25519 is deterministic");

	char bad[512];
	int bn = gt_sign_pointer_message("run1-s100.bin.gz", sha, 1001, bad, sizeof bad);
	is_int(gt_sign_verify(pub, bad, (size_t)bn, sig, &e), GT_ECHECKSUM, "a changed size is refused");
	bn = gt_sign_pointer_message("run1-s999.bin.gz", sha, 1000, bad, sizeof bad);
	is_int(gt_sign_verify(pub, bad, (size_t)bn, sig, &e), GT_ECHECKSUM, "a changed name is refused");
	sig2[10] = sig2[10] == '0' ? '1' : '0';
	is_int(gt_sign_verify(pub, msg, (size_t)n, sig2, &e), GT_ECHECKSUM, "a changed signature is refused");
	is_int(gt_sign_verify(pub2, msg, (size_t)n, sig, &e), GT_ECHECKSUM, "another key's public key refuses it");
	is_int(gt_sign_verify(pub, msg, (size_t)n, "abc", &e), GT_ECHECKSUM, "a short signature is refused");
	is_int(gt_sign_verify(pub, msg, (size_t)n, NULL, &e), GT_ECHECKSUM, "no signature is refused");
	is_int(gt_sign(ec, msg, (size_t)n, sig2, &e), GT_EFORMAT, "an EC key is not an Ed25519 key");
	is_int(gt_sign(pub, msg, (size_t)n, sig2, &e), GT_EFORMAT, "a public key cannot sign");
	is_int(gt_sign("/nonexistent/key.pem", msg, (size_t)n, sig2, &e), GT_EIO, "a missing key file");

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
