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

/* EVP_MD_CTX_size and friends are macros in OpenSSL 3; Swift cannot call macros. */
static inline int reservoir_EVP_PKEY_bits(const EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }
static inline int reservoir_EVP_PKEY_id(const EVP_PKEY *key) { return EVP_PKEY_get_id(key); }
/* EVP_PKEY_ED25519 and EVP_PKEY_RSA are macros over NIDs. */
static inline int reservoir_EVP_PKEY_ED25519(void) { return EVP_PKEY_ED25519; }
static inline int reservoir_EVP_PKEY_RSA(void) { return EVP_PKEY_RSA; }
#endif
