/* MQ coder: the host's probability state table (T.800 Table C.2, mqc.h). */
#include "j2k/mqc.h"

const tsr__mqc_state tsr__mqc_states[94] = {TSR__MQC_TABLE(TSR__MQC_ENTRY)};
