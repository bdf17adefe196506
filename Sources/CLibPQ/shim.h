// libpq, PostgreSQL's C client library (its directory comes from pkg-config: /usr/include/postgresql on
// Debian). The error-field codes are character-literal macros, which Swift does not import: they are
// re-exported as functions.
#ifndef TANDEM_CLIBPQ_SHIM_H
#define TANDEM_CLIBPQ_SHIM_H
#include <libpq-fe.h>

static inline int tandem_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int tandem_pg_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int tandem_pg_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
#endif
