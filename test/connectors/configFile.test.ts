import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfigFile, parseConfigFile } from '../../src/config/configFile.js';

const smpp = { id: 'smsc-a', type: 'smpp', host: '10.0.0.5', port: 2775, systemId: 'herald', password: 'secret' };

describe('HERALD_CONFIG: connectors and routes', () => {
  it('reads YAML and JSON files and fills defaults', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-config-'));
    writeFileSync(
      path.join(dir, 'herald.yaml'),
      [
        'connectors:',
        '  - id: smsc-a',
        '    type: smpp',
        '    host: 10.0.0.5',
        '    port: 2775',
        '    systemId: herald',
        '    password: secret',
        'routes:',
        '  - channel: SMS',
        '    connectors: [smsc-a]',
      ].join('\n'),
    );
    const file = loadConfigFile(path.join(dir, 'herald.yaml'));
    expect(file.connectors[0]).toMatchObject({
      ...smpp,
      window: 100,
      mps: 1000,
      enquireLinkSeconds: 30,
      responseTimeoutSeconds: 10,
    });
    expect(file.routes).toEqual([{ channel: 'SMS', prefixes: [], connectors: ['smsc-a'] }]);
    writeFileSync(
      path.join(dir, 'herald.json'),
      JSON.stringify({ connectors: [smpp], routes: [{ channel: 'SMS', prefixes: ['7'], connectors: ['smsc-a'] }] }),
    );
    expect(loadConfigFile(path.join(dir, 'herald.json')).routes[0]!.prefixes).toEqual(['7']);
  });

  it.each([
    [{ connectors: [{ ...smpp, port: 70000 }] }, /connectors\[0\]\.port/],
    [{ connectors: [{ ...smpp, type: 'kannel' }] }, /connectors\[0\]/],
    [{ connectors: [smpp, smpp] }, /connector id smsc-a is used twice/],
    [
      { connectors: [smpp], routes: [{ channel: 'SMS', connectors: ['nope'] }] },
      /routes\[0\] names unknown connector nope/,
    ],
    [
      { connectors: [smpp], routes: [{ channel: 'VK', connectors: ['smsc-a'] }] },
      /routes\[0\] is for VK but connector smsc-a carries SMS/,
    ],
    [
      { connectors: [smpp], routes: [{ channel: 'SMS', prefixes: ['+7'], connectors: ['smsc-a'] }] },
      /routes\[0\]\.prefixes\[0\]/,
    ],
    [{ connectros: [] }, /connectros: unknown setting/],
  ])('refuses %j naming the problem', (data, message) => {
    let error: unknown;
    try {
      parseConfigFile(data, 'herald.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('HERALD_CONFIG');
    expect((error as Error).message).toMatch(message);
  });

  it('takes TELEGRAM connectors with their defaults, and refuses each one missing or wrong (DESIGN 18)', () => {
    const bot = { id: 'tg-bot', type: 'telegram-bot', publicUrl: 'https://herald.example.com' };
    const gateway = { id: 'tg-gw', type: 'telegram-gateway', token: 'AAH-gateway-token' };
    const file = parseConfigFile({
      connectors: [bot, gateway],
      routes: [{ channel: 'TELEGRAM', connectors: ['tg-bot', 'tg-gw'] }],
    });
    expect(file.connectors).toEqual([
      expect.objectContaining({
        ...bot,
        baseUrl: 'https://api.telegram.org',
        simulatedLinks: false,
        timeoutSeconds: 15,
      }),
      expect.objectContaining({ ...gateway, baseUrl: 'https://gatewayapi.telegram.org' }),
    ]);
    const problem = (data: unknown) => {
      try {
        parseConfigFile(data);
        return 'taken';
      } catch (error) {
        return (error as ConfigError).message;
      }
    };
    expect(problem({ connectors: [{ id: 'tg-gw', type: 'telegram-gateway' }] })).toContain('connectors[0]');
    expect(problem({ connectors: [{ id: 'tg-gw', type: 'telegram-gateway' }] })).toContain('token');
    expect(problem({ connectors: [{ ...bot, publicUrl: 'herald.example.com' }] })).toContain('connectors[0].publicUrl');
    expect(problem({ connectors: [smpp], routes: [{ channel: 'TELEGRAM', connectors: ['smsc-a'] }] })).toContain(
      'routes[0] is for TELEGRAM but connector smsc-a carries SMS',
    );
    expect(problem({ connectors: [bot], routes: [{ channel: 'TELEGRAM', connectors: ['tg-bot'] }] })).toBe('taken');
  });

  it('refuses a file that is not there or not valid', () => {
    expect(() => loadConfigFile('/nonexistent/herald.json')).toThrow(/HERALD_CONFIG: cannot read/);
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-config-'));
    writeFileSync(path.join(dir, 'bad.json'), '{');
    expect(() => loadConfigFile(path.join(dir, 'bad.json'))).toThrow(/is not valid JSON/);
  });
});
