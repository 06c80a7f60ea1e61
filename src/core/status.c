/* Status names and messages, generated from the one list in tessera/core.h. */
#include "tessera/core.h"

static const char *const status_names[] = {
#define TSR__STATUS_NAME(name, msg) #name,
    TSR_STATUS_LIST(TSR__STATUS_NAME)
#undef TSR__STATUS_NAME
};

static const char *const status_messages[] = {
#define TSR__STATUS_MESSAGE(name, msg) msg,
    TSR_STATUS_LIST(TSR__STATUS_MESSAGE)
#undef TSR__STATUS_MESSAGE
};

const char *tsr_strerror(tsr_status status)
{
    if ((unsigned)status >= (unsigned)TSR_STATUS_COUNT)
        return "unknown status";
    return status_messages[status];
}

const char *tsr_status_name(tsr_status status)
{
    if ((unsigned)status >= (unsigned)TSR_STATUS_COUNT)
        return "TSR_STATUS_UNKNOWN";
    return status_names[status];
}

const char *tsr_version(void)
{
    return TSR_VERSION_STRING;
}
