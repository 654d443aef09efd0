/**
 * SQLSTATE classes and socket errors that mean "the primary cannot be reached now", not "this query is wrong".
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '08000', // connection_exception
  '08001',
  '08003',
  '08004',
  '08006',
  // PgBouncer's own errors (query_wait_timeout: no server connection came free in time; the pooler cannot reach
  // the server); PostgreSQL itself sends it only for a broken client protocol, which Herald's driver never sends.
  '08P01',
  '53300', // too_many_connections
  // read_only_sql_transaction: the connection reached a standby, as in a failover while a proxy still passes
  // connections to the old primary restarted as a standby, or to the new one before its promotion has finished.
  '25006',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i;

/** True for errors that a client may retry once the database is back (answered 503 5031, not 500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/** True when the error or one of its causes is PostgreSQL's answer (an ErrorResponse: a severity and a SQLSTATE). */
export function answeredByDatabase(error: unknown): boolean {
  for (const e of errorChain(error)) {
    const { severity, code } = e as { severity?: unknown; code?: unknown };
    if (typeof severity === 'string' && typeof code === 'string') return true;
  }
  return false;
}

/** An error and its causes, each object once (a cycle of causes ends the walk rather than the process's stack). */
export function* errorChain(error: unknown): Generator<object> {
  const seen = new Set<unknown>();
  for (let e = error; typeof e === 'object' && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    yield e;
  }
}

/**
 * True for a transaction PostgreSQL rolled back because of another one (class 40: a deadlock, with an operator's DDL
 * on a table Herald writes; a serialization failure), or that failed on a named statement its connection lost
 * ({@link isPreparedStatementLost}): nothing of it was written, and the same request succeeds when tried again
 * (answered 503 5031 with Retry-After, not 500).
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001' || isPreparedStatementLost(error);
}

/**
 * True for the error of a named statement (db/statementNames.ts) that its connection does not have as Herald prepared
 * it: gone, or there already (a transaction pooler before PgBouncer 1.21 gives a client another server connection
 * each transaction: invalid_sql_statement_name, duplicate_prepared_statement), or with a result the schema changed
 * since (a newer Herald's migration during a rolling upgrade). The statement did not run.
 */
export function isPreparedStatementLost(error: unknown): boolean {
  const { code, routine } = (error ?? {}) as { code?: unknown; routine?: unknown };
  // The result's change by the server's function that says it, never translated (the message follows lc_messages).
  return code === '26000' || code === '42P05' || (code === '0A000' && routine === 'RevalidateCachedQuery');
}

/** True for the error of a statement that gave up waiting for its lock (lock_timeout: lock_not_available). */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '55P03';
}

/** True for the error of a statement that would have written a key twice (unique_violation). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/**
 * A connection-class error ({@link isDatabaseUnavailable}) of COMMIT: the connection was lost, or the server went away,
 * while COMMIT ran, so whether the transaction was written is not known. A caller must not tell its client that
 * nothing was stored (an SMPP client told "send again" would send a stored message twice). It keeps its cause's code
 * and cause, so that the HTTP API still answers it 503 5031 (the client's Idempotency-Key makes a retry safe there).
 */
export class CommitOutcomeUnknown extends Error {
  readonly code: unknown;

  constructor(cause: unknown) {
    super(`COMMIT's outcome unknown, the transaction may have been written: ${(cause as Error | null)?.message}`, {
      cause,
    });
    this.name = 'CommitOutcomeUnknown';
    this.code = (cause as { code?: unknown } | null)?.code;
  }
}

/** What a transaction throws for an error of its COMMIT: a {@link CommitOutcomeUnknown} when the outcome is unknown. */
export function commitError(error: unknown): unknown {
  return isDatabaseUnavailable(error) ? new CommitOutcomeUnknown(error) : error;
}

/** True when a COMMIT went unanswered ({@link CommitOutcomeUnknown}) anywhere among the error's causes. */
export function commitUnanswered(error: unknown): boolean {
  for (const e of errorChain(error)) if (e instanceof CommitOutcomeUnknown) return true;
  return false;
}
