import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ensureDemo } from '../../src/demo/demo.js';
import { startHerald } from '../../src/main.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';

describe('demo mode (DESIGN 1)', () => {
  it('on the first embedded start creates a demo account that can send at once, and keeps it across restarts', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-demo-'));
    const config = loadConfig({ HERALD_DATA_DIR: dataDir, HERALD_PORT: '0', HERALD_LOG_LEVEL: 'silent' });
    expect(config.demo).toBe(true);
    const log = pino({ level: 'silent' });
    const first = await startHerald({ config, role: 'api', log });
    const demo = first.demo!;
    try {
      expect(demo.adminToken).toMatch(/^[\w-]{32}$/);
      const send = await call(first.url!, 'POST', '/api/v1/message', {
        token: demo.trafficToken,
        body: [
          { channelType: 'SMS', senderName: 'Herald', destination: '79161234567', content: 'Hello from Herald' },
          { channelType: 'WHATSAPP', senderName: 'Herald', destination: '79161234567', content: { contentType: 'text', text: 'Hi' } },
        ],
      });
      expect(send.body).toMatchObject({ errors: false, items: [{ code: 201 }, { code: 201 }] });
      expect((await call(first.url!, 'GET', '/api/v1/balance', { token: demo.systemToken })).body).toEqual({ RUB: 1000 });
      const account = await call(first.url!, 'GET', `/admin/v1/accounts/${demo.accountId}`, { auth: `Bearer ${demo.adminToken}` });
      expect(account.body).toMatchObject({ name: 'Demo', inbound: true, channels: { WHATSAPP: true } });
    } finally {
      await first.close();
    }

    const second = await startHerald({ config, role: 'api', log });
    try {
      expect(second.demo).toEqual(demo);
      const accounts = await call(second.url!, 'GET', '/admin/v1/accounts', { auth: `Bearer ${demo.adminToken}` });
      expect(accounts.body.total).toBe(1);
    } finally {
      await second.close();
    }
  });

  it.each(ENGINES)('is created once when processes start together (%s)', async (engine) => {
    const testDb = await openTestDb(engine);
    try {
      const config = loadConfig({ HERALD_DEMO: 'true', HERALD_ADMIN_TOKEN: 'x'.repeat(24) });
      const results = await Promise.all(Array.from({ length: 4 }, () => ensureDemo(testDb.db, config, new TestClock())));
      for (const result of results) expect(result).toEqual(results[0]);
      expect(results[0]!.adminToken).toBeUndefined();
      const [count] = await testDb.db.query<{ n: number }>('SELECT count(*) AS n FROM accounts');
      expect(count!.n).toBe(1);
    } finally {
      await testDb.drop();
    }
  });
});
