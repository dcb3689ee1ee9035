/* mlcc.h - every public header of mlcc, lowest layer first. */
#ifndef MLCC_H
#define MLCC_H
#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#endif
