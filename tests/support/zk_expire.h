/*
 * zk_expire.h - a test hook: makes the ensemble end a handle's session.
 *
 * Thread-safety: as zk.h.
 */
#ifndef STRATA_TESTS_ZK_EXPIRE_H
#define STRATA_TESTS_ZK_EXPIRE_H

#include "common/zk/zk.h"

/* Makes the ensemble end z's session, as a partition longer than the session timeout
 * would: a second connection borrows z's session id and password and closes the session.
 * ST_OK once z is in ZK_EXPIRED (its state callback ran, its ephemeral nodes are gone);
 * ST_TIMEOUT if that did not happen within timeout_ms; ST_CLOSED if z is not open. */
int zk_expire_session(zk *z, int timeout_ms);

#endif
