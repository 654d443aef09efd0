import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { Pool } from 'undici';
import {
  type BenchFigure,
  type BenchSchema,
  createBenchSchema,
  startHeraldProcess,
  startSmsSimulators,
  watchCpu,
  BENCH_ADMIN_TOKEN,
} from './lib.js';

export interface DispatchBenchOptions {
  /** Messages added to the dispatch (and posted as plain messages, for the comparison). */
  readonly messages: number;
  readonly clients: number;
  /** The dispatch's speed, per minute, and the slice its send rate is measured on. */
  readonly perMinute: number;
  readonly sliceSeconds: number;
}

const SENDER = 'Bench';
const PER_CALL = 1000;
const TEXT = 'Hello {name}, your code is {code} at {shop}. It is valid for 5 minutes.';
/** After the start, the send rate is measured from this much later: the start plans every message in one go. */
const WARMUP_MS = 10_000;

/** The i-th destination (last digit 0: delivered by the SMSC simulator) and its three substitutions. */
const entry = (i: number) => ({
  destination: `7916${String(i % 1_000_000).padStart(6, '0')}0`,
  substitutions: { name: `Client${i}`, code: String(i % 10_000).padStart(4, '0'), shop: `Shop ${i % 97}` },
});

/**
 * Dispatch: `messages` destinations added to one dispatch through the API, 1000 per call with three substitutions
 * each, by `clients` concurrent clients, against the plain ingest of as many SMS with the same texts already filled
 * in (1000-message POST /api/v1/message batches, the same clients), each in a fresh schema of the same PostgreSQL,
 * Herald api processes alone (nothing is sent meanwhile). Then the dispatch (created with a speed of `perMinute`)
 * starts with a worker process and the SMSC simulator, and its send rate is measured on the simulator over a
 * `sliceSeconds` slice, from 10 s after the start's answer.
 */
