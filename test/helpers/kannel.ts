import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../ha/servers.js';
import { waitFor } from './waitFor.js';

/**
 * Kannel (Debian's `kannel`: bearerbox and smsbox) as an SMPP client written by others: a bearerbox whose one SMSC
 * link binds as a transceiver to the SMPP server a test names (Herald's SMSC simulator, or Herald's own SMPP server),
 * and an smsbox whose sendsms HTTP interface takes messages with a dlr-url. Both run on free loopback ports with a
 * configuration of the test's own in a temporary directory, messages and receipts' lookup entries kept in spool
 * directories there, so that a bearerbox killed with SIGKILL and started again resends what it had not sent and
 * still knows the receipts of what it had. `.ci/run` installs the package; a test skips itself without it.
 */
export const KANNEL_BINARIES = { bearerbox: '/usr/sbin/bearerbox', smsbox: '/usr/sbin/smsbox' } as const;
export const kannelInstalled = (): boolean => Object.values(KANNEL_BINARIES).every((file) => existsSync(file));

/** The SMPP server Kannel binds to: `smsc-username` is SMPP's system_id. */
export interface KannelSmsc {
  readonly host: string;
  readonly port: number;
  readonly systemId: string;
  readonly password: string;
}

export interface KannelOptions {
  readonly smsc: KannelSmsc;
  /**
   * `max-pending-submits`: submit_sm in flight without their submit_sm_resp, Kannel's window (its default, 10, is
   * what its guide recommends; a benchmark may widen it as Herald's own connector does).
   */
  readonly window?: number;
  /** How long a start may take (processes up, the link bound): 30 s by default. */
  readonly startTimeoutMs?: number;
  /**
   * Where bearerbox keeps messages and the receipts' lookup: `spool` (the default: directories that survive a kill
   * -9) or `memory` (no store, `dlr-storage = internal`: Kannel's fastest setting, which loses both at a crash).
   */
  readonly store?: 'spool' | 'memory';
}

/** One sendsms request: Kannel's answer (202 "Accepted for delivery" or "Queued for later delivery"). */
export interface SendsmsAnswer {
  readonly status: number;
  readonly body: string;
}

/** The bit mask of the receipts asked for: 1 delivered, 2 undelivered, 4 buffered, 8 SMSC accepted, 16 refused. */
export const DLR_MASK_ALL = 31;

export interface Kannel {
  /** The sendsms interface: `${sendsmsUrl}?username=...`. */
  readonly sendsmsUrl: string;
  readonly adminUrl: string;
  /** Sends one SMS through smsbox's sendsms with `dlr-mask` (31 unless given) and `dlr-url`. */
  sendsms(message: {
    to: string;
    from: string;
    text: string;
    dlrUrl: string;
    dlrMask?: number;
  }): Promise<SendsmsAnswer>;
  /** The SMSC link's state from bearerbox's status.xml (`online`, `connecting`, `re-connecting`, ...). */
  smscState(): Promise<string | undefined>;
  /** Waits until the link is bound and the smsbox connected to bearerbox. */
  waitOnline(timeoutMs?: number): Promise<void>;
  /** SIGKILL to both boxes at once, as a crash of the machine's Kannel: nothing is flushed or unbound. */
  kill(): Promise<void>;
  /** Starts both boxes again on the same ports, configuration and spools, and waits until online. */
  restart(): Promise<void>;
  /** The boxes' own process ids (bearerbox first), for a benchmark that reads their CPU time. */
  pids(): number[];
  /** The last lines of each box's log, for a failing test's message. */
  logs(): string;
  /** Kills both boxes if they run and removes the directory. Never throws; safe to call twice. */
  stop(): Promise<void>;
}

/** The SMSC link's id in the configuration and in status.xml. */
const SMSC_ID = 'upstream';
const SENDSMS_USER = { username: 'herald-test', password: 'kannel-test' } as const;
/** The admin password (status.xml needs none, the commands do): loopback only. */
const ADMIN_PASSWORD = 'kannel-admin';
/**
 * Seconds between bind attempts after a lost or refused bind (Kannel's default: 10): a restarted SMSC or Kannel is
 * bound again within a second, so a test waits on the bind rather than on Kannel's timer.
 */
const RECONNECT_DELAY_S = 1;
/** A box left behind by a crashed test process is not killed by anyone: it runs under timeout(1) for this long. */
const BOX_LIFETIME_S = 1800;
const DEFAULT_START_TIMEOUT_MS = 30_000;
/** Characters of each box's log kept for a failing test's message. */
const LOG_TAIL = 6000;

