import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { Receiver } from '../helpers/receiver.js';
import { untilCallbackRound } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

/** The samples of docs/clients, each with the interpreter that runs it and a check that it can. */
const SAMPLES = [
  { name: 'python', command: 'python3', file: 'docs/clients/python/herald_sample.py', probe: ['--version'] },
  // Debian's php-cli has no curl of its own: php-curl brings the extension (.ci/run installs both).
  {
    name: 'php',
    command: 'php',
    file: 'docs/clients/php/herald_sample.php',
    probe: ['-r', 'exit(extension_loaded("curl") ? 0 : 1);'],
  },
] as const;

const runs = (command: string, probe: readonly string[]): boolean =>
  spawnSync(command, probe, { stdio: 'ignore' }).status === 0;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, file: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      [file],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The PHP and Python samples of docs/clients run as their users would run them, against a running Herald with its
 * carrier simulators: each sends a batch and a cascade, reads a status, and verifies the signature of a callback
 * Herald really sent (to a real HTTP receiver). A sample whose interpreter is missing is skipped, but not in CI
 * (`CI` set: .ci/run installs php-cli, php-curl and python3), where that fails.
 */
describe('the client samples of docs/clients', () => {
  const installed = Object.fromEntries(SAMPLES.map((s) => [s.name, runs(s.command, s.probe)]));
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;
  let dir: string;
  let signed: { secret: string; bodyFile: string; tamperedFile: string; signature: string };

  beforeAll(async () => {
    if (!Object.values(installed).some(Boolean)) return;
    receiver = await new Receiver().start();
    // The clock runs from the real time: a signature older than 5 minutes is refused by the samples.
    t = await startTestHerald('pglite', {
      delivery: { delayMs: 5 },
      clock: new TestClock(new Date(), { flowing: true }),
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    account = await t.createAccount({ channels: { VK: true }, senderNames: [['SMS', SENDER]] });
    const secret = (await t.call('GET', '/api/v1/callback-secret', { token: account.system })).body.secret as string;
    const [id] = await t.send(account.traffic, [
      {
        channelType: 'SMS',
        senderName: SENDER,
        destination: '79161239000',
        content: 'Hi',
        callbackUrl: receiver.url,
        callbackEvents: ['sent'],
      },
    ]);
    const callback = await untilCallbackRound(t.herald, () =>
      receiver.received.find((r) => r.body?.[0]?.message_uuid === id),
    );
    dir = mkdtempSync(path.join(tmpdir(), 'herald-sample-'));
    signed = {
      secret,
      signature: String(callback.headers['x-herald-signature']),
      bodyFile: path.join(dir, 'callback.json'),
      tamperedFile: path.join(dir, 'tampered.json'),
    };
    writeFileSync(signed.bodyFile, callback.raw);
    writeFileSync(signed.tamperedFile, callback.raw.replace('"sent"', '"delivered"'));
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = (destination: string, extra: Record<string, string> = {}) => ({
    HERALD_URL: t.url,
    HERALD_TOKEN: account.traffic,
    HERALD_SENDER: SENDER,
    HERALD_DESTINATION: destination,
    HERALD_CALLBACK_SECRET: signed.secret,
    HERALD_CALLBACK_SIGNATURE: signed.signature,
    HERALD_CALLBACK_BODY_FILE: signed.bodyFile,
    ...extra,
  });

  describe.each(SAMPLES.map((sample, i) => ({ ...sample, i })))('$name', ({ name, command, file, i }) => {
    it(`has ${command} to run it`, () => {
      if (!installed[name] && !process.env.CI) return;
      expect(installed[name], `${command} (with what the sample needs) is not installed`).toBe(true);
    });

    it.skipIf(!installed[name])(
      'sends a batch and a cascade, reads a status and verifies a real callback signature',
      async () => {
        const { code, stdout, stderr } = await run(command, file, env(`791612391${i}0`));
        expect(code, stderr).toBe(0);
        const batch = /^batch: (\S+) (\S+)$/m.exec(stdout);
        const cascade = /^cascade: (\S+)$/m.exec(stdout);
        expect(batch, stdout).not.toBeNull();
        expect(cascade, stdout).not.toBeNull();
        for (const uuid of batch!.slice(1)) {
          const message = await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic });
          expect(message.status).toBe(200);
          expect(message.body).toMatchObject({ channelType: 'SMS', destination: `791612391${i}0` });
        }
        expect(stdout).toMatch(new RegExp(`^status ${batch![1]}: (sending|sent|delivered|undelivered|unsent)$`, 'm'));
        const chain = await t.call('GET', `/api/v1/message/cascade/${cascade![1]}`, { token: account.traffic });
        expect(chain.body).toMatchObject({ stepCount: 2, steps: [{ channelType: 'VK' }, { channelType: 'SMS' }] });
        expect(stdout).toMatch(/^callback signature: valid$/m);
        expect(stdout).toMatch(/^callback event: \S+ sent sent$/m);
      },
    );

    it.skipIf(!installed[name])('refuses a callback body that was changed, and reports a refused request', async () => {
      const tampered = await run(
        command,
        file,
        env(`791612392${i}0`, { HERALD_CALLBACK_BODY_FILE: signed.tamperedFile }),
      );
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toMatch(/^callback signature: INVALID$/m);
      const refused = await run(command, file, env(`791612393${i}0`, { HERALD_TOKEN: account.system }));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/Herald refused: 403 4030 Access Denied/);
    });
  });
});