export async function benchDispatch(options: DispatchBenchOptions): Promise<BenchFigure[]> {
  const context = () => `1-min load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;
  process.stdout.write(`  before: ${context()}; busiest processes: ${busiest()}\n`);

  const plainSchema = await createBenchSchema();
  let plain: { perSecond: number; seconds: number; load: string };
  try {
    plain = await plainIngest(plainSchema, options);
  } finally {
    await plainSchema.drop();
  }
  process.stdout.write(
    `  plain ingest: ${Math.round(plain.perSecond)} msg/s (${plain.seconds.toFixed(1)} s, ${plain.load})\n`,
  );

  const schema = await createBenchSchema();
  const { simulators, configPath } = await startSmsSimulators();
  const env = { ...heraldEnv(schema), HERALD_CONFIG: configPath };
  const api = await startHeraldProcess('api', env);
  let worker: Awaited<ReturnType<typeof startHeraldProcess>> | undefined;
  const http = new Pool(api.url, { connections: options.clients });
  try {
    const token = await createAccount(http);
    const created = await call(http, token, 'POST', '/api/v1/dispatch', {
      dispatchName: 'Bench',
      channelType: 'SMS',
      senderName: SENDER,
      content: TEXT,
      speed: { amount: options.perMinute, unit: 'minute' },
    });
    const id = created.dispatchId as string;
    const cpu = watchCpu(api.child.pid!);
    const added = await inCalls(options, async (first, size) => {
      const items = (await call(
        http,
        token,
        'POST',
        `/api/v1/dispatch/${id}/messages`,
        Array.from({ length: size }, (_, k) => entry(first + k)),
      )) as { messageUuid?: string }[];
      const refused = items.filter((item) => !item.messageUuid);
      if (refused.length > 0) throw new Error(`dispatch: entries refused: ${JSON.stringify(refused[0])}`);
    });
    const used = cpu.stop();
    const addRate = options.messages / added;
    process.stdout.write(
      `  dispatch add: ${Math.round(addRate)} msg/s (${added.toFixed(1)} s, ${context()}, ` +
        `Herald ${((used.processSeconds * 1000) / options.messages).toFixed(3)} CPU ms per message)\n`,
    );

    worker = await startHeraldProcess('worker', env, /SMPP session bound/);
    const startAsked = performance.now();
    await call(http, token, 'POST', `/api/v1/dispatch/${id}/start`, undefined);
    const startSeconds = (performance.now() - startAsked) / 1000;
    process.stdout.write(`  started in ${startSeconds.toFixed(1)} s; measuring ${options.sliceSeconds} s...\n`);
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const sent = (): number => simulators.smsc.submissions.length;
    const n0 = sent();
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.sliceSeconds * 1000));
    const n1 = sent();
    const t1 = performance.now();
    const perMinute = ((n1 - n0) / (t1 - t0)) * 60_000;
    const error = (Math.abs(perMinute - options.perMinute) / options.perMinute) * 100;
    process.stdout.write(
      `  sent ${n1 - n0} in ${((t1 - t0) / 1000).toFixed(1)} s; after: ${context()}; busiest processes: ${busiest()}\n`,
    );

    return [
      {
        name: 'dispatch: messages added',
        value: addRate,
        unit: 'msg/s',
        note: `${options.messages} in ${PER_CALL}-entry calls, 3 substitutions each, ${options.clients} clients`,
      },
      {
        name: 'dispatch: plain ingest, same run',
        value: plain.perSecond,
        unit: 'msg/s',
        note: `${options.messages} SMS in ${PER_CALL}-message batches, ${options.clients} clients`,
      },
      {
        name: 'dispatch: added / plain ingest',
        value: (addRate / plain.perSecond) * 100,
        unit: '%',
        target: { op: '>=', value: 60 },
      },
      {
        name: 'dispatch: start (plans every message)',
        value: startSeconds,
        unit: 's',
        note: `${options.messages} messages`,
      },
      {
        name: `dispatch: send rate at ${options.perMinute}/minute`,
        value: perMinute,
        unit: '/min',
        note: `${n1 - n0} submits on the SMSC over ${((t1 - t0) / 1000).toFixed(0)} s`,
      },
      {
        name: 'dispatch: send rate off its speed',
        value: error,
        unit: '%',
        target: { op: '<=', value: 5 },
        note: context(),
      },
    ];
  } finally {
    await http.close();
    await api.stop();
    await worker?.stop();
    await simulators.stop();
    await schema.drop();
  }
}

/** The plain ingest of as many messages, texts filled in, in a schema of its own: messages per second. */
async function plainIngest(
  schema: BenchSchema,
  options: DispatchBenchOptions,
): Promise<{ perSecond: number; seconds: number; load: string }> {
  const api = await startHeraldProcess('api', heraldEnv(schema));
  const http = new Pool(api.url, { connections: options.clients });
  try {
    const token = await createAccount(http);
    const seconds = await inCalls(options, async (first, size) => {
      const body = Array.from({ length: size }, (_, k) => {
        const { destination, substitutions: s } = entry(first + k);
        const content = TEXT.replace('{name}', s.name).replace('{code}', s.code).replace('{shop}', s.shop);
        return { channelType: 'SMS', senderName: SENDER, destination, content };
      });
      const reply = (await call(http, token, 'POST', '/api/v1/message', body)) as { errors: boolean };
      if (reply.errors) throw new Error('plain ingest: messages refused');
    });
    return { perSecond: options.messages / seconds, seconds, load: `1-min load ${os.loadavg()[0]!.toFixed(1)}` };
  } finally {
    await http.close();
    await api.stop();
  }
}

/** Runs `post` over the messages in calls of 1000 by `clients` concurrent clients; returns the seconds it took. */
async function inCalls(
  options: DispatchBenchOptions,
  post: (first: number, size: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (next < options.messages) {
        const first = next;
        next += PER_CALL;
        await post(first, Math.min(PER_CALL, options.messages - first));
      }
    }),
  );
  return (performance.now() - start) / 1000;
}

function heraldEnv(schema: BenchSchema): Record<string, string> {
  return {
    DATABASE_URL: schema.url,
    HERALD_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    HERALD_PORT: '0',
    HERALD_DB_POOL_SIZE: '8',
  };
}

async function createAccount(http: Pool): Promise<string> {
  const admin = async (p: string, body: unknown): Promise<any> => {
    const response = await http.request({
      method: 'POST',
      path: p,
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return response.body.json();
  };
  const account = await admin('/admin/v1/accounts', { name: 'bench dispatch' });
  await admin(`/admin/v1/accounts/${account.id}/sender-names`, { channelType: 'SMS', name: SENDER });
  return account.tokens.traffic as string;
}

async function call(http: Pool, token: string, method: string, p: string, body: unknown): Promise<any> {
  const response = await http.request({
    method: method as 'POST',
    path: p,
    headers: {
      authorization: `Basic ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${p}: ${response.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The machine's busiest processes (what else ran): top's second sample, a second long. */
function busiest(): string {
  try {
    const lines = execFileSync('top', ['-b', '-n', '2', '-d', '1', '-w', '200'], { encoding: 'utf8' }).split('\n');
    const header = lines.findLastIndex((l) => /PID\s+USER/.test(l));
    return lines
      .slice(header + 1, header + 7)
      .map((l) => l.trim().split(/\s+/))
      .map((f) => `${f[11]} ${f[8]}%`)
      .join(', ');
  } catch {
    return 'unknown (no top)';
  }
}
