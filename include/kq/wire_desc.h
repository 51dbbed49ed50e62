/* One description per wire message (issue 21). Each API's fields are listed
 * once, as X-macro lists in include/kq/wire_<api>.h:
 *
 *   #define WIRE_VOTE_PARTITION(S)                                  \
 *       WF(S, I32, partition_index, 0, WL)                          \
 *       WF(S, UUID, voter_directory_id, 1, WL)                      \
 *       WF(S, BOOL, pre_vote, 2, WL)
 *   ...
 *   #define WIRE_VOTE_STRUCTS(D, DI)                                \
 *       D(wire_vote_partition, WIRE_VOTE_PARTITION) ...             \
 *       D(wire_vote_request, WIRE_VOTE_REQUEST) ...
 *   WIRE_DECLARE_STRUCTS(WIRE_VOTE_STRUCTS)
 *   WIRE_API_FUNCS(wire_vote)
 *
 * with the versions in WIRE_VOTE_{MIN,MAX,FLEX}_VERSION and a row in
 * include/kq/wire_apis.h. From the lists come the C structs (here), and the
 * descriptor tables and the four functions (src/wire/wire_msgs.c), which the
 * one table-driven codec (src/wire/wire_desc.c) reads, writes, fills with
 * random values and
 * prints. A field line names the struct S, a kind, the C name and the first
 * and last version the field exists in (WL: every later version), then
 * optional attributes:
 *   WIRE_NULLABLE(v)   nullable from version v (strings, bytes, arrays)
 *   WIRE_TAG(t, v)     tagged field t from version v (Kafka's taggedVersions)
 *   WIRE_DEFAULT(x)    integer/bool default (Kafka's "default"), else 0
 *   WIRE_DEFAULT_EMPTY strings: "" rather than null when absent
 *   WIRE_KNAME("x")    Kafka's field name in snake_case, when the C name
 *                      differs (the differential test compares by it)
 * Field shapes:
 *   WF(S, K, name, vmin, vmax, ...)            a value of kind K
 *   WA(S, ELEM, name, count, vmin, vmax, ...)  array of struct ELEM
 *   WAK(S, K, name, count, vmin, vmax, ...)    array of kind K (I32, I64, STRING)
 *   WAC(...), WAKC(...)                        the same, the C member a pointer to
 *                                              const (users point it at read-only
 *                                              elements; decoders still fill it)
 *   WT(S, SUB, name, vmin, vmax, ...)          a struct SUB held by value
 *   WTP(S, SUB, name, has, vmin, vmax, ...)    the same with a presence flag
 *                                              (tagged: set when on the wire;
 *                                              written only when set; untagged
 *                                              with WIRE_NULLABLE: a nullable
 *                                              struct, the byte -1 for null
 *                                              (flag false), else 1 and the
 *                                              struct, as Kafka writes it)
 *   WFP(S, K, name, has, vmin, vmax, ...)      a tagged value with a presence flag,
 *                                              like WTP: for a default other than
 *                                              zero, so that a zeroed struct
 *                                              leaves the tag off the wire
 *   WH(S, K, name)                             declared here, on the wire only
 *                                              inside an inline struct (WI) or
 *                                              where a WO list puts it
 *   WHA(S, ELEM, name, count)                  the same for an array of ELEM
 *   WO(S, LIST)                                the wire order of fields that
 *                                              WH/WHA declared: LIST's lines
 *   WI(S, name, vmin, vmax, ...)               a wire struct whose fields live
 *                                              in S itself (Fetch's ReplicaState),
 *                                              described by WIRE_DESC_INLINE
 * A struct whose C order differs from its wire order (kept for positional
 * initializers) declares its fields by WH/WHA lines in C order, then gives
 * their full field lines, in wire order, as one WO line (see
 * wire_find_coordinator.h).
 * Kinds: BOOL I8 I16 U16 I32 I64 UUID STRING BYTES RECORDS, and RECORDS_EXT
 * (records that a streamed answer leaves out: see wire_fetch.h).
 * Decoders borrow strings, bytes and records from the input and take arrays
 * from the arena; fields absent in a version get their default. Encoders
 * skip fields absent in a version and write a tagged field only when it
 * differs from its default (Kafka's rule). */
#ifndef KQ_WIRE_DESC_H
#define KQ_WIRE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"

#define WL INT16_MAX /* "and every later version" */

