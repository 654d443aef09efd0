import { expect } from 'vitest';
import type { Engine } from '../helpers/engines.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

/** A Herald whose account sends SMS to Russian mobiles (a tariff for 79), for the number portability tests. */
export async function startMnpHerald(engine: Engine): Promise<{ t: TestHerald; account: TestAccount }> {
  const t = await startTestHerald(engine);
  const tariff = { channelType: 'SMS', prefix: '79', price: 1, currency: 'RUB' };
  expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
  const account = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 1_000_000 });
  return { t, account };
}

/** POST /admin/v1/mnp/import with a body as it is (a stream is sent as it is made). */
export function postImport(t: TestHerald, body: string | ReadableStream<Uint8Array>): Promise<Response> {
  return fetch(`${t.url}/admin/v1/mnp/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
    body,
    duplex: 'half',
  } as RequestInit);
}
