/* sign.c: Ed25519 signatures of pointer files through OpenSSL. */
#include "sign.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flags of the canonical text (sign.h). */
#define CANON (JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17))
#define PREFIX "gt-latest-v2\n"

/* parse: the pointer text as a JSON object (new reference), keys unique */
static json_t *parse(const char *pointer, size_t len, gt_error *e)
{
	json_error_t je;
	json_t *j = json_loadb(pointer, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		gt_error_set(e, GT_EFORMAT, je.line, je.position, "pointer: %s", je.text);
	else if (!json_is_object(j)) {
		json_decref(j);
		j = NULL;
		gt_error_set(e, GT_EFORMAT, 1, 0, "pointer: not a JSON object");
	}
	return j;
}

/* message: the canonical text of the object j, "signature" left out */
static char *message(json_t *j, size_t *n)
{
	json_t *c = json_copy(j);
	json_object_del(c, "signature");
	char *body = json_dumps(c, CANON);
	json_decref(c);
	if (!body)
		gt_xmalloc((size_t)-1);
	size_t bl = strlen(body), pl = strlen(PREFIX);
	char *m = gt_xmalloc(pl + bl + 2);
	memcpy(m, PREFIX, pl);
	memcpy(m + pl, body, bl);
	m[pl + bl] = '\n';
	m[pl + bl + 1] = 0;
	free(body);
	*n = pl + bl + 1;
	return m;
}

int gt_sign_pointer_message(const char *pointer, size_t len, char **msg, size_t *n, gt_error *e)
{
	json_t *j = parse(pointer, len, e);
	*msg = NULL;
	*n = 0;
	if (!j)
		return GT_EFORMAT;
	*msg = message(j, n);
	json_decref(j);
	return 0;
}

int gt_sign_pointer(const char *keyfile, const char *pointer, size_t len, char sig[GT_SIGN_HEX],
                    gt_error *e)
{
	char *m;
	size_t n;
	int rc = gt_sign_pointer_message(pointer, len, &m, &n, e);
	if (!rc)
		rc = gt_sign(keyfile, m, n, sig, e);
	free(m);
	return rc;
}

int gt_sign_pointer_verify(const char *pubfile, const char *pointer, size_t len, gt_error *e)
{
	json_t *j = parse(pointer, len, e);
	if (!j)
		return GT_EFORMAT;
	const char *sig = json_string_value(json_object_get(j, "signature"));
	int rc;
	if (!sig) {
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "not signed");
	} else {
		size_t n;
		char *m = message(j, &n);
		rc = gt_sign_verify(pubfile, m, n, sig, e);
		free(m);
	}
	json_decref(j);
	return rc;
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
