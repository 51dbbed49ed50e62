/* Replica identity, in Kafka's format (KIP-853): <log.dirs>/meta.properties,
 * a Java properties file with version=1, cluster.id, node.id and
 * directory.id, written by the format tool (kq-storage, Kafka's
 * kafka-storage.sh format) and checked at start. A directory without the
 * file is the seed's unformatted mode and keeps working
 * (src/storage/FORMAT.md). */
#ifndef KQ_META_PROPERTIES_H
#define KQ_META_PROPERTIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/fs.h"
#include "kq/limits.h"
#include "kq/uuid.h"

#define KQ_META_PROPERTIES_NAME "meta.properties"

typedef struct kq_meta_properties {
    int32_t node_id;
    char cluster_id[KQ_CLUSTER_ID_BYTES_MAX + 1];
    bool has_directory_id;
    kq_uuid directory_id;
} kq_meta_properties;

/* Parses the file's text (Java properties: '#'/'!' comments, key=value or
 * key:value; escapes are refused). Needs version=1, node.id, cluster.id;
 * directory.id optional; other keys are ignored, as Kafka does. 0, or
 * -EINVAL with err naming the key and the reason. */
int kq_meta_properties_parse(const char *text, size_t len, kq_meta_properties *out, char *err,
                             size_t errlen);
/* Kafka's layout: "#\n#<date>\n" then node.id, directory.id, version,
 * cluster.id (the order Java's Properties.store gives these keys). Returns
 * the length, or -ENOSPC. date is the comment's text (Kafka: Date.toString). */
int kq_meta_properties_render(const kq_meta_properties *m, const char *date, char *out,
                              size_t out_len);

/* Reads <dir>/meta.properties. 1 when read, 0 when absent (unformatted),
 * -errno with err naming the file otherwise. */
int kq_meta_properties_load(const kq_fs *fs, const char *dir, kq_meta_properties *out,
                            char *err, size_t errlen);
/* Writes it atomically (tmp, fdatasync, rename, fsync dir). 0 or -errno. */
int kq_meta_properties_store(const kq_fs *fs, const char *dir, const kq_meta_properties *m,
                             const char *date, char *err, size_t errlen);

#endif
