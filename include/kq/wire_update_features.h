/* UpdateFeatures (api key 57), versions 0-2, flexible in all versions:
 * asks the controller to finalize feature levels. Here it upgrades
 * kraft.version from 0 to 1 (KIP-853: a static quorum's voters move into
 * the log), as `kafka-features.sh upgrade --feature kraft.version=1`.
 * v1 replaces AllowDowngrade by UpgradeType and adds ValidateOnly; v2
 * drops the per-feature Results. */
#ifndef KQ_WIRE_UPDATE_FEATURES_H
#define KQ_WIRE_UPDATE_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "kq/buf.h"
#include "kq/wire_desc.h"

#define WIRE_UPDATE_FEATURES_MIN_VERSION 0
#define WIRE_UPDATE_FEATURES_MAX_VERSION 2
#define WIRE_UPDATE_FEATURES_FLEX_VERSION 0

#define WIRE_UPDATE_FEATURES_KEY(S)                         \
    WF(S, STRING, feature, 0, WL)                           \
    WF(S, I16, max_version_level, 0, WL)                    \
    WF(S, BOOL, allow_downgrade, 0, 0)                      \
    WF(S, I8, upgrade_type, 1, WL, WIRE_DEFAULT(1))

#define WIRE_UPDATE_FEATURES_REQUEST(S)                                                     \
    WF(S, I32, timeout_ms, 0, WL, WIRE_DEFAULT(60000))                                      \
    WA(S, wire_update_features_key, feature_updates, feature_update_count, 0, WL)           \
    WF(S, BOOL, validate_only, 1, WL)

#define WIRE_UPDATE_FEATURES_RESULT(S)                      \
    WF(S, STRING, feature, 0, WL)                           \
    WF(S, I16, error_code, 0, WL)                           \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))

#define WIRE_UPDATE_FEATURES_RESPONSE(S)                                                    \
    WF(S, I32, throttle_time_ms, 0, WL)                                                     \
    WF(S, I16, error_code, 0, WL)                                                           \
    WF(S, STRING, error_message, 0, WL, WIRE_NULLABLE(0))                                   \
    WA(S, wire_update_features_result, results, result_count, 0, 1)

#define WIRE_UPDATE_FEATURES_STRUCTS(D, DI)                               \
    D(wire_update_features_key, WIRE_UPDATE_FEATURES_KEY)                 \
    D(wire_update_features_request, WIRE_UPDATE_FEATURES_REQUEST)         \
    D(wire_update_features_result, WIRE_UPDATE_FEATURES_RESULT)           \
    D(wire_update_features_response, WIRE_UPDATE_FEATURES_RESPONSE)
WIRE_DECLARE_STRUCTS(WIRE_UPDATE_FEATURES_STRUCTS)
WIRE_API_FUNCS(wire_update_features)

#endif
