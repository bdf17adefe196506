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
#include <openssl/params.h>

/// OPENSSL_free is a macro that passes __FILE__ and __LINE__.
static inline void tandem_openssl_free(void *p) { OPENSSL_free(p); }
/// BIO_new_mem_buf over a read-only buffer (for PEM keys held in memory).
static inline BIO *tandem_bio_from_buffer(const void *data, int length) { return BIO_new_mem_buf(data, length); }
/// The key's algorithm family, as plain ints (EVP_PKEY_EC and EVP_PKEY_RSA are macros of macros).
static inline int tandem_pkey_is_ec(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC; }
static inline int tandem_pkey_is_rsa(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA; }
/// A context for HMAC over `digest` ("SHA1", "SHA256") keyed with `key`, ready for EVP_MAC_update: the
/// template Digest.hmac duplicates per message (fetching "HMAC" and the digest by name, and hashing the key
/// into its pads, once per key instead of once per message as the one-shot HMAC() does). NULL on failure.
static inline EVP_MAC_CTX *tandem_hmac_context(const char *digest, const unsigned char *key, size_t key_length) {
    static const unsigned char empty = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  /* the context holds its own reference */
    if (context == NULL) return NULL;
    OSSL_PARAM params[2] = { OSSL_PARAM_construct_utf8_string("digest", (char *)digest, 0), OSSL_PARAM_construct_end() };
    if (EVP_MAC_init(context, key != NULL ? key : &empty, key_length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
#endif
