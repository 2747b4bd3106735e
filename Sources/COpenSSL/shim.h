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
#include <openssl/cms.h>
#include <openssl/x509_vfy.h>
#include <openssl/objects.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

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
/* Wallet passes (WalletPass's PassSignatureVerifier): a detached CMS SignedData over manifest.json.
   The STACK_OF accessors are macros or inline generics Swift does not import as such. */

/* reservoir_openssl_init leaves the table of digest names empty, and CMS matches a SignerInfo's
   digest algorithm by the NID a fetched digest takes from that table (ossl_cms_DigestAlgorithm_find_ctx);
   without the names CMS_verify fails with CMS_R_NO_MATCHING_DIGEST. A digest fetched before the
   names are added keeps no NID in its library context's cache (DKIM fetches SHA-256 first), so
   passes are read in a library context of their own (reservoir_cms_read), after this has run
   once: a process without passes never adds them. */
static inline int reservoir_openssl_add_cms_digests(void) {
    return EVP_add_digest(EVP_sha1()) && EVP_add_digest(EVP_sha256()) && EVP_add_digest(EVP_sha384())
           && EVP_add_digest(EVP_sha512());
}

/* A DER CMS ContentInfo read into `context`; NULL when it does not parse. */
static inline CMS_ContentInfo *reservoir_cms_read(OSSL_LIB_CTX *context, const unsigned char *der, size_t length) {
    CMS_ContentInfo *cms = CMS_ContentInfo_new_ex(context, NULL);
    if (!cms) return NULL;
    const unsigned char *cursor = der;
    /* On failure the ASN.1 decoder frees *cms and sets it to NULL. */
    if (!d2i_CMS_ContentInfo(&cms, &cursor, (long)length)) {
        CMS_ContentInfo_free(cms);
        return NULL;
    }
    return cms;
}

/* The number of SignerInfos, or -1 when the structure is not SignedData. */
static inline int reservoir_cms_signer_count(CMS_ContentInfo *cms) {
    STACK_OF(CMS_SignerInfo) *infos = CMS_get0_SignerInfos(cms);
    return infos ? sk_CMS_SignerInfo_num(infos) : -1;
}

/* The first signer's signing-time attribute (RFC 5652 §11.3) as seconds since 1970; returns 1
   when present and readable, 0 otherwise. */
static inline int reservoir_cms_signing_time(CMS_ContentInfo *cms, long long *seconds) {
    STACK_OF(CMS_SignerInfo) *infos = CMS_get0_SignerInfos(cms);
    if (!infos || sk_CMS_SignerInfo_num(infos) < 1) return 0;
    CMS_SignerInfo *signer = sk_CMS_SignerInfo_value(infos, 0);
    int index = CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, -1);
    if (index < 0) return 0;
    X509_ATTRIBUTE *attribute = CMS_signed_get_attr(signer, index);
    ASN1_TYPE *value = attribute ? X509_ATTRIBUTE_get0_type(attribute, 0) : NULL;
    if (!value) return 0;
    const ASN1_TIME *time = NULL;
    if (value->type == V_ASN1_UTCTIME) time = value->value.utctime;
    else if (value->type == V_ASN1_GENERALIZEDTIME) time = value->value.generalizedtime;
    if (!time || ASN1_TIME_check(time) != 1) return 0;
    ASN1_TIME *epoch = ASN1_TIME_set(NULL, 0);
    int days = 0, rest = 0;
    int ok = epoch && ASN1_TIME_diff(&days, &rest, epoch, time);
    ASN1_TIME_free(epoch);
    if (!ok) return 0;
    *seconds = (long long)days * 86400 + rest;
    return 1;
}

/* Checks the signature of every SignerInfo over the detached content (with the signed
   attributes' message digest), without checking any certificate; on success the one signer's
   certificate (a new reference) goes to *signer. Returns 1 when valid, 0 when not, -1 when the
   signature names no certificate it carries or more than one signer. */
static inline int reservoir_cms_verify_signature(CMS_ContentInfo *cms, const unsigned char *content, size_t length, X509 **signer) {
    BIO *data = BIO_new_mem_buf(content, (int)length);
    if (!data) return 0;
    int ok = CMS_verify(cms, NULL, NULL, data, NULL, CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY);
    BIO_free(data);
    if (ok != 1) return 0;
    STACK_OF(X509) *signers = CMS_get0_signers(cms);
    int result = -1;
    if (signers && sk_X509_num(signers) == 1) {
        *signer = sk_X509_value(signers, 0);
        X509_up_ref(*signer);
        result = 1;
    }
    sk_X509_free(signers);
    return result;
}

/* Verifies `signer` up to a certificate of `anchors` (any of them, intermediates included:
   X509_V_FLAG_PARTIAL_CHAIN), through the certificates the CMS structure carries, at `at`
   seconds since 1970. Returns X509_V_OK or the X509_V_ERR_* code. */
static inline int reservoir_verify_chain(CMS_ContentInfo *cms, X509 *signer, X509 **anchors, int count, long long at) {
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    STACK_OF(X509) *carried = CMS_get1_certs(cms);
    int result = X509_V_ERR_UNSPECIFIED;
    if (store && context) {
        for (int i = 0; i < count; i++) X509_STORE_add_cert(store, anchors[i]);
        if (X509_STORE_CTX_init(context, store, signer, carried) == 1) {
            X509_STORE_CTX_set_flags(context, X509_V_FLAG_PARTIAL_CHAIN);
            X509_STORE_CTX_set_time(context, 0, (time_t)at);
            result = X509_verify_cert(context) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context);
        }
    }
    sk_X509_pop_free(carried, X509_free);
    X509_STORE_CTX_free(context);
    X509_STORE_free(store);
    return result;
}

/* The text of the one entry of `nid` in a certificate's subject: its length, -1 when absent,
   -2 when the subject holds more than one. */
static inline int reservoir_subject_entry(X509 *certificate, int nid, char *buffer, int size) {
    X509_NAME *name = X509_get_subject_name(certificate);
    int first = X509_NAME_get_index_by_NID(name, nid, -1);
    if (first < 0) return -1;
    if (X509_NAME_get_index_by_NID(name, nid, first) >= 0) return -2;
    return X509_NAME_get_text_by_NID(name, nid, buffer, size);
}

static inline int reservoir_NID_userId(void) { return NID_userId; }
static inline int reservoir_NID_organizationalUnitName(void) { return NID_organizationalUnitName; }
static inline int reservoir_NID_organizationName(void) { return NID_organizationName; }
#endif
