/**
 * Whether this connection's server takes no writes: a standby (`pg_is_in_recovery()`), or a
 * database set read-only (`transaction_read_only`, from `default_transaction_read_only`). Asked by
 * `/ready` (readiness.ts) and, on servers that do not report it at connect, by the multi-host
 * connect (writableHostClient.ts), as libpq asks it for `target_session_attrs=read-write`.
 */
export const READ_ONLY_QUESTION = `select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as read_only`;
