import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtIsFresh } from '../helpers/built.js';
import { call } from '../helpers/http.js';
import { spawnHerald } from '../helpers/process.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * `npm start` runs the compiled JavaScript, which the in-process tests (on the TypeScript sources) do not: module
 * resolution and package exports can differ between the two. This builds Herald as `npm run build` does and runs
 * the result in demo mode with its simulators, as an operator's first start would.
 */
describe('the built Herald (npm start)', () => {
  it('builds, starts on its embedded database with the simulators and a demo account, delivers an SMS', async () => {
    // Built again only when a source changed since dist/ was built: a fresh clone's `npm ci` has just built it (and
    // fails if it cannot), and a build empties dist/public under the browser tests running beside this one.
    if (!builtIsFresh()) await promisify(execFile)('npm', ['run', 'build', '--silent'], { timeout: 120_000 });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-built-'));
    const herald = spawnHerald(
      ['serve'],
      { HERALD_DATA_DIR: dataDir, HERALD_PORT: '0', HERALD_SIM_DELAY_MS: '20' },
      { built: true },
    );
    try {
      const [, url] = await herald.waitFor(/listening at (http:\/\/[^"\s]+)/, 60_000);
      // The launcher line's node flag and malloc thresholds reached the process (docs/operations.md).
      const proc = (file: string): string[] => readFileSync(`/proc/${herald.child.pid}/${file}`, 'utf8').split('\0');
      expect(proc('cmdline')).toContain('--max-semi-space-size=128');
      expect(proc('environ')).toEqual(
        expect.arrayContaining(['MALLOC_MMAP_THRESHOLD_=4194304', 'MALLOC_TRIM_THRESHOLD_=1048576']),
      );
      const [, token] = await herald.waitFor(/TOKEN_1 \(traffic\): (\S+)/);
      const sent = await call(url!, 'POST', '/api/v1/message', {
        token: token!,
        body: [
          {
            channelType: 'SMS',
            senderName: 'Herald',
            destination: '+7 916 123-45-61',
            content: 'Hello from the built Herald',
          },
        ],
      });
      expect(sent.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
      const id = sent.body.items[0].messageUuid;
      const delivered = await waitFor(
        async () => {
          const message = await call(url!, 'GET', `/api/v1/message/${id}`, { token: token! });
          return message.body.status === 'delivered' ? message.body : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(delivered).toMatchObject({ destination: '79161234561', country: 'RU', totalParts: 1 });
    } finally {
      herald.child.kill('SIGTERM');
      expect(await herald.exited()).toBe(0);
    }
  }, 180_000);
});
