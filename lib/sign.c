/* sign.c: Ed25519 signatures of pointer files through OpenSSL. */
#include "sign.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>

int gt_sign_pointer_message(const char *name, const char *sha256, long long bytes,
                            char *buf, size_t size)
{
	if (!name || strpbrk(name, "\n\r") || !sha256 || strlen(sha256) != 64 || bytes < 0)
		return GT_EINVAL;
	int n = snprintf(buf, size, "gt-latest-v1\nname=%s\nsha256=%s\nbytes=%lld\n",
	                 name, sha256, bytes);
	if (n < 0 || (size_t)n >= size)
		return GT_EINVAL;
	return n;
}

/* load: the key in a PEM file, private or public; must be Ed25519. */
static int load(const char *path, int priv, EVP_PKEY **k, gt_error *e)
{
	FILE *f = fopen(path, "r");
	*k = NULL;
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	*k = priv ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (!*k || EVP_PKEY_get_id(*k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(*k);
		*k = NULL;
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: not an Ed25519 %s key in PEM", path,
		                    priv ? "private" : "public");
	}
	return 0;
}

int gt_sign(const char *keyfile, const void *msg, size_t n, char sig[GT_SIGN_HEX], gt_error *e)
{
	EVP_PKEY *k;
	unsigned char s[64];
	size_t sl = sizeof s;
	int rc = load(keyfile, 1, &k, e);
	if (rc)
		return rc;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestSignInit(c, NULL, NULL, NULL, k) != 1 ||
	    EVP_DigestSign(c, s, &sl, msg, n) != 1 || sl != 64)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: signing failed", keyfile);
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	if (!rc)
		gt_hex(sig, s, 64);
	return rc;
}

int gt_sign_verify(const char *pubfile, const void *msg, size_t n, const char *sig, gt_error *e)
{
	unsigned char s[64];
	if (!sig || strlen(sig) != 128)
		return gt_error_set(e, GT_ECHECKSUM, -1, -1, "signature missing or not 128 hex digits");
	for (int i = 0; i < 64; i++) {
		unsigned v = 0;
		for (int j = 0; j < 2; j++) {
			int ch = tolower((unsigned char)sig[2 * i + j]);
			if (!isxdigit(ch))
				return gt_error_set(e, GT_ECHECKSUM, -1, -1, "signature is not hex");
			v = v * 16 + (unsigned)(isdigit(ch) ? ch - '0' : ch - 'a' + 10);
		}
		s[i] = (unsigned char)v;
	}
	EVP_PKEY *k;
	int rc = load(pubfile, 0, &k, e);
	if (rc)
		return rc;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) != 1)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: cannot verify", pubfile);
	else if (EVP_DigestVerify(c, s, sizeof s, msg, n) != 1)
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "signature does not verify with %s", pubfile);
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return rc;
}
