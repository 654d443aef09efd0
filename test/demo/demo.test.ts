import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { demoBanner, ensureDemo } from '../../src/demo/demo.js';
import { startHerald } from '../../src/main.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';

describe('demo mode (DESIGN 1)', () => {
  // Two embedded starts (PGlite made and migrated, then opened again): some 8 s on an idle machine, four times that
  // on a busy one.
  it('on the first embedded start creates a demo account that can send at once, kept across restarts', async () => {
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
          {
            channelType: 'WHATSAPP',
            senderName: 'Herald',
            destination: '79161234567',
            content: { contentType: 'text', text: 'Hi' },
          },
        ],
      });
      expect(send.body).toMatchObject({ errors: false, items: [{ code: 201 }, { code: 201 }] });
      expect((await call(first.url!, 'GET', '/api/v1/balance', { token: demo.systemToken })).body).toEqual({
        RUB: 1000,
      });
      const account = await call(first.url!, 'GET', `/admin/v1/accounts/${demo.accountId}`, {
        auth: `Bearer ${demo.adminToken}`,
      });
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
  }, 120_000);

  it.each(ENGINES)('is created once when processes start together (%s)', async (engine) => {
    const testDb = await openTestDb(engine);
    try {
      const config = loadConfig({ HERALD_DEMO: 'true', HERALD_ADMIN_TOKEN: 'x'.repeat(24) });
      const results = await Promise.all(
        Array.from({ length: 4 }, () => ensureDemo(testDb.db, config, new TestClock())),
      );
      for (const result of results) expect(result).toEqual(results[0]);
      expect(results[0]!.adminToken).toBeUndefined();
      const [count] = await testDb.db.query<{ n: number }>('SELECT count(*) AS n FROM accounts');
      expect(count!.n).toBe(1);
    } finally {
      await testDb.drop();
    }
  });

  describe('the banner', () => {
    const credentials = {
      accountId: 1,
      trafficToken: 'dHJhZmZpYw==',
      systemToken: 'c3lzdGVt',
      adminToken: 'generated-admin-token-0123456789',
    };
    const adminLine = (banner: string) => banner.split('\n').find((line) => line.includes('Admin token'));

    it('shows the admin token Herald generated', () => {
      expect(adminLine(demoBanner(credentials, 'http://127.0.0.1:8080', false))).toBe(
        '  Admin token:       generated-admin-token-0123456789',
      );
    });

    it('never shows one from HERALD_ADMIN_TOKEN, only that it is set', () => {
      expect(adminLine(demoBanner({ ...credentials, adminToken: undefined }, 'http://127.0.0.1:8080', true))).toBe(
        '  Admin token:       set by HERALD_ADMIN_TOKEN (not shown)',
      );
      // A token generated on an earlier start no longer works once the variable is set: not shown either.
      expect(demoBanner(credentials, 'http://127.0.0.1:8080', true)).not.toContain(credentials.adminToken);
    });

    it('says the operator API is off when there is no token at all', () => {
      expect(adminLine(demoBanner({ ...credentials, adminToken: undefined }, 'http://127.0.0.1:8080', false))).toBe(
        '  Admin token:       none: the operator API is off (HERALD_ADMIN_TOKEN)',
      );
    });

    it('at start-up with HERALD_ADMIN_TOKEN set: the demo tokens are printed, the admin token is not', async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-demo-'));
      const adminToken = 'operator-secret-from-the-environment-0123';
      const config = loadConfig({
        HERALD_DATA_DIR: dataDir,
        HERALD_PORT: '0',
        HERALD_LOG_LEVEL: 'silent',
        HERALD_ADMIN_TOKEN: adminToken,
        HERALD_SIMULATORS: 'off',
      });
      const printed: string[] = [];
      const write = vi
        .spyOn(process.stdout, 'write')
        .mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
      let herald: Awaited<ReturnType<typeof startHerald>> | undefined;
      try {
        herald = await startHerald({ config, role: 'api', log: pino({ level: 'silent' }) });
      } finally {
        write.mockRestore();
      }
      try {
        const output = printed.join('');
        expect(output).toContain(herald.demo!.trafficToken);
        expect(output).toContain('Admin token:       set by HERALD_ADMIN_TOKEN (not shown)');
        expect(output).not.toContain(adminToken);
      } finally {
        await herald.close();
      }
    }, 120_000);
  });
});
