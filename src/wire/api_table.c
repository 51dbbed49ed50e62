/* The APIs we speak, from the one list (kq/wire_apis.h): names, first
 * flexible versions, the ranges ApiVersions advertises and the ranges we
 * decode (each API's description). */
#include <stddef.h>

#include "kq/wire.h"
#include "kq/wire_apis.h"
#include "wire_apis_all.h"

struct api_info {
    int16_t key;
    int16_t flexible_from; /* WL: never */
    int16_t min_version;   /* lowest decoded */
    const char *name;
};

#define API_INFO(N, KEY, NAME, P, ADV_MIN, HANDLER) \
    {WIRE_API_##N, WIRE_##N##_FLEX_VERSION, WIRE_##N##_MIN_VERSION, NAME},
static const struct api_info api_infos[] = {WIRE_APIS(API_INFO)};

/* librdkafka needs Produce to overlap 0..0 to compress and Fetch to overlap
 * 4..4 to use message format v2 (hence advertised minimums below what we
 * decode), and it turns lz4 off unless FindCoordinator overlaps 0..0.
 * KIP-848's ConsumerGroupHeartbeat and ConsumerGroupDescribe are advertised
 * as Kafka 4.4.0 brokers do (v0-1): a consumer with group.protocol=consumer
 * needs the first, the admin client tries the second before DescribeGroups. */
#define API_ADVERTISED(N, KEY, NAME, P, ADV_MIN, HANDLER) \
    {WIRE_API_##N, ADV_MIN, WIRE_##N##_MAX_VERSION},
static const wire_api_range advertised[] = {WIRE_APIS(API_ADVERTISED)};

#define API_CHECK(N, KEY, NAME, P, ADV_MIN, HANDLER)                                      \
    _Static_assert((ADV_MIN) <= WIRE_##N##_MIN_VERSION, NAME ": advertised below decoded"); \
    _Static_assert(WIRE_##N##_MIN_VERSION <= WIRE_##N##_MAX_VERSION, NAME ": versions");
WIRE_APIS(API_CHECK)

static const struct api_info *find_info(int16_t key)
{
    for (size_t i = 0; i < sizeof api_infos / sizeof api_infos[0]; i++)
        if (api_infos[i].key == key)
            return &api_infos[i];
    return NULL;
}

bool wire_api_flexible(int16_t api_key, int16_t version)
{
    const struct api_info *info = find_info(api_key);
    return info && version >= info->flexible_from;
}

const wire_api_range *wire_advertised_apis(int *count)
{
    *count = (int)(sizeof advertised / sizeof advertised[0]);
    return advertised;
}

bool wire_api_accepted(int16_t api_key, int16_t version)
{
    const struct api_info *info = find_info(api_key);
    for (size_t i = 0; info && i < sizeof advertised / sizeof advertised[0]; i++)
        if (advertised[i].api_key == api_key)
            return version >= info->min_version && version <= advertised[i].max_version;
    return false;
}

const char *wire_api_name(int16_t api_key)
{
    const struct api_info *info = find_info(api_key);
    return info ? info->name : "Unknown";
}
