/* Leader epoch cache: (epoch, start offset) of each epoch present in the log,
 * ascending. Answers "where does epoch E end" for divergence checks. */
#include <string.h>

#include "raft_internal.h"

void raft_ec_append(raft_epoch_cache *ec, int32_t epoch, int64_t start_offset)
{
    if (ec->count > 0) {
        const raft_epoch_entry *last = &ec->entries[ec->count - 1];
        if (epoch <= last->epoch || start_offset < last->start_offset)
            return;
        if (start_offset == last->start_offset) { /* empty epoch: replace it */
            ec->entries[ec->count - 1].epoch = epoch;
            return;
        }
    }
    if (ec->count == RAFT_EPOCH_CACHE_MAX) { /* forget the oldest epoch */
        memmove(ec->entries, ec->entries + 1,
                (size_t)(ec->count - 1) * sizeof(ec->entries[0]));
        ec->count--;
    }
    ec->entries[ec->count].epoch = epoch;
    ec->entries[ec->count].start_offset = start_offset;
    ec->count++;
}

void raft_ec_truncate(raft_epoch_cache *ec, int64_t offset)
{
    while (ec->count > 0 && ec->entries[ec->count - 1].start_offset >= offset)
        ec->count--;
}

int32_t raft_ec_last_epoch(const raft_epoch_cache *ec)
{
    return ec->count > 0 ? ec->entries[ec->count - 1].epoch : ec->base_epoch;
}

int32_t raft_ec_epoch_of(const raft_epoch_cache *ec, int64_t offset)
{
    for (int i = ec->count - 1; i >= 0; i--)
        if (ec->entries[i].start_offset <= offset)
            return ec->entries[i].epoch;
    return ec->base_epoch;
}

void raft_ec_end_for(const raft_epoch_cache *ec, int32_t epoch, int64_t log_end,
                     int32_t *found_epoch, int64_t *end_offset)
{
    for (int i = ec->count - 1; i >= 0; i--) {
        if (ec->entries[i].epoch <= epoch) {
            *found_epoch = ec->entries[i].epoch;
            *end_offset = i + 1 < ec->count ? ec->entries[i + 1].start_offset : log_end;
            return;
        }
    }
    if (ec->base_epoch > 0 && ec->base_epoch <= epoch) { /* below the first entry */
        *found_epoch = ec->base_epoch;
        *end_offset = ec->count > 0 ? ec->entries[0].start_offset : log_end;
        return;
    }
    *found_epoch = 0;
    *end_offset = 0;
}
