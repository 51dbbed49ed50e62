/* Private helpers shared by the classic consumer-group codecs (JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup): their non-nullable bytes fields, which
 * Kafka refuses null on the wire and which we write as empty when given
 * null. Same sticky-error convention as wire_codec.h. */
#ifndef KQ_WIRE_GROUP_CODEC_H
#define KQ_WIRE_GROUP_CODEC_H

#include "wire_codec.h"

static inline kq_slice wire_group_read_bytes(kq_reader *r, bool flex)
{
    kq_slice s = wire_read_nullable_bytes(r, flex);
    if (!r->error && s.len < 0)
        kq_reader_fail(r);
    if (s.len < 0 || s.ptr == NULL)
        s = (kq_slice){(const uint8_t *)"", 0};
    return s;
}

static inline void wire_group_write_bytes(kq_writer *w, bool flex, kq_slice s)
{
    if (wire_slice_is_null(s))
        s = (kq_slice){(const uint8_t *)"", 0};
    wire_write_nullable_bytes(w, flex, s);
}

#endif