typedef enum wire_kind {
    WIRE_K_BOOL = 1,
    WIRE_K_I8,
    WIRE_K_I16,
    WIRE_K_U16,
    WIRE_K_I32,
    WIRE_K_I64,
    WIRE_K_UUID,
    WIRE_K_STRING,
    WIRE_K_BYTES,
    WIRE_K_RECORDS,
    WIRE_K_RECORDS_EXT,
    WIRE_K_STRUCT, /* WT / WTP */
    WIRE_K_INLINE, /* WI */
    WIRE_K_ARRAY,  /* WA / WAK */
} wire_kind;

struct wire_struct_desc;

/* One field. Zero means "off" for every optional attribute, so that a line
 * names only what it needs; the +1 encodings below keep that true. */
typedef struct wire_field {
    const char *name;  /* C name */
    const char *kname; /* Kafka's snake_case name if different, else NULL */
    uint8_t kind;      /* wire_kind */
    uint8_t elem;      /* WAK: element kind */
    bool default_empty;
    int16_t v_min, v_max;
    int16_t nullable_from1; /* first nullable version + 1; 0: never */
    int32_t tag1;           /* tag + 1; 0: not tagged */
    int16_t tag_from;       /* first version the tag exists in */
    uint32_t off;           /* value (or array pointer) offset in the struct */
    uint32_t count_off;     /* arrays: int32_t count */
    uint32_t has_off1;      /* WTP, WFP: bool presence offset + 1 */
    uint32_t ext_off;       /* RECORDS_EXT: size_t * offset */
    int64_t def;
    const struct wire_struct_desc *sub; /* WA, WT, WTP, WI */
} wire_field;

typedef struct wire_struct_desc {
    const char *name;
    size_t size;
    const wire_field *fields;
    uint32_t field_count;
    /* The struct with every field at its default, filled once before main
     * (wire_msgs.c); decoding starts from a copy of it. */
    unsigned char *defaults;
} wire_struct_desc;

/* One message: an API's request or response body. */
typedef struct wire_msg_desc {
    int16_t api_key;
    bool response;
    int16_t v_min, v_max;
    int16_t flex_from; /* first flexible version; INT16_MAX: never */
    const wire_struct_desc *body;
} wire_msg_desc;

/* ---- attributes ---- */
#define WIRE_NULLABLE(v) .nullable_from1 = (int16_t)((v) + 1)
#define WIRE_TAG(t, v) .tag1 = (t) + 1, .tag_from = (v)
#define WIRE_DEFAULT(x) .def = (x)
#define WIRE_DEFAULT_EMPTY .default_empty = true
#define WIRE_KNAME(x) .kname = (x)

/* ---- the C struct from a field list ---- */
#define WIRE_CT_BOOL bool
#define WIRE_CT_I8 int8_t
#define WIRE_CT_I16 int16_t
#define WIRE_CT_U16 uint16_t
#define WIRE_CT_I32 int32_t
#define WIRE_CT_I64 int64_t
#define WIRE_CT_UUID kq_uuid
#define WIRE_CT_STRING kq_slice
#define WIRE_CT_BYTES kq_slice
#define WIRE_CT_RECORDS kq_slice
#define WIRE_DECL_RECORDS_EXT(N) kq_slice N; size_t *N##_external_at;
#define WIRE_DECL_ONE(K, N) WIRE_CT_##K N;
#define WIRE_DECL(K, N) WIRE_DECL_SEL_##K(K, N)
#define WIRE_DECL_SEL_BOOL WIRE_DECL_ONE
#define WIRE_DECL_SEL_I8 WIRE_DECL_ONE
#define WIRE_DECL_SEL_I16 WIRE_DECL_ONE
#define WIRE_DECL_SEL_U16 WIRE_DECL_ONE
#define WIRE_DECL_SEL_I32 WIRE_DECL_ONE
#define WIRE_DECL_SEL_I64 WIRE_DECL_ONE
#define WIRE_DECL_SEL_UUID WIRE_DECL_ONE
#define WIRE_DECL_SEL_STRING WIRE_DECL_ONE
#define WIRE_DECL_SEL_BYTES WIRE_DECL_ONE
#define WIRE_DECL_SEL_RECORDS WIRE_DECL_ONE
#define WIRE_DECL_SEL_RECORDS_EXT(K, N) WIRE_DECL_RECORDS_EXT(N)

