import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Hello {name}', useLocalTime: false };
/** ISO 8601 UTC to the second, as every time of the API (DESIGN 4). */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * The dispatch list (DESIGN 12, 15): `total` counts exactly what its filters match, statuses read from the messages
 * included. An api Herald: no submitter, so a started dispatch's messages stay where their plan put them.
 */
describe.each(ENGINES)('dispatch list (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const ids: Record<string, string[]> = {};

  const api = (method: string, path: string, body?: unknown) =>
    t.call(method, `/api/v1/dispatch${path}`, { token: account.traffic, ...(body !== undefined ? { body } : {}) });
  const dispatch = async (
    status: string,
    fields: Record<string, unknown>,
    destinations: string[],
    ...changes: string[]
  ) => {
    // A second apart: the list is newest first.
    t.clock.advance(1000);
    const created = await api('POST', '', { dispatchName: status, ...SMS, ...fields });
    const id: string = created.body.dispatchId;
    if (destinations.length > 0)
      await api(
        'POST',
        `/${id}/messages`,
        destinations.map((destination) => ({ destination, substitutions: { name: 'x' } })),
      );
    for (const change of changes) expect((await api('POST', `/${id}/${change}`)).status).toBe(200);
    (ids[status] ??= []).unshift(id);
  };

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    // 12:00 in Moscow: hour 20 is ahead.
    const later = { hours: [20] };
    await dispatch('initiated', {}, ['79165400010']);
    await dispatch('done', {}, [], 'start');
    await dispatch('scheduled', later, ['79165400020'], 'start');
    await dispatch('sending', {}, ['79165400030'], 'start');
    await dispatch('done', {}, [], 'start');
    await dispatch('paused', later, ['79165400040'], 'start', 'pause');
    await dispatch('stopped', {}, ['79165400050'], 'stop');
  });
  afterAll(async () => t?.close());

  it.each(['initiated', 'scheduled', 'sending', 'awaiting', 'done', 'paused', 'stopped'])(
    'status=%s: total counts the dispatches in that status, and the page lists them',
    async (status) => {
      const expected = ids[status] ?? [];
      const reply = await api('GET', `?status=${status}`);
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(expected.length);
      expect(reply.body.items.map((i: { dispatchId: string }) => i.dispatchId)).toEqual(expected);
      for (const item of reply.body.items) expect(item.status).toBe(status);
    },
  );

  it('pages a status read from the messages', async () => {
    const [newer, older] = ids.done!;
    const first = await api('GET', '?status=done&per_page=1');
    const second = await api('GET', '?status=done&per_page=1&page=2');
    const third = await api('GET', '?status=done&per_page=1&page=3');
    expect(first.body).toMatchObject({ total: 2, items: [{ dispatchId: newer }] });
    expect(second.body).toMatchObject({ total: 2, items: [{ dispatchId: older }] });
    expect(third.body).toEqual({ total: 2, items: [] });
    const all = await api('GET', '');
    expect(all.body.total).toBe(7);
  });

  it('shows its times as ISO 8601 UTC to the second', async () => {
    const [id] = ids.scheduled!;
    const one = await api('GET', `/${id}`);
    expect(one.body.created).toMatch(TIME);
    const list = await api('GET', '');
    for (const item of list.body.items) expect(item.created).toMatch(TIME);
  });
});
