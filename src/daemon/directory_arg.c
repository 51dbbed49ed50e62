/* See directory_arg.h. */
#include "directory_arg.h"

#include <stdio.h>
#include <string.h>

#include "kq/fs.h"
#include "kq/meta_properties.h"
#include "kq/quorum_state_file.h"
#include "kq/raft.h"
#include "kq/uuid.h"

bool directory_arg_parse(const char *text, kq_uuid *out, char *err, size_t errlen)
{
    size_t len = strlen(text);
    if (len != KQ_UUID_TEXT_BYTES || kq_uuid_from_string(text, len, out) != 0) {
        snprintf(err, errlen, "--replica-directory-id %s: not a Uuid (%d base64url characters "
                 "without padding, as kafka-storage.sh random-uuid prints)", text,
                 KQ_UUID_TEXT_BYTES);
        return false;
    }
    if (kq_uuid_is_zero(out) || kq_uuid_reserved_directory(out)) {
        snprintf(err, errlen, "--replica-directory-id %s: %s", text,
                 kq_uuid_is_zero(out) ? "the zero Uuid names no directory"
                                      : "Kafka reserves this id (its least significant long is "
                                        "below 100) for unassigned, lost or migrating "
                                        "directories");
        return false;
    }
    return true;
}

static bool agrees(const kq_uuid *given, const kq_uuid *have, const char *where,
                   char *err, size_t errlen)
{
    if (memcmp(given->bytes, have->bytes, sizeof given->bytes) == 0)
        return true;
    char g[KQ_UUID_TEXT_BYTES + 1], h[KQ_UUID_TEXT_BYTES + 1];
    kq_uuid_to_string(given, g, sizeof g);
    kq_uuid_to_string(have, h, sizeof h);
    snprintf(err, errlen, "refusing to start: --replica-directory-id is %s but %s gives this "
             "directory the id %s (a directory keeps its id: give that one, or an empty "
             "directory)", g, where, h);
    return false;
}

bool directory_arg_check(const kq_config *c, char *err, size_t errlen)
{
    if (kq_uuid_is_zero(&c->cli_directory_id))
        return true;
    char why[512], where[4200];
    kq_meta_properties m;
    if (kq_meta_properties_load(kq_fs_posix(), c->log_dir, &m, why, sizeof why) == 1 &&
        m.has_directory_id) {
        snprintf(where, sizeof where, "%s/" KQ_META_PROPERTIES_NAME, c->log_dir);
        return agrees(&c->cli_directory_id, &m.directory_id, where, err, errlen);
    }
    static raft_quorum_state qs;
    int32_t voters[RAFT_VOTERS_MAX];
    int count = RAFT_VOTERS_MAX;
    memset(&qs, 0, sizeof qs);
    if (kq_quorum_state_load_fs(kq_fs_posix(), c->log_dir, &qs, voters, &count, why,
                                sizeof why) != 0)
        return true; /* the executor refuses the file with its own reason */
    if (kq_uuid_is_zero(&qs.directory_id))
        return true;
    snprintf(where, sizeof where, "the quorum-state file in %s", c->log_dir);
    return agrees(&c->cli_directory_id, &qs.directory_id, where, err, errlen);
}
