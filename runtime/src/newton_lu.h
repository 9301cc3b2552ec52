/*
** newton_lu.h — the linear solver of CVODE's Newton iterations
** (newton_lu.c); private to the runtime.
*/
#ifndef LAGRANGEC_NEWTON_LU_H
#define LAGRANGEC_NEWTON_LU_H

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>

/*
** A SUNDIALS direct linear solver for n x n dense matrices (SUNDenseMatrix):
** LU with partial pivoting in plain loops; NULL when out of memory. Its
** setup and solve never allocate.
*/
SUNLinearSolver lgc_newton_lu(int n, SUNContext ctx);

#endif