/* Declaration mode (the default): src/wire/wire_desc_gen.h redefines these
 * to build descriptors. */
#define WF(S, K, N, VMIN, VMAX, ...) WIRE_DECL(K, N)
#define WA(S, E, N, C, VMIN, VMAX, ...) E *N; int32_t C;
#define WAK(S, K, N, C, VMIN, VMAX, ...) WIRE_CT_##K *N; int32_t C;
#define WAC(S, E, N, C, VMIN, VMAX, ...) const E *N; int32_t C;
#define WAKC(S, K, N, C, VMIN, VMAX, ...) const WIRE_CT_##K *N; int32_t C;
#define WFP(S, K, N, HAS, VMIN, VMAX, ...) bool HAS; WIRE_DECL(K, N)
#define WT(S, SUB, N, VMIN, VMAX, ...) SUB N;
#define WTP(S, SUB, N, HAS, VMIN, VMAX, ...) bool HAS; SUB N;
#define WH(S, K, N) WIRE_DECL(K, N)
#define WHA(S, E, N, C) E *N; int32_t C;
#define WO(S, LIST)
#define WI(S, N, VMIN, VMAX, ...)

#define WIRE_STRUCT(S, LIST)                 \
    typedef struct S {                       \
        LIST(S)                              \
    } S;

/* An API's list of structs, inner first: STRUCTS(D, DI) names each struct
 * and its field list as D(S, LIST), and each inline struct as
 * DI(S, LIST, name). Declared here, described in src/wire/wire_msgs.c. */
#define WIRE_NO_INLINE(S, LIST, N)
#define WIRE_DECLARE_STRUCTS(STRUCTS) STRUCTS(WIRE_STRUCT, WIRE_NO_INLINE)

/* The four functions of API P (P_request_decode, P_request_encode,
 * P_response_decode, P_response_encode): decoders parse the body after the
 * header and return 0, or -1 on malformed or truncated input or a version
 * outside the description; encoders set w->error for such a version. */
#define WIRE_API_FUNCS(P)                                                                 \
    int P##_request_decode(kq_reader *r, int16_t version, kq_arena *arena,             \
                           P##_request *out);                                          \
    void P##_request_encode(kq_writer *w, int16_t version, const P##_request *in);     \
    int P##_response_decode(kq_reader *r, int16_t version, kq_arena *arena,            \
                            P##_response *out);                                        \
    void P##_response_encode(kq_writer *w, int16_t version, const P##_response *in);

/* ---- the one codec ---- */

/* The description of an API's request or response; NULL when not described. */
const wire_msg_desc *wire_msg_find(int16_t api_key, bool response);
/* Every described message, *count entries. */
const wire_msg_desc *const *wire_msg_all(int *count);

/* Body after the header. Returns 0, or -1 (and fails r) on malformed or
 * truncated input or a version outside the description. */
int wire_msg_decode(const wire_msg_desc *m, kq_reader *r, int16_t version, kq_arena *arena,
                    void *out);
/* Whether the encoder writes this version: the description's, or wider for
 * the few messages in WIRE_ENCODE_WIDER (kq/wire_apis.h). */
bool wire_msg_encodes(const wire_msg_desc *m, int16_t version);
/* Writes the fields the description gives the version; sets w->error for a
 * version wire_msg_encodes refuses. */
void wire_msg_encode(const wire_msg_desc *m, kq_writer *w, int16_t version, const void *in);

/* The response of API api_key with every field at its default but the
 * top-level error_code (Kafka's getErrorResponse): for requests answered
 * without their handler's work. Sets w->error for an API not described, a
 * version its encoder refuses, or a response without a top-level
 * error_code. */
void wire_error_response_encode(kq_writer *w, int16_t api_key, int16_t version, int16_t error);

/* Test support (the differential test and fuzzing): fill *out with random
 * values valid for the version (arrays and strings from the arena), and
 * print a decoded value as JSON keyed by Kafka's snake_case field names,
 * every field the version has (tagged ones included), in description order.
 * Integers as numbers, bool as true/false, uuid as Kafka's base64 text,
 * bytes and records as base64, null as null. */
void wire_msg_random(const wire_msg_desc *m, int16_t version, uint64_t seed, kq_arena *arena,
                     void *out);
void wire_msg_json(const wire_msg_desc *m, int16_t version, const void *in, kq_writer *out);

#endif
