/*
 * sign.h: Ed25519 signatures (RFC 8032, through OpenSSL's EVP_PKEY_ED25519)
 * for the pointer file models/latest.json, so that a worker can refuse a
 * model that its publisher did not release.
 *
 * What is signed is the pointer's security-relevant fields in one fixed
 * text (gt_sign_pointer_message), not the JSON bytes, so re-serialising
 * the JSON does not break a signature:
 *   "gt-latest-v1\nname=<name>\nsha256=<64 hex>\nbytes=<decimal>\n"
 * The model itself is covered through its sha256 and size. Keys are PEM
 * files as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
 * write them.
 */
#ifndef GT_SIGN_H
#define GT_SIGN_H
#include <stddef.h>
#include "gt.h"

/* A signature as 128 lowercase hex digits plus NUL. */
#define GT_SIGN_HEX 129

/* gt_sign_pointer_message: write the signed text for a pointer into buf of
 * size bytes; returns its length, or GT_EINVAL if it does not fit or the
 * fields are unusable (name with a newline, sha256 not 64 characters,
 * bytes < 0). */
int gt_sign_pointer_message(const char *name, const char *sha256, long long bytes,
                            char *buf, size_t size);

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
