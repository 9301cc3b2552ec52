/*
** lagrangec/lagrangec.h — the whole library API in one include.
*/
#ifndef LAGRANGEC_LAGRANGEC_H
#define LAGRANGEC_LAGRANGEC_H

#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "lagrangec/version.h"
#include "lagrangec/system.h"
#include "lagrangec/stepper.h"
#include "lagrangec/control.h"
#include "lagrangec/project.h"
#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"
#include "lagrangec/csv.h"
#include "lagrangec/linearize.h"
#include "lagrangec/initial.h"

#endif
