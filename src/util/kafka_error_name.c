/* Kafka error names for log lines (kq/kafka_errors.h). */
#include "kq/kafka_errors.h"

const char *kafka_error_name(int16_t code)
{
    switch (code) {
#define KAFKA_ERROR_CASE_(name, value) \
    case value:                        \
        return #name;
        KAFKA_ERRORS(KAFKA_ERROR_CASE_)
#undef KAFKA_ERROR_CASE_
    default:
        return "UNKNOWN";
    }
}
