/* The KIP-848 consumer group keys with a parse function:
 * group.consumer.assignors (a list of known assignors) and
 * group.consumer.migration.policy (one of Kafka's four words). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_internal.h"
#include "config_load.h"
#include "kq/group.h"

/* enum group_assignor of one list item, -1 when unknown. */
static int assignor_of(const char *item, size_t n)
{
    static const struct {
        const char *name;
        int id;
    } known[] = {
        {"uniform", GROUP_ASSIGNOR_UNIFORM},
        {"range", GROUP_ASSIGNOR_RANGE},
        {"org.apache.kafka.coordinator.group.assignor.UniformAssignor", GROUP_ASSIGNOR_UNIFORM},
        {"org.apache.kafka.coordinator.group.assignor.RangeAssignor", GROUP_ASSIGNOR_RANGE},
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strlen(known[i].name) == n && strncmp(known[i].name, item, n) == 0)
            return known[i].id;
    return -1;
}

int cfg_parse_assignors(const cfg_set *s, char *why, size_t whylen)
{
    int32_t code = 0;
    int count = 0;
    for (const char *p = s->value; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        size_t n = strcspn(p, ", \t");
        if (n == 0)
            break;
        int a = assignor_of(p, n);
        if (a < 0)
            return kq_config_why(why, whylen, "unknown assignor \"%.*s\" (uniform, range)",
                                 (int)n, p);
        for (int i = 0; i < count; i++)
            if (((code >> (4 * i)) & 15) == a + 1)
                return kq_config_why(why, whylen, "assignor %.*s listed twice", (int)n, p);
        if (count == GROUP_ASSIGNORS_MAX)
            return kq_config_why(why, whylen, "more than %d assignors", GROUP_ASSIGNORS_MAX);
        code |= (int32_t)(a + 1) << (4 * count++);
        p += n;
    }
    if (count == 0)
        return kq_config_why(why, whylen, "no assignor");
    s->cfg->group_consumer_assignors = code;
    return 0;
}

int cfg_parse_migration(const cfg_set *s, char *why, size_t whylen)
{
    static const char *const words[] = {"bidirectional", "upgrade", "downgrade", "disabled"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(s->value, words[i]) == 0) {
            s->cfg->group_consumer_migration_policy = i;
            return 0;
        }
    return kq_config_why(why, whylen, "not one of bidirectional, upgrade, downgrade, disabled");
}
