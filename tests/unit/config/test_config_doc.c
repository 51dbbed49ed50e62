/* docs/configuration.md's key table is the one kq-config-doc prints from
 * the key table (src/config/config_keys.def). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_doc.h"

#define DOC_PATH KQ_SOURCE_DIR "/docs/configuration.md"

static char *read_doc(void)
{
    FILE *f = fopen(DOC_PATH, "rb");
    if (!f)
        fail_msg("cannot open %s", DOC_PATH);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void test_doc_table_is_current(void **state)
{
    (void)state;
    char *doc = read_doc();
    char *fresh = kq_config_doc_splice(doc);
    if (!fresh)
        fail_msg("%s lacks the lines \"%s\" and \"%s\"", DOC_PATH, KQ_CONFIG_DOC_BEGIN,
                 KQ_CONFIG_DOC_END);
    bool same = strcmp(doc, fresh) == 0;
    free(doc);
    free(fresh);
    if (!same)
        fail_msg("docs/configuration.md's key table is stale (src/config/config_keys.def "
                 "changed): run build/kq-config-doc --write docs/configuration.md");
}

/* The check can fail: a doc whose table differs is refreshed. */
static void test_splice_replaces_between_markers(void **state)
{
    (void)state;
    const char *doc = "intro\n" KQ_CONFIG_DOC_BEGIN "\n| old |\n" KQ_CONFIG_DOC_END "\nafter\n";
    char *fresh = kq_config_doc_splice(doc);
    char *table = kq_config_doc_table();
    assert_non_null(fresh);
    assert_non_null(table);
    assert_null(strstr(fresh, "| old |"));
    assert_non_null(strstr(fresh, table));
    assert_true(strncmp(fresh, "intro\n" KQ_CONFIG_DOC_BEGIN "\n", 6) == 0);
    assert_non_null(strstr(fresh, KQ_CONFIG_DOC_END "\nafter\n"));
    assert_non_null(strstr(table, "| `quorum.voters` | `controller.quorum.voters` |"));
    assert_null(kq_config_doc_splice("no markers\n"));
    free(fresh);
    free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_table_is_current),
        cmocka_unit_test(test_splice_replaces_between_markers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
