import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../helpers/testHerald.js';

const REDOCLY = path.resolve('node_modules/.bin/redocly');
const CONFIG = path.resolve('redocly.yaml');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/**
 * Redocly's recommended rules (redocly.yaml: every rule turned off there says why) on the document a running Herald
 * serves: zero errors and zero warnings. The CLI runs from node_modules, offline: no telemetry, no update check.
 */
describe('the served /openapi.json passes redocly lint', () => {
  let t: TestHerald;
  let dir: string;
  beforeAll(async () => {
    t = await startTestHerald('pglite');
    dir = mkdtempSync(path.join(tmpdir(), 'herald-openapi-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('with zero errors and zero warnings', async () => {
    const reply = await t.call('GET', '/openapi.json');
    expect(reply.status).toBe(200);
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(reply.body));
    const run = await promisify(execFile)(
      REDOCLY,
      ['lint', file, '--config', CONFIG, '--format', 'json', '--max-problems', '1000'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      // Exit code 1 when it finds errors: the report is still on stdout.
      if (!error.stdout) throw new Error(`redocly lint did not run: ${error.message}\n${error.stderr ?? ''}`);
      return { stdout: error.stdout };
    });
    const report = JSON.parse(run.stdout) as LintReport;
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
