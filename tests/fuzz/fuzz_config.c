/* Fuzz target: the properties-file parser (include/kq/config.h). Input: the
 * file's bytes, written to a scratch file and loaded with warnings
 * discarded. Properties: a loaded config has a node id, a listener port and
 * at least one voter, and every string field is terminated; a refusal names
 * the file. */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "kq/config.h"

#define ERR_BYTES 1024
#define FILE_NAME "fuzz.properties"

static bool terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static void check_loaded(const kq_config *c)
{
    FUZZ_CHECK(c->voter_count >= 1 && c->voter_count <= KQ_CONFIG_VOTERS_MAX,
               "a loaded config has voters within the bound");
    FUZZ_CHECK(terminated(c->listener_host, sizeof c->listener_host) &&
                   terminated(c->log_dir, sizeof c->log_dir) &&
                   terminated(c->cluster_id, sizeof c->cluster_id) &&
                   terminated(c->path, sizeof c->path),
               "string fields are terminated");
    for (int i = 0; i < c->voter_count; i++)
        FUZZ_CHECK(terminated(c->voters[i].host, sizeof c->voters[i].host),
                   "voter hosts are terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_FILE_INPUT_BYTES_MAX)
        return 0;
    const char *dir = fuzz_scratch_dir();
    FUZZ_CHECK(dir != NULL, "a scratch directory");
    FUZZ_CHECK(fuzz_write_file(dir, FILE_NAME, data, size) == 0, "write the file");
    char path[FUZZ_PATH_BYTES_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, FILE_NAME);
    static kq_config c;
    char err[ERR_BYTES];
    err[0] = '\0';
    if (kq_config_load_warn(path, &c, err, sizeof err, NULL) == 0)
        check_loaded(&c);
    else
        FUZZ_CHECK(strstr(err, FILE_NAME) != NULL, "a refusal names the file");
    return 0;
}