/** Kannel's configuration file: the core (bearerbox), the SMPP link, the smsbox and its sendsms user. */
function configuration(dir: string, ports: Ports, options: KannelOptions): string {
  const { smsc } = options;
  const groups: Record<string, string | number>[] = [
    {
      group: 'core',
      'admin-port': ports.admin,
      'admin-interface': '127.0.0.1',
      'admin-password': ADMIN_PASSWORD,
      'admin-allow-ip': '127.0.0.1',
      'smsbox-port': ports.smsbox,
      'smsbox-interface': '127.0.0.1',
      'box-allow-ip': '127.0.0.1',
      'log-file': path.join(dir, 'bearerbox.log'),
      'log-level': 1,
      'access-log': path.join(dir, 'access.log'),
      ...(options.store === 'memory'
        ? { 'dlr-storage': 'internal' }
        : {
            // Messages not yet acknowledged by the SMSC (and receipts not yet taken by smsbox) survive a kill -9.
            'store-type': 'spool',
            'store-location': path.join(dir, 'store'),
            // The lookup from an SMSC's message id to the message's dlr-url and mask, read when the receipt comes.
            'dlr-storage': 'spool',
            'dlr-spool': path.join(dir, 'dlr'),
          }),
      // A message the SMSC refused for now (throttling) is tried again a second later, not a minute.
      'sms-resend-freq': 1,
    },
    {
      group: 'smsc',
      smsc: 'smpp',
      'smsc-id': SMSC_ID,
      'smsc-admin-id': SMSC_ID,
      host: smsc.host,
      port: smsc.port,
      'transceiver-mode': 'true',
      'smsc-username': smsc.systemId,
      'smsc-password': smsc.password,
      'system-type': '',
      'address-range': '',
      'reconnect-delay': RECONNECT_DELAY_S,
      'enquire-link-interval': 30,
      'max-pending-submits': options.window ?? 10,
      // International numbers as given (TON 1, NPI 1), alphanumeric senders detected (TON 5).
      'source-addr-autodetect': 'true',
      'dest-addr-ton': 1,
      'dest-addr-npi': 1,
    },
    {
      group: 'smsbox',
      'bearerbox-host': '127.0.0.1',
      'bearerbox-port': ports.smsbox,
      'sendsms-port': ports.sendsms,
      'sendsms-interface': '127.0.0.1',
      'log-file': path.join(dir, 'smsbox.log'),
      'log-level': 1,
    },
    {
      group: 'sendsms-user',
      username: SENDSMS_USER.username,
      password: SENDSMS_USER.password,
      'max-messages': 10,
      concatenation: 'true',
    },
    // smsbox wants a service for mobile-originated messages; these tests send none and answer none.
    { group: 'sms-service', keyword: 'default', 'catch-all': 'true', 'max-messages': 0, text: 'unused' },
  ];
  return groups
    .map((group) =>
      Object.entries(group)
        .map(([key, value]) => `${key} = ${typeof value === 'number' ? value : JSON.stringify(value)}`)
        .join('\n'),
    )
    .join('\n\n')
    .concat('\n');
}

interface Ports {
  readonly admin: number;
  readonly smsbox: number;
  readonly sendsms: number;
}

interface Box {
  readonly name: 'bearerbox' | 'smsbox';
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  output: string;
}

