/* simulate_main.c — the 3-line main `lagrangec simulate` compiles, for a fixture. */
#include "fixtures.h"
#include "lagrangec/simulate.h"

int main(int argc, char **argv) { return lgc_simulate_main(&FIXTURE_MODEL, argc, argv); }
