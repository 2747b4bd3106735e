#ifndef RESERVOIR_COPENSSL_SHIM_H
#define RESERVOIR_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/decoder.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/asn1.h>
#include <openssl/crypto.h>

/* EVP_MD_CTX_size and friends are macros in OpenSSL 3; Swift cannot call macros. */
static inline int reservoir_EVP_PKEY_bits(const EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }
static inline int reservoir_EVP_PKEY_id(const EVP_PKEY *key) { return EVP_PKEY_get_id(key); }
/* EVP_PKEY_ED25519 and EVP_PKEY_RSA are macros over NIDs. */
static inline int reservoir_EVP_PKEY_ED25519(void) { return EVP_PKEY_ED25519; }
static inline int reservoir_EVP_PKEY_RSA(void) { return EVP_PKEY_RSA; }

/* Called once before any other OpenSSL function (DKIM's OpenSSLLibrary). Reservoir applies its
   own algorithm rules (RFC 8301, RFC 8463) in code, so the system openssl.cnf is not read; error
   strings are never printed, and algorithms are named directly (EVP_sha256), so the tables of
   every cipher and digest name are not built. Together these took about 0.6 ms of each filter
   run. Nor does OpenSSL free its tables at exit (OPENSSL_INIT_NO_ATEXIT): the process is ending. */
static inline int reservoir_openssl_init(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS
                               | OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS
                               | OPENSSL_INIT_NO_ATEXIT, NULL);
}

/* An RSA public key from its modulus and public exponent (unsigned big-endian bytes), through the
   provider's key management (EVP_PKEY_fromdata) rather than the DER decoder framework, whose
   set-up cost more than the verification itself for one key. NULL on failure. */
static inline EVP_PKEY *reservoir_rsa_public_key(const unsigned char *n, size_t n_length,
                                                 const unsigned char *e, size_t e_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = NULL;
    if (modulus && exponent && builder
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus)
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent)
        && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && (context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) != NULL
        && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(exponent);
    BN_free(modulus);
    return key;
}
#endif