/** Starts bearerbox and smsbox bound to `options.smsc`; throws (with the logs) if the link is not online in time. */
export async function startKannel(options: KannelOptions): Promise<Kannel> {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-kannel-'));
  for (const spool of ['store', 'dlr']) mkdirSync(path.join(dir, spool));
  const ports: Ports = { admin: await freePort(), smsbox: await freePort(), sendsms: await freePort() };
  const configPath = path.join(dir, 'kannel.conf');
  writeFileSync(configPath, configuration(dir, ports, options));
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const adminUrl = `http://127.0.0.1:${ports.admin}`;
  const sendsmsUrl = `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`;
  let boxes: Box[] = [];
  let stopped = false;

  const launch = (name: Box['name']): Box => {
    // In the foreground under timeout(1) (no pid files, no daemon): the test holds its pid and its output.
    const child = spawn('timeout', ['-s', 'KILL', String(BOX_LIFETIME_S), KANNEL_BINARIES[name], configPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: dir,
      // Its own process group: a kill reaches timeout(1) and the box alike.
      detached: true,
    });
    const box: Box = {
      name,
      child,
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
      output: '',
    };
    const onData = (chunk: Buffer): void => {
      box.output = (box.output + chunk.toString()).slice(-LOG_TAIL);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', (error) => onData(Buffer.from(`spawn failed: ${error.message}\n`)));
    return box;
  };
  const running = (box: Box): boolean => box.child.exitCode === null && box.child.signalCode === null;
  // Synchronous, so that it also runs from an 'exit' handler: a test process that dies leaves no box behind.
  const killAll = (): void => {
    for (const box of boxes)
      if (box.child.pid && running(box)) {
        try {
          process.kill(-box.child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
  };
  process.once('exit', killAll);

  const tail = (file: string): string => {
    try {
      return readFileSync(path.join(dir, file), 'utf8').slice(-LOG_TAIL);
    } catch {
      return '(no log)';
    }
  };
  const logs = (): string =>
    [
      ...boxes.map((b) => `--- ${b.name} output${running(b) ? '' : ' (exited)'}\n${b.output}`),
      `--- bearerbox.log\n${tail('bearerbox.log')}`,
      `--- smsbox.log\n${tail('smsbox.log')}`,
    ].join('\n');

  const statusXml = async (): Promise<string | undefined> => {
    try {
      const response = await fetch(`${adminUrl}/status.xml`, { signal: AbortSignal.timeout(2000) });
      return response.ok ? await response.text() : undefined;
    } catch {
      return undefined;
    }
  };
  const smscState = async (): Promise<string | undefined> => {
    const xml = await statusXml();
    // <smsc><name>...</name><admin-id>upstream</admin-id><id>upstream</id><status>online 12s</status>...
    const smsc = xml && /<smsc>([\s\S]*?)<\/smsc>/.exec(xml)?.[1];
    return smsc ? /<status>([^<\s]+)/.exec(smsc)?.[1] : undefined;
  };
  const smsboxConnected = async (): Promise<boolean> => {
    const xml = await statusXml();
    return xml !== undefined && /<box>\s*<type>smsbox<\/type>/.test(xml);
  };
  const waitOnline = async (timeoutMs = startTimeoutMs): Promise<void> => {
    let state: string | undefined;
    await waitFor(
      async () => {
        if (!boxes.every(running)) throw new Error(`a Kannel box exited:\n${logs()}`);
        state = await smscState();
        return state === 'online' && (await smsboxConnected());
      },
      { timeoutMs, intervalMs: 100, describe: () => `Kannel's SMSC link is ${state ?? 'unknown'}:\n${logs()}` },
    );
  };
  const start = async (): Promise<void> => {
    const bearerbox = launch('bearerbox');
    boxes = [bearerbox];
    // smsbox gives up at once when bearerbox does not listen yet: it starts once the admin port answers.
    await waitFor(
      async () => {
        if (!running(bearerbox)) throw new Error(`bearerbox exited:\n${logs()}`);
        return (await statusXml()) !== undefined;
      },
      { timeoutMs: startTimeoutMs, intervalMs: 50, describe: logs },
    );
    boxes.push(launch('smsbox'));
    await waitOnline();
  };
  const kill = async (): Promise<void> => {
    killAll();
    await Promise.all(boxes.map((b) => b.exited));
  };

  const kannel: Kannel = {
    sendsmsUrl,
    adminUrl,
    async sendsms({ to, from, text, dlrUrl, dlrMask = DLR_MASK_ALL }) {
      const query = new URLSearchParams({
        ...SENDSMS_USER,
        to,
        from,
        text,
        'dlr-mask': String(dlrMask),
        'dlr-url': dlrUrl,
      });
      const response = await fetch(`${sendsmsUrl}?${query.toString()}`, { signal: AbortSignal.timeout(10_000) });
      return { status: response.status, body: await response.text() };
    },
    smscState,
    waitOnline,
    kill,
    async restart() {
      await kill();
      await start();
    },
    pids: () =>
      boxes.flatMap((box) => {
        // timeout(1)'s one child.
        const pid = box.child.pid;
        const children = pid ? readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() : '';
        return children ? children.split(' ').map(Number) : [];
      }),
    logs,
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill();
      process.removeListener('exit', killAll);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await start();
  } catch (error) {
    await kannel.stop();
    throw error;
  }
  return kannel;
}
