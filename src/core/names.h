/* Name tables of public enums: one static array of names indexed by the enum's value, and the
 * two lookups every tsr_<enum>_name / tsr_<enum>_parse pair is made of. */
#ifndef TSR_CORE_NAMES_H
#define TSR_CORE_NAMES_H

#include "tessera/core.h"

#define TSR__NAMES_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* names[value], or `unknown` for a value outside [0, count). */
const char *tsr__name_of(const char *const *names, int count, int value, const char *unknown);
/* The value whose name is `name` into *out; TSR_ERR_INVALID_ARGUMENT for none (or NULLs). */
tsr_status tsr__name_parse(const char *const *names, int count, const char *name, int *out);

#endif
