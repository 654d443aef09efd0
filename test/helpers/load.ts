import { call } from './http.js';

/** What a load run saw: the uuids of every 200 answer, and how every request ended. */
export interface Load {
  readonly accepted: string[];
  /** Per answer status, or 'network' for a request that got no answer. */
  readonly outcomes: Map<number | 'network', number>;
  /** The bodies and Retry-After headers of answers other than 200. */
  readonly refusals: { status: number; body: any; retryAfter: string | null }[];
  /** Stops sending and waits for the requests under way. */
  stop(): Promise<void>;
}

/**
 * Batches of SMS sent by `concurrency` clients back to back until stopped. Each message's text is
 * `<tag> <client>-<batch>-<index>`, so the database can be asked which batches it holds and whether whole.
 */
export function startLoad(
  url: () => string,
  token: string,
  options: {
    tag: string;
    batchSize: number;
    concurrency: number;
    senderName: string;
    callbackUrl?: string;
    /** A pause after each accepted batch too: a steady load below what the machine can take (default none). */
    pauseMs?: number;
  },
): Load {
  const load: Load = { accepted: [], outcomes: new Map(), refusals: [], stop: async () => undefined };
  let running = true;
  const count = (outcome: number | 'network'): void => {
    load.outcomes.set(outcome, (load.outcomes.get(outcome) ?? 0) + 1);
  };
  const client = async (clientNo: number): Promise<void> => {
    for (let batch = 0; running; batch++) {
      const body = Array.from({ length: options.batchSize }, (_, k) => ({
        channelType: 'SMS',
        senderName: options.senderName,
        // The last digit 0 asks the simulators for a delivery.
        destination:
          '7916' + String((clientNo * 100_003 + batch * options.batchSize + k) % 1_000_000).padStart(6, '0') + '0',
        content: `${options.tag} ${clientNo}-${batch}-${k}`,
        ...(options.callbackUrl ? { callbackUrl: options.callbackUrl } : {}),
      }));
      let answered = false;
      try {
        const reply = await call(url(), 'POST', '/api/v1/message', { token, body });
        count(reply.status);
        answered = reply.status === 200;
        if (answered) load.accepted.push(...reply.body.items.map((item: { messageUuid: string }) => item.messageUuid));
        else
          load.refusals.push({ status: reply.status, body: reply.body, retryAfter: reply.headers.get('retry-after') });
      } catch {
        count('network');
      }
      // A refused or unanswered client backs off a little, as a real one would.
      const pause = answered ? (options.pauseMs ?? 0) : Math.max(50, options.pauseMs ?? 0);
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  const clients = Array.from({ length: options.concurrency }, (_, i) => client(i));
  load.stop = async () => {
    running = false;
    await Promise.all(clients);
  };
  return load;
}
