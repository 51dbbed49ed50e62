/* The peer's identity after the handshake: its certificate's subject DN as
 * Kafka sees it and its SAN DNS names.
 *
 * Kafka maps X500Principal.getName(), the RFC 2253 form. OpenSSL's
 * XN_FLAG_RFC2253 prints the same order (most specific RDN first), the same
 * ',' and '+' separators and RFC 2253 escaping of ,+"\<>; and of a leading #
 * or space / trailing space; we drop its escaping of non-ASCII bytes so that
 * UTF-8 text stays as Java prints it. Differences left: attribute types
 * outside Java's keyword list (CN C L ST O OU STREET DC UID) are printed by
 * OpenSSL with their short name (emailAddress=, serialNumber=), where Java
 * prints the dotted OID and the value as #hex DER; control characters are
 * escaped as \XX by OpenSSL. */
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <string.h>

#include "tls_internal.h"

static bool print_subject(X509 *cert, char *dst, size_t cap)
{
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio)
        return false;
    unsigned long flags = XN_FLAG_RFC2253 & ~(unsigned long)ASN1_STRFLGS_ESC_MSB;
    bool ok = X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, flags) >= 0;
    char *text = NULL;
    long len = BIO_get_mem_data(bio, &text);
    ok = ok && len >= 0 && (size_t)len < cap && !memchr(text, '\0', (size_t)len);
    if (ok) {
        memcpy(dst, text, (size_t)len);
        dst[len] = '\0';
    }
    BIO_free(bio);
    return ok;
}

static void collect_dns_names(X509 *cert, kq_tls_peer_identity *out)
{
    GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        if (name->type != GEN_DNS)
            continue;
        const unsigned char *data = ASN1_STRING_get0_data(name->d.dNSName);
        int len = ASN1_STRING_length(name->d.dNSName);
        /* A NUL inside a name would make it read as a shorter one. */
        if (out->dns_count == KQ_TLS_SAN_DNS_MAX || len <= 0 || !data ||
            (size_t)len >= KQ_TLS_DNS_NAME_BYTES_MAX || memchr(data, '\0', (size_t)len)) {
            out->dns_skipped++;
            continue;
        }
        memcpy(out->dns[out->dns_count], data, (size_t)len);
        out->dns[out->dns_count][len] = '\0';
        out->dns_count++;
    }
    GENERAL_NAMES_free(names);
}

bool kq_tls_conn_peer_identity(const kq_tls_conn *conn, kq_tls_peer_identity *out)
{
    memset(out, 0, sizeof *out);
    if (!conn->handshake_done || conn->failed)
        return false;
    X509 *cert = SSL_get0_peer_certificate(conn->ssl);
    if (!cert)
        return true;
    out->has_certificate = true;
    collect_dns_names(cert, out);
    ERR_clear_error();
    if (!print_subject(cert, out->subject, sizeof out->subject)) {
        out->subject[0] = '\0';
        return false;
    }
    return true;
}
