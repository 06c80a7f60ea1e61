/* Name tables of public enums (names.h). */
#include "core/names.h"

#include <string.h>

const char *tsr__name_of(const char *const *names, int count, int value, const char *unknown)
{
    return value >= 0 && value < count && names[value] ? names[value] : unknown;
}

tsr_status tsr__name_parse(const char *const *names, int count, const char *name, int *out)
{
    if (!name || !out)
        return TSR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        if (names[i] && strcmp(name, names[i]) == 0) {
            *out = i;
            return TSR_OK;
        }
    return TSR_ERR_INVALID_ARGUMENT;
}
