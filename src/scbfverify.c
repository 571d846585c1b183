/* placeholder, see scbffuncs.c */
#include "postgres.h"
