/*
** fmi2TypesPlatform.h — the FMI 2.0 standard's platform types, written
** from the standard (FMI for Model Exchange and Co-Simulation 2.0, section
** 2.1.2) with its names and types, so that an importer built on the
** standard's own headers loads this FMU's library.
*/
#ifndef fmi2TypesPlatform_h
#define fmi2TypesPlatform_h

#define fmi2TypesPlatform "default"

typedef void *fmi2Component;            /* an instance of the FMU */
typedef void *fmi2ComponentEnvironment; /* the importer's, handed back to its logger */
typedef void *fmi2FMUstate;             /* a saved internal state */
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

#endif
