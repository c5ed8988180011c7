/* Keeps the test-support library non-empty. */
typedef int strata_testsupport_empty;
