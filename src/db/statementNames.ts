import { createHash } from 'node:crypto';

/*
 * Named (prepared) statements for the PostgreSQL driver (HERALD_DB_PREPARED_STATEMENTS, docs/scaling.md "Prepared
 * statements"). An unnamed statement is parsed, analysed and planned on every call; a named one is parsed and analysed
 * once a connection, and PostgreSQL may keep a generic plan of it where one costs no more than planning each call
 * (statements on the partitioned `messages` keep their custom plans, unless marked by genericPlan: db.ts). Herald's
 * hot statements are long (the claim and the outcome statement run to several kilobytes of SQL) and the same text each
 * call: naming them took about a tenth off PostgreSQL's CPU a message in the roles benchmark.
 */

/** Shorter statements are parsed in microseconds: not worth a prepared statement on every connection. */
const SHORTEST = 200;

/** Calls of a text before it is named: a text that carries its values in it seldom comes back so often. */
const CALLS_BEFORE_NAMED = 2;

/**
 * Names a pool gives at most. Each is prepared, with any generic plan PostgreSQL keeps of it, on every connection that
 * runs it, for the connection's life: the cap bounds that memory whatever statements come. Herald's repeated long
 * statements are some dozens (the claim has a text per number of channels, the outcome statement one per mix of
 * transitions).
 */
export const MOST_NAMED = 100;

/** Texts counted at most (the count starts again past it): texts used once do not pile up in memory. */
const MOST_COUNTED = 2000;

/** The name of a statement's text: the same in every process, so a connection never has it for another text. */
export const statementName = (text: string): string =>
  `herald_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;

/** The names one pool gives its statements; none once turned off (the setting, or a connection that lost them). */
export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly calls = new Map<string, number>();

  constructor(private on: boolean) {}

  /** The name for a call of `text` with `params` parameters, or undefined: the call goes unnamed. */
  of(text: string, params: number): string | undefined {
    if (!this.on || params === 0 || text.length < SHORTEST) return undefined;
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= MOST_NAMED) return name;
    const calls = (this.calls.get(text) ?? 0) + 1;
    if (calls <= CALLS_BEFORE_NAMED) {
      if (this.calls.size >= MOST_COUNTED) this.calls.clear();
      this.calls.set(text, calls);
      return undefined;
    }
    this.calls.delete(text);
    const given = statementName(text);
    this.named.set(text, given);
    return given;
  }

  /** Turns naming off for good; true the first time (the caller says why, once). */
  turnOff(): boolean {
    const was = this.on;
    this.on = false;
    return was;
  }
}
