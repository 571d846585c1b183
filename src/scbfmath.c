/* placeholder until the math module lands */
#include "scbfmath.h"
