/* meta.properties (kq/meta_properties.h): Kafka's Uuid text form, the
 * parser's acceptances and refusals, Kafka's rendering, and the file
 * through the fs seam (absent = unformatted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "kq/meta_properties.h"
#include "storage_test_util.h"

/* Written by Kafka 4.4.0's kafka-storage.sh format --standalone. */
static const char kafka_file[] = "#\n#Sun Dec 06 16:21:08 UTC 2026\nnode.id=1\n"
                                 "directory.id=odjLsyIyQlO4Dq3ocza90g\nversion=1\n"
                                 "cluster.id=v7pJiDWTS3C2v5KlhIpgbA\n";
static const uint8_t kafka_dir_id[16] = {0xa1, 0xd8, 0xcb, 0xb3, 0x22, 0x32, 0x42, 0x53,
                                         0xb8, 0x0e, 0xad, 0xe8, 0x73, 0x36, 0xbd, 0xd2};

static void test_uuid_text(void **state)
{
    (void)state;
    kq_uuid u;
    assert_int_equal(kq_uuid_from_string("odjLsyIyQlO4Dq3ocza90g", 22, &u), 0);
    assert_memory_equal(u.bytes, kafka_dir_id, 16);
    char s[23];
    kq_uuid_to_string(&u, s, sizeof s);
    assert_string_equal(s, "odjLsyIyQlO4Dq3ocza90g");
    kq_uuid zero = {{0}};
    kq_uuid_to_string(&zero, s, sizeof s);
    assert_string_equal(s, "AAAAAAAAAAAAAAAAAAAAAA");
    assert_int_equal(kq_uuid_from_string("odjLsyIyQlO4Dq3ocza90", 21, &u), -EINVAL);
    assert_int_equal(kq_uuid_from_string("odjLsyIyQlO4Dq3ocza90g=", 23, &u), -EINVAL);
    assert_int_equal(kq_uuid_from_string("odjLsyIyQlO4Dq3ocza9+g", 22, &u), -EINVAL);
    /* Non-canonical: the last character carries bits beyond the 16 bytes. */
    assert_int_equal(kq_uuid_from_string("odjLsyIyQlO4Dq3ocza90h", 22, &u), -EINVAL);
}

static void test_uuid_reserved_and_random(void **state)
{
    (void)state;
    kq_uuid u = {{0}};
    assert_true(kq_uuid_reserved_directory(&u));
    u.bytes[15] = 99;
    assert_true(kq_uuid_reserved_directory(&u));
    u.bytes[15] = 100;
    assert_false(kq_uuid_reserved_directory(&u));
    u.bytes[15] = 0;
    u.bytes[7] = 1;
    assert_false(kq_uuid_reserved_directory(&u));
    for (int i = 0; i < 200; i++) {
        kq_uuid a, b;
        assert_int_equal(kq_uuid_random(&a), 0);
        assert_int_equal(kq_uuid_random(&b), 0);
        assert_memory_not_equal(a.bytes, b.bytes, 16);
        assert_int_equal(a.bytes[6] >> 4, 4);
        assert_int_equal(a.bytes[8] >> 6, 2);
        char s[23];
        kq_uuid_to_string(&a, s, sizeof s);
        assert_true(s[0] != '-');
        assert_false(kq_uuid_reserved_directory(&a));
    }
}

static void test_parse_kafka_file(void **state)
{
    (void)state;
    kq_meta_properties m;
    char err[128];
    assert_int_equal(kq_meta_properties_parse(kafka_file, strlen(kafka_file), &m, err, sizeof err),
                     0);
    assert_int_equal(m.node_id, 1);
    assert_string_equal(m.cluster_id, "v7pJiDWTS3C2v5KlhIpgbA");
    assert_true(m.has_directory_id);
    assert_memory_equal(m.directory_id.bytes, kafka_dir_id, 16);
    /* Rendered back with the same date: byte for byte Kafka's file. */
    char out[512];
    int n = kq_meta_properties_render(&m, "Sun Dec 06 16:21:08 UTC 2026", out, sizeof out);
    assert_int_equal(n, (int)strlen(kafka_file));
    assert_memory_equal(out, kafka_file, strlen(kafka_file));
    assert_int_equal(kq_meta_properties_render(&m, "x", out, 20), -ENOSPC);
}

static void test_parse_variants(void **state)
{
    (void)state;
    kq_meta_properties m;
    char err[128];
    const char *ok = "! comment\r\n  version : 1\r\ncluster.id=kq-raft-test-cluster\r\n"
                     "node.id=7\r\nother.key=whatever\r\n\n";
    assert_int_equal(kq_meta_properties_parse(ok, strlen(ok), &m, err, sizeof err), 0);
    assert_int_equal(m.node_id, 7);
    assert_string_equal(m.cluster_id, "kq-raft-test-cluster");
    assert_false(m.has_directory_id);
}

static void refused(const char *text, const char *want)
{
    kq_meta_properties m;
    char err[128] = "";
    assert_int_equal(kq_meta_properties_parse(text, strlen(text), &m, err, sizeof err), -EINVAL);
    if (!strstr(err, want))
        fail_msg("'%s': got '%s', want '%s'", text, err, want);
}

static void test_parse_refusals(void **state)
{
    (void)state;
    refused("node.id=1\ncluster.id=c\n", "version: missing");
    refused("version=0\nbroker.id=1\ncluster.id=c\n", "version: only version 1");
    refused("version=1\ncluster.id=c\n", "node.id: missing");
    refused("version=1\nnode.id=1\n", "cluster.id: missing");
    refused("version=1\nnode.id=-1\ncluster.id=c\n", "node.id: not");
    refused("version=1\nnode.id=2147483648\ncluster.id=c\n", "node.id: not");
    refused("version=1\nnode.id=1\ncluster.id=\n", "cluster.id: empty");
    refused("version=1\nnode.id=1\ncluster.id=c\ndirectory.id=abc\n", "directory.id: not a Uuid");
    refused("version=1\nnode.id=1\ncluster.id=a\\u0041\n", "escapes");
    refused("version=1\nnode.id\ncluster.id=c\n", "no '='");
}

static void test_file_roundtrip(void **state)
{
    tu_fixture *f = *state;
    const kq_fs *fs = kq_fs_posix();
    kq_meta_properties m, back;
    char err[256];
    assert_int_equal(kq_meta_properties_load(fs, f->dir, &back, err, sizeof err), 0);
    assert_int_equal(kq_meta_properties_parse(kafka_file, strlen(kafka_file), &m, err, sizeof err),
                     0);
    assert_int_equal(kq_meta_properties_store(fs, f->dir, &m, "D", err, sizeof err), 0);
    assert_int_equal(kq_meta_properties_load(fs, f->dir, &back, err, sizeof err), 1);
    assert_memory_equal(&back, &m, sizeof m);
    char p[128];
    snprintf(p, sizeof p, "%s/meta.properties", f->dir);
    FILE *fp = fopen(p, "w");
    fputs("version=1\nnode.id=x\n", fp);
    fclose(fp);
    assert_int_equal(kq_meta_properties_load(fs, f->dir, &back, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "meta.properties: node.id"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uuid_text),
        cmocka_unit_test(test_uuid_reserved_and_random),
        cmocka_unit_test(test_parse_kafka_file),
        cmocka_unit_test(test_parse_variants),
        cmocka_unit_test(test_parse_refusals),
        cmocka_unit_test_setup_teardown(test_file_roundtrip, tu_setup, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
