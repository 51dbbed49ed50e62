/* Descriptor mode for the field lists of include/kq/wire_<api>.h, used by
 * src/wire/wire_msgs.c only: after every API header has declared its structs,
 * this file turns the shape macros into descriptor rows, and WIRE_DESC /
 * WIRE_MSG build each API's tables and functions. See include/kq/wire_desc.h
 * for the list form. */
#ifndef KQ_WIRE_DESC_GEN_H
#define KQ_WIRE_DESC_GEN_H

#include <stddef.h>

#include "kq/wire_desc.h"

#undef WF
#undef WA
#undef WAK
#undef WAC
#undef WAKC
#undef WFP
#undef WT
#undef WTP
#undef WH
#undef WHA
#undef WO
#undef WI

#define WIRE_EXT_BOOL(S, N)
#define WIRE_EXT_I8(S, N)
#define WIRE_EXT_I16(S, N)
#define WIRE_EXT_U16(S, N)
#define WIRE_EXT_I32(S, N)
#define WIRE_EXT_I64(S, N)
#define WIRE_EXT_UUID(S, N)
#define WIRE_EXT_STRING(S, N)
#define WIRE_EXT_BYTES(S, N)
#define WIRE_EXT_RECORDS(S, N)
#define WIRE_EXT_RECORDS_EXT(S, N) .ext_off = offsetof(S, N##_external_at),

#define WIRE_FIELD_COMMON(N, VMIN, VMAX) .name = #N, .v_min = (VMIN), .v_max = (VMAX)

#define WF(S, K, N, VMIN, VMAX, ...)                                                   \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_##K, .off = offsetof(S, N),     \
     WIRE_EXT_##K(S, N) __VA_ARGS__},
#define WFP(S, K, N, HAS, VMIN, VMAX, ...)                                             \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_##K, .off = offsetof(S, N),     \
     .has_off1 = offsetof(S, HAS) + 1, WIRE_EXT_##K(S, N) __VA_ARGS__},
#define WA(S, E, N, C, VMIN, VMAX, ...)                                                \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_ARRAY, .off = offsetof(S, N),   \
     .count_off = offsetof(S, C), .sub = &E##_desc, __VA_ARGS__},
#define WAK(S, K, N, C, VMIN, VMAX, ...)                                               \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_ARRAY, .elem = WIRE_K_##K,      \
     .off = offsetof(S, N), .count_off = offsetof(S, C), __VA_ARGS__},
#define WAC(S, E, N, C, VMIN, VMAX, ...) WA(S, E, N, C, VMIN, VMAX, __VA_ARGS__)
#define WAKC(S, K, N, C, VMIN, VMAX, ...) WAK(S, K, N, C, VMIN, VMAX, __VA_ARGS__)
#define WT(S, SUB, N, VMIN, VMAX, ...)                                                 \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_STRUCT, .off = offsetof(S, N),  \
     .sub = &SUB##_desc, __VA_ARGS__},
#define WTP(S, SUB, N, HAS, VMIN, VMAX, ...)                                           \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_STRUCT, .off = offsetof(S, N),  \
     .has_off1 = offsetof(S, HAS) + 1, .sub = &SUB##_desc, __VA_ARGS__},
#define WH(S, K, N)
#define WHA(S, E, N, C)
#define WO(S, LIST) LIST(S)
#define WI(S, N, VMIN, VMAX, ...)                                                      \
    {WIRE_FIELD_COMMON(N, VMIN, VMAX), .kind = WIRE_K_INLINE, .sub = &S##__##N##_desc, \
     __VA_ARGS__},

#define WIRE_DESC_TABLE(DNAME, SNAME, SIZE, LIST, S)                                   \
    static const wire_field DNAME##_fields[] = {LIST(S)};                              \
    static unsigned char DNAME##_defaults[(SIZE) + 1];                                 \
    static const wire_struct_desc DNAME##_desc = {                                     \
        SNAME, SIZE, DNAME##_fields,                                                   \
        (uint32_t)(sizeof DNAME##_fields / sizeof DNAME##_fields[0]), DNAME##_defaults};

/* The descriptor S_desc of struct S from its field list. */
#define WIRE_DESC(S, LIST) WIRE_DESC_TABLE(S, #S, sizeof(S), LIST, S)
/* An inline struct N of S (WI): its fields are S's own (declared by WH). */
#define WIRE_DESC_INLINE(S, LIST, N) WIRE_DESC_TABLE(S##__##N, #N, 0, LIST, S)

/* The message S (a request or response body) of API N, with its versions
 * from WIRE_N_{MIN,MAX,FLEX}_VERSION, and its public S_decode / S_encode. */
#define WIRE_MSG(S, N, RESPONSE)                                                       \
    static const wire_msg_desc S##_msg = {WIRE_API_##N, (RESPONSE), WIRE_##N##_MIN_VERSION, \
                                          WIRE_##N##_MAX_VERSION, WIRE_##N##_FLEX_VERSION, \
                                          &S##_desc};                                  \
    int S##_decode(kq_reader *r, int16_t version, kq_arena *arena, S *out)             \
    {                                                                                  \
        return wire_msg_decode(&S##_msg, r, version, arena, out);                      \
    }                                                                                  \
    void S##_encode(kq_writer *w, int16_t version, const S *in)                        \
    {                                                                                  \
        wire_msg_encode(&S##_msg, w, version, in);                                     \
    }

#endif
