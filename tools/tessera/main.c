#include "tessera/tessera.h"
#include <stdio.h>
int main(void) { printf("tessera %s\n", tsr_version()); return 0; }
