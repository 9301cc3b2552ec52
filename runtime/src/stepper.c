/* stepper.c — looking stepper types up by name. */
#include <string.h>

#include "lagrangec/stepper.h"

const lgc_stepper_type *lgc_stepper_type_find(const char *name)
{
    const lgc_stepper_type *const all[] = {lgc_step_rk4, lgc_step_dopri5,
#if LGC_HAVE_SUNDIALS
                                            lgc_step_bdf, lgc_step_adams,
#endif
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
