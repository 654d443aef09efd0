/**
 * A trigger function that runs `body` (nothing: it lets the row through) and then returns the row. A test makes its
 * trigger once, before Herald starts (startTestHerald's `prepare`), and switches what it does by making the function
 * again with another body: replacing a function takes no lock on the table, where DDL on `messages` while Herald runs
 * waits behind its statements and can deadlock with them (docs/operations.md).
 */
export const triggerFunctionSql = (name: string, body = ''): string =>
  `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NEW; END $$`;

/**
 * startTestHerald's `prepare` that makes a trigger `name` on `messages` (`event`: 'BEFORE INSERT', 'BEFORE UPDATE'),
 * for each row (of those `when` names), with a function of the same name that lets every row through until the test
 * makes it again ({@link triggerFunctionSql}). `deferred`: a constraint trigger (event 'AFTER INSERT', ...) that runs
 * at COMMIT, so that what it raises is COMMIT's error.
 */
export const messagesTrigger =
  (name: string, event: string, when = '', { deferred = false } = {}) =>
  async (db: { query(sql: string): Promise<unknown> }): Promise<void> => {
    await db.query(triggerFunctionSql(name));
    await db.query(
      `CREATE ${deferred ? 'CONSTRAINT ' : ''}TRIGGER ${name} ${event} ON messages ` +
        `${deferred ? 'DEFERRABLE INITIALLY DEFERRED ' : ''}FOR EACH ROW ${when && `WHEN (${when})`} ` +
        `EXECUTE FUNCTION ${name}()`,
    );
  };
