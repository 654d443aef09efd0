import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLocalTime, isoUtc } from '../../src/util/time.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { SENDER } from '../messages/messageFixtures.js';

const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Hello {name}', useLocalTime: false };
const HOUR_MS = 3_600_000;
/** Moscow keeps UTC+3 all year. */
const MOSCOW_OFFSET_MS = 3 * HOUR_MS;
/** 6 a minute: one every 10 seconds. */
const SPEED = { amount: 6, unit: 'minute' };
const SPACING_MS = 10_000;

/**
 * A dispatch's send window (DESIGN 4, 15): its messages are planned from the moment their window opens, at the
 * dispatch's speed, on start and on resume. The clock stands still unless a test moves it; the tests share it and
 * each reads where it stands.
 */
describe.each(ENGINES)('dispatch send windows (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let markers = 0;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 5 } });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const api = (method: string, path: string, body?: unknown) =>
    t.call(method, `/api/v1/dispatch${path}`, { token: account.traffic, ...(body !== undefined ? { body } : {}) });
  const get = async (id: string) => (await api('GET', `/${id}`)).body;
  const submitted = (prefix: string) => t.simulators!.smsc.submissions.filter((s) => s.destination.startsWith(prefix));
  const messagesOf = async (id: string) =>
    (await t.call('GET', `/api/v1/message?dispatch_id=${id}&sort=created_time`, { token: account.traffic })).body
      .items as { messageUuid: string; status: string; plannedSendTime: string | null; sentTime: string | null }[];

  /** A started dispatch of `n` messages to `prefix` (7 digits) with a window; the added messages in order. */
  const started = async (prefix: string, n: number, window: Record<string, unknown>) => {
    const created = await api('POST', '', { dispatchName: 'Window', ...SMS, speed: SPEED, ...window });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.dispatchId;
    const added = await api(
      'POST',
      `/${id}/messages`,
      Array.from({ length: n }, (_, i) => ({ destination: `${prefix}${i}000`, substitutions: { name: `P${i}` } })),
    );
    const uuids = added.body.map((item: { messageUuid: string }) => item.messageUuid);
    expect(uuids.every(Boolean), JSON.stringify(added.body)).toBe(true);
    // Held, not planned yet: its time depends on the start and the speed.
    const before = await t.call('GET', `/api/v1/message/${uuids[0]}`, { token: account.traffic });
    expect(before.body).toMatchObject({ status: 'sending', plannedSendTime: null });
    expect((await api('POST', `/${id}/start`)).status).toBe(200);
    return { id, uuids: uuids as string[] };
  };

  /** The submitter went round (a plain message sent now went) and the dispatch's submissions are still `n`. */
  const stillSubmitted = async (prefix: string, n: number) => {
    const marker = `7916599${String(markers++).padStart(3, '0')}0`;
    await t.send(account.traffic, [{ ...SMS, content: 'marker', destination: marker }]);
    await waitFor(() => submitted(marker).length === 1);
    expect(submitted(prefix)).toHaveLength(n);
  };

  /** Planned from `opening`, one every 10 s; at `opening` they go one at a time, 10 s apart (no burst). */
  const goesAtSpeedFrom = async (id: string, prefix: string, opening: number, n: number) => {
    const planned = (await messagesOf(id)).map((m) => m.plannedSendTime).sort();
    expect(planned).toEqual(Array.from({ length: n }, (_, i) => isoUtc(new Date(opening + i * SPACING_MS))));
    await stillSubmitted(prefix, 0);
    t.clock.set(new Date(opening));
    for (let i = 1; i <= n; i++) {
      await waitFor(() => submitted(prefix).length >= i);
      await stillSubmitted(prefix, i);
      if (i === n) break;
      expect((await get(id)).status).toBe('sending');
      t.clock.advance(SPACING_MS);
    }
    await untilWritten(t.herald, async () => (await get(id)).status === 'done');
    expect((await get(id)).messages).toMatchObject({ total: n, delivered: n, unsent: 0 });
    const sent = (await messagesOf(id)).map((m) => m.sentTime).sort();
    expect(sent).toEqual(planned);
  };

  it('starts scheduled when its localSendTime is 3 days ahead, and goes at its speed when it comes', async () => {
    const opening = Math.ceil((t.clock.now().getTime() + 3 * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS;
    const prefix = '7916531';
    const { id } = await started(prefix, 3, { localSendTime: formatLocalTime(opening + MOSCOW_OFFSET_MS) });
    expect(await get(id)).toMatchObject({ status: 'scheduled', messages: { total: 3, sending: 3, unsent: 0 } });
    await goesAtSpeedFrom(id, prefix, opening, 3);
  });

  it('waits for the next allowed hour when its hours exclude now', async () => {
    const now = t.clock.now().getTime();
    const opening = Math.floor(now / HOUR_MS) * HOUR_MS + 2 * HOUR_MS;
    const hour = new Date(opening + MOSCOW_OFFSET_MS).getUTCHours();
    const prefix = '7916532';
    const { id } = await started(prefix, 3, { hours: [hour] });
    expect(await get(id)).toMatchObject({ status: 'scheduled', messages: { total: 3, sending: 3 } });
    await goesAtSpeedFrom(id, prefix, opening, 3);
  });

  it('plans again from its window on resume after a pause', async () => {
    const now = t.clock.now().getTime();
    const opening = Math.floor(now / HOUR_MS) * HOUR_MS + 2 * HOUR_MS;
    const hour = new Date(opening + MOSCOW_OFFSET_MS).getUTCHours();
    const prefix = '7916533';
    const { id } = await started(prefix, 3, { hours: [hour] });
    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'paused', messages: { sending: 3 } });
    t.clock.advance(30 * 60_000);
    expect((await api('POST', `/${id}/resume`)).status).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'scheduled', messages: { total: 3, sending: 3 } });
    await goesAtSpeedFrom(id, prefix, opening, 3);
  });
});
