/*
 * sign.h: Ed25519 signatures (RFC 8032, through OpenSSL's EVP_PKEY_ED25519)
 * for the pointer file models/latest.json, so that a worker can refuse a
 * model that its publisher did not release.
 *
 * What is signed is the whole pointer, every key but "signature" (the
 * network's name, sha256 and bytes, the self-play settings, the sequence
 * number and the time it was published, ...), in one canonical text
 * (gt_sign_pointer_message), not the file's bytes, so re-serialising the
 * JSON does not break a signature:
 *   "gt-latest-v2\n" CANONICAL-JSON "\n"
 * where CANONICAL-JSON is the pointer object without its "signature" key
 * as jansson writes it with JSON_COMPACT | JSON_SORT_KEYS |
 * JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17): keys sorted bytewise, no
 * whitespace, non-ASCII as \uXXXX, integers in decimal, reals as "%.17g"
 * (with ".0" added when that looks like an integer). Nothing a store can
 * change in the pointer, not even a key added, leaves the signature
 * valid. The model itself is covered through its sha256 and size. Keys
 * are PEM files as `openssl genpkey -algorithm ed25519` and `openssl pkey
 * -pubout` write them.
 */
#ifndef GT_SIGN_H
#define GT_SIGN_H
#include <stddef.h>
#include "gt.h"

/* A signature as 128 lowercase hex digits plus NUL. */
#define GT_SIGN_HEX 129

/* gt_sign_pointer_message: the signed text (above) of the pointer file
 * text (len bytes): *msg a new string (caller frees) of *n bytes.
 * Errors: GT_EFORMAT (not JSON, not an object, a key twice), e filled. */
int gt_sign_pointer_message(const char *pointer, size_t len, char **msg, size_t *n,
                            gt_error *e);

/* gt_sign_pointer: the "signature" for the pointer text (len bytes; a
 * "signature" key in it is left out) with the private key in keyfile,
 * into sig. Errors: those of gt_sign_pointer_message and gt_sign. */
int gt_sign_pointer(const char *keyfile, const char *pointer, size_t len, char sig[GT_SIGN_HEX],
                    gt_error *e);

/* gt_sign_pointer_verify: 0 if the pointer text (len bytes) carries a
 * "signature" that verifies with the public key in pubfile over its
 * canonical text. Errors: GT_ECHECKSUM (no signature, or it does not
 * verify), GT_EFORMAT, GT_EIO (the key), e filled. */
int gt_sign_pointer_verify(const char *pubfile, const char *pointer, size_t len, gt_error *e);

/* gt_sign: sign msg (n bytes) with the Ed25519 private key in the PEM file
 * keyfile; sig receives the hex signature. Errors: GT_EIO (cannot read the
 * key), GT_EFORMAT (not an Ed25519 private key), e filled. */
int gt_sign(const char *keyfile, const void *msg, size_t n, char sig[GT_SIGN_HEX],
            gt_error *e);

/* gt_sign_verify: 0 if sig (hex) is a valid signature of msg (n bytes) by
 * the Ed25519 public key in the PEM file pubfile. Errors: GT_ECHECKSUM (bad
 * or malformed signature), GT_EIO, GT_EFORMAT (not an Ed25519 public key). */
int gt_sign_verify(const char *pubfile, const void *msg, size_t n, const char *sig,
                   gt_error *e);

#endif
