import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { type Herald, startHerald } from '../../src/main.js';
import { ENGINES, openTestDb } from '../helpers/engines.js';
import { call } from '../helpers/http.js';
import { startTestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const INBOUND = { channelType: 'WHATSAPP', from: '79161234560', senderName: 'Herald', text: 'Where is my parcel?' };
const EXPECTED = { error: { code: 4220, msg: 'Expected {channelType: "WHATSAPP", from, senderName, text}' } };

describe.each(ENGINES)("the simulators' control endpoints on Herald's API port (DESIGN 12) (%s)", (engine) => {
  it('serves POST /sim/v1/inbound on the API port when the simulators are on, and prints it at start-up', async () => {
    const testDb = await openTestDb(engine);
    const config = loadConfig({
      HERALD_PORT: '0',
      HERALD_SIMULATORS: 'on',
      HERALD_DEMO: 'true',
      HERALD_ADMIN_TOKEN: 'a'.repeat(32),
      HERALD_SIM_DELAY_MS: '10',
      HERALD_LOG_LEVEL: 'silent',
    });
    const printed: string[] = [];
    // The banner goes to standard output; only the start is captured.
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => printed.push(String(chunk)) > 0);
    let herald: Herald | undefined;
    try {
      // The simulators run with the connectors (all, or a worker): an api process of split roles has none.
      herald = await startHerald({ config, role: 'all', db: testDb.db, log: pino({ level: 'silent' }) });
    } finally {
      stdout.mockRestore();
    }
    try {
      const url = herald.url!;
      expect(printed.join('')).toContain(`POST ${url}/sim/v1/inbound`);

      const reply = await call(url, 'POST', '/sim/v1/inbound', { body: INBOUND });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ id: expect.stringMatching(/^wamid\.in\./) });
      // The simulator posts the provider's webhook to Herald: the demo account sees the subscriber's message.
      const token = herald.demo!.trafficToken;
      const inbound = await waitFor(async () => {
        const list = await call(url, 'GET', '/api/v1/message?direction=inbound', { token });
        return list.body.items?.[0];
      });
      expect(inbound).toMatchObject({ direction: 'inbound', senderName: 'Herald', destination: '79161234560' });
      expect(inbound.content).toEqual({ contentType: 'text', text: 'Where is my parcel?' });

      // The same answers as on the simulator's own port.
      const bad = { channelType: 'SMS', from: '79161234560', text: 'x' };
      const onApi = await call(url, 'POST', '/sim/v1/inbound', { body: bad });
      const onSimulator = await call(herald.simulators!.providers.url, 'POST', '/sim/v1/inbound', { body: bad });
      expect([onApi.status, onApi.body]).toEqual([422, EXPECTED]);
      expect([onSimulator.status, onSimulator.body]).toEqual([422, EXPECTED]);
    } finally {
      await herald.close();
      await testDb.drop();
    }
  });

  it('does not serve them when the simulators are off', async () => {
    const t = await startTestHerald(engine);
    try {
      const reply = await t.call('POST', '/sim/v1/inbound', { body: INBOUND });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe(4040);
    } finally {
      await t.close();
    }
  });
});
