import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { spawnHerald } from '../helpers/process.js';

/** A process migrating an embedded database takes 20 s on a quiet 2-core machine: room for a busy one. */
const PROCESS_TIMEOUT_MS = 120_000;

describe('herald command', () => {
  it('stops at start-up on a bad variable, naming it', async () => {
    const run = spawnHerald(['serve'], { HERALD_PORT: 'eighty' });
    expect(await run.exited()).toBe(78);
    expect(run.output()).toContain(
      'configuration error: HERALD_PORT: must be an integer from 0 to 65535 (got "eighty")',
    );
  });

  it('refuses an unknown role', async () => {
    const run = spawnHerald(['serve', '--role', 'both'], {
      HERALD_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'herald-cli-')),
    });
    expect(await run.exited()).toBe(78);
    expect(run.output()).toContain('--role: must be one of api, worker, all (got both)');
  });

  it(
    'migrates an embedded database and exits',
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-'));
      const first = spawnHerald(['migrate'], { HERALD_DATA_DIR: dataDir });
      expect(await first.exited()).toBe(0);
      expect(first.output()).toMatch(/applied migrations 1/);
      const second = spawnHerald(['migrate'], { HERALD_DATA_DIR: dataDir });
      expect(await second.exited()).toBe(0);
      expect(second.output()).toContain('database is up to date');
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'serves in demo mode, prints the tokens and a curl line, and stops on SIGTERM',
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-'));
      const run = spawnHerald(['serve'], { HERALD_DATA_DIR: dataDir, HERALD_PORT: '0' });
      const [, url] = await run.waitFor(/API:\s+(http:\/\/\S+)/);
      const [, token] = await run.waitFor(/TOKEN_1 \(traffic\): (\S+)/);
      await run.waitFor(/curl -s \S+\/api\/v1\/message -H 'Authorization: Basic \S+'/);
      const send = await call(url!, 'POST', '/api/v1/message', {
        token: token!,
        body: [{ channelType: 'SMS', senderName: 'Herald', destination: '79161234567', content: 'Hello' }],
      });
      expect(send.body.errors).toBe(false);
      run.child.kill('SIGTERM');
      expect(await run.exited()).toBe(0);
    },
    PROCESS_TIMEOUT_MS,
  );
});
