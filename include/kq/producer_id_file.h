/* The producer-id floor: <log_dir>/__cluster_metadata-0/producer-id-block,
 * one line holding the lowest producer id this node may still hand out
 * ("<id>\n"). The executor reserves ids in blocks: the end of a block is
 * made durable here (tmp, fsync, rename, fsync dir) before any id in it is
 * handed out, so a restart starts past every id ever issued, whatever the
 * clock does (see src/storage/FORMAT.md). */
#ifndef KQ_PRODUCER_ID_FILE_H
#define KQ_PRODUCER_ID_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "kq/fs.h"

/* *floor_out = the stored floor, or -1 if the file is missing. 0, or -errno
 * with errbuf naming the file (-EINVAL: malformed). */
int kq_producer_id_floor_load(const kq_fs *fs, const char *log_dir, int64_t *floor_out,
                              char *errbuf, size_t errlen);
int kq_producer_id_floor_store(const kq_fs *fs, const char *log_dir, int64_t floor, char *errbuf,
                               size_t errlen);

#endif
