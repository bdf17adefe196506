// libcrypto (OpenSSL 3): HMAC, digests, EC/RSA signing, random bytes. Macros Swift cannot import are wrapped.
#ifndef TANDEM_CCRYPTO_SHIM_H
#define TANDEM_CCRYPTO_SHIM_H
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>

/// OPENSSL_free is a macro that passes __FILE__ and __LINE__.
static inline void tandem_openssl_free(void *p) { OPENSSL_free(p); }
/// BIO_new_mem_buf over a read-only buffer (for PEM keys held in memory).
static inline BIO *tandem_bio_from_buffer(const void *data, int length) { return BIO_new_mem_buf(data, length); }
/// The key's algorithm family, as plain ints (EVP_PKEY_EC and EVP_PKEY_RSA are macros of macros).
static inline int tandem_pkey_is_ec(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC; }
static inline int tandem_pkey_is_rsa(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA; }
#endif
