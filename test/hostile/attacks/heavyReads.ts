import type { Attack, Reply } from '../harness.js';

/** Concurrent heavy reads the attack keeps going: far more than Herald lets one account run at once (2 by default). */
export const HEAVY_READ_CONCURRENCY = 16;

/** Messages the attacker stores first, so that each read scans them: 2,000 make a read's statements 15-30 ms. */
const STORED = 2000;

export interface HeavyReadState {
  readonly accountId: number;
  readonly traffic: string;
  readonly system: string;
}

/**
 * The account's reads that scan its whole history, with small answers (the cost is the database's, not the
 * serialisation's): a list filtered on content that matches nothing, a list on two tags (its total counts them all),
 * statistics by tag and by day.
 */
const READS = [
  ['traffic', '/api/v1/message?content=no%20such%20text&per_page=10'],
  ['traffic', '/api/v1/message?tags=t1,t2&per_page=10'],
  ['system', '/api/v1/statistics?groupBy=tag'],
  ['system', '/api/v1/statistics'],
] as const;

/**
 * Finding 4 (issue 27): an account with a few thousand messages runs {@link HEAVY_READ_CONCURRENCY} heavy reads at
 * once, without end. On the embedded database, whose one connection served
 * statements first come first served, 16 such reads pushed another account's send p50 from 13 ms to 10 s.
 */
export const heavyReads = (): Attack<HeavyReadState, Reply> => ({
  name: 'concurrent heavy reads of one account',
  concurrency: HEAVY_READ_CONCURRENCY,
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    for (let batch = 0; batch < STORED / 1000; batch++) {
      const messages = Array.from({ length: 1000 }, (_, i) => ({
        channelType: 'SMS',
        senderName: 'Attacker',
        destination: `7916${String(batch).padStart(3, '0')}${String(i).padStart(4, '0')}`,
        content: `stored ${batch} ${i}`,
        tags: [`t${i % 10}`],
      }));
      const reply = await h.call('POST', '/api/v1/message', { token: attacker.traffic, body: messages });
      if (reply.status !== 200) throw new Error(`messages not stored: ${JSON.stringify(reply.body).slice(0, 300)}`);
    }
    return { accountId: attacker.id, traffic: attacker.traffic, system: attacker.system };
  },
  round: (h, state, round) => {
    const [token, path] = READS[round % READS.length]!;
    return h.call('GET', path, { token: state[token] });
  },
});
