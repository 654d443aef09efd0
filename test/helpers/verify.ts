import { expect } from 'vitest';
import type { AccountOptions, TestHerald } from './testHerald.js';
import { waitFor } from './waitFor.js';
import { messageRows } from './messageRows.js';

export const SMS = { channelType: 'SMS', senderName: 'Shop', timeout: 60 };
export const FLASHCALL = { channelType: 'FLASHCALL', senderName: 'any', timeout: 30 };
export const VOICECODE = { channelType: 'VOICECODE', senderName: 'voicecode', timeout: 60 };
export const TELEGRAM = { channelType: 'TELEGRAM', senderName: 'shop_verify_bot', timeout: 60 };

export interface StepRow {
  cascade_step: number;
  channel_type: string;
  status: string;
  content: unknown;
  traffic_type: string;
}

/** A client of verification: an account of its own with a verify token (TOKEN_3) and a verifier. */
export interface VerifyClient {
  readonly accountId: number;
  readonly traffic: string;
  readonly system: string;
  readonly verify: string;
  readonly gatewayId: string;
}

/**
 * What tests of verification (DESIGN 16) do through a Herald that runs the real pipeline (`delivery`): make a client
 * with a verifier, send codes, read them back from the steps' texts as the person would, and check them.
 */
export function verifyHarness(herald: () => TestHerald) {
  const client = async (verifier: Record<string, unknown>, options: AccountOptions = {}): Promise<VerifyClient> => {
    const t = herald();
    const account = await t.createAccount({ senderNames: [['SMS', 'Shop']], ...options });
    const token = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'verify' });
    const made = await t.call('POST', '/api/v1/verifiers', {
      token: account.system,
      body: { name: 'Sign-in', brand: 'Shop', ...verifier },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return {
      accountId: account.id,
      traffic: account.traffic,
      system: account.system,
      verify: token.body.token,
      gatewayId: made.body.gatewayId,
    };
  };
  const send = async (c: Pick<VerifyClient, 'verify' | 'gatewayId'>, destination: string, extra = {}) => {
    const t = herald();
    // A clock moved far ahead by an earlier test may have made the SMSC session look dead: it binds again in real
    // time, while a message retried meanwhile would wait for a test clock that stands still.
    await waitFor(() => t.herald.connectors.every((connector) => connector.state().available));
    return t.call('POST', '/api/v1/verifier/send', {
      token: c.verify,
      body: { gatewayId: c.gatewayId, destination, ...extra },
    });
  };
  const sent = async (c: Pick<VerifyClient, 'verify' | 'gatewayId'>, destination: string): Promise<string> => {
    const reply = await send(c, destination);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.uuid;
  };
  const check = async (c: Pick<VerifyClient, 'verify'>, uuid: string, code: string | number): Promise<string> => {
    const reply = await herald().call('POST', '/api/v1/verifier/check', { token: c.verify, body: { uuid, code } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.status;
  };
  const steps = (uuid: string): Promise<StepRow[]> =>
    herald().testDb.db.query<StepRow>(
      `SELECT cascade_step, channel_type, status, content, traffic_type FROM ${messageRows()}
       WHERE cascade_id = $1 ORDER BY cascade_step`,
      [uuid],
    );
  /** The code as the person got it: the digits at the end of the first step's text, or its TELEGRAM code. */
  const codeOf = async (uuid: string): Promise<string> => {
    const [first] = await steps(uuid);
    const content = first!.content as string | { text?: string; code?: string };
    if (typeof content === 'object' && content.code !== undefined) return content.code;
    const text = typeof content === 'string' ? content : content.text!;
    return /(\d+)\.?$/.exec(text)![1]!;
  };
  /** A code that is not `code`, of its length. */
  const wrongOf = (code: string): string =>
    code === '0'.repeat(code.length) ? code.slice(0, -1) + '1' : '0'.repeat(code.length);
  return { client, send, sent, check, steps, codeOf, wrongOf };
}
