/*
** names.c — the names of a model's states and constraint rows, as options
** take them and messages print them.
*/
#include <stdio.h>
#include <string.h>

#include "lagrangec/csv.h"
#include "programs.h"

int lgc_state_index(const lgc_model *m, const char *name)
{
    int i = lgc_name_index(m->state_names, m->nx, name);
    if (i >= 0)
        return i;
    /* x_dot for x': a spec may not name anything NAME_dot for a coordinate NAME. */
    size_t len = strlen(name);
    const char *suffix = "_dot";
    if (len <= 4 || strcmp(name + len - 4, suffix) != 0)
        return -1;
    for (int j = 0; j < m->nq; j++)
        if (strlen(m->coordinate_names[j]) == len - 4
            && strncmp(m->coordinate_names[j], name, len - 4) == 0)
            return m->nq + j;
    return -1;
}

/* NAME=VALUE into buf (the name) and *value. */
static int split_assignment(const char *arg, char *buf, size_t size, double *value)
{
    const char *eq = strchr(arg, '=');
    if (!eq || (size_t)(eq - arg) >= size || eq == arg)
        return 0;
    memcpy(buf, arg, (size_t)(eq - arg));
    buf[eq - arg] = '\0';
    return lgc_parse_number(eq + 1, value);
}

int lgc_assign(const char *option, const char *arg, lgc_system *sys, lgc_given *start)
{
    const lgc_model *m = sys->model;
    char name[256];
    double value;
    int i;
    if (!split_assignment(arg, name, sizeof name, &value))
        return lgc_usage_error("%s expects NAME=VALUE with a finite number, got '%s'", option, arg);
    if (strcmp(option, "--param") == 0) {
        if ((i = lgc_name_index(m->parameter_names, m->np, name)) < 0) {
            lgc_usage_error("unknown parameter '%s' in %s", name, option);
            lgc_list_names("parameters", m->parameter_names, m->np);
            return LGC_EXIT_USAGE;
        }
        sys->p[i] = value;
    } else if (strcmp(option, "--input") == 0) {
        if ((i = lgc_name_index(m->input_names, m->nu, name)) < 0) {
            lgc_usage_error("unknown input '%s' in %s", name, option);
            lgc_list_names("inputs", m->input_names, m->nu);
            return LGC_EXIT_USAGE;
        }
        sys->u[i] = value;
    } else {
        if ((i = lgc_state_index(m, name)) < 0) {
            lgc_usage_error("unknown state '%s' in %s", name, option);
            lgc_list_names("states", m->state_names, m->nx);
            return LGC_EXIT_USAGE;
        }
        start->value[i] = value;
        start->set[i] = 1;
    }
    return LGC_EXIT_OK;
}

void lgc_row_name(const lgc_model *m, int row, char *buf, size_t size)
{
    lgc_csv_column_name(m, lgc_csv_column_phi(m) + row, buf, size);
}

void lgc_describe_row(const lgc_model *m, int row, char *buf, size_t size)
{
    /* Rows are [phi; phi'; g]; the labels [holonomic; nonholonomic]. */
    if (row < m->nh)
        snprintf(buf, size, "%s", m->constraint_labels[row]);
    else if (row < 2 * m->nh)
        snprintf(buf, size, "the velocity form of %s", m->constraint_labels[row - m->nh]);
    else
        snprintf(buf, size, "%s", m->constraint_labels[row - m->nh]);
}

int lgc_target_find(const lgc_model *m, const char *name, lgc_target *t)
{
    if ((t->index = lgc_name_index(m->parameter_names, m->np, name)) >= 0)
        t->kind = LGC_TARGET_PARAMETER;
    else if ((t->index = lgc_name_index(m->input_names, m->nu, name)) >= 0)
        t->kind = LGC_TARGET_INPUT;
    else if ((t->index = lgc_state_index(m, name)) >= 0)
        t->kind = LGC_TARGET_STATE;
    return t->index >= 0;
}

void lgc_list_targets(const lgc_model *m)
{
    lgc_list_names("parameters", m->parameter_names, m->np);
    lgc_list_names("states (initial values; x_dot for x')", m->state_names, m->nx);
    lgc_list_names("inputs", m->input_names, m->nu);
}

void lgc_target_set(const lgc_target *target, double value, lgc_system *sys, lgc_given *g)
{
    switch (target->kind) {
    case LGC_TARGET_PARAMETER: sys->p[target->index] = value; break;
    case LGC_TARGET_INPUT: sys->u[target->index] = value; break;
    case LGC_TARGET_STATE:
        g->value[target->index] = value;
        g->set[target->index] = 1;
        break;
    }
}
