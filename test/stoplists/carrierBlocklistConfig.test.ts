import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/configFile.js';
import type { ConfigError } from '../../src/config/index.js';
import { blocklistCodesOf } from '../../src/connectors/index.js';

const smpp = { id: 'smsc-a', type: 'smpp', host: '10.0.0.5', port: 2775, systemId: 'herald', password: 'secret' };
/** A declarative HTTP connector from a bundled profile (its request, response and status). */
const http = {
  id: 'vk-herald',
  type: 'http',
  profile: 'herald-vk',
  baseUrl: 'https://provider.example/api',
  secrets: { API_KEY: 'k', WEBHOOK: 'w' },
};

/** The carriers' blocklist codes (DESIGN 20), as HERALD_CONFIG states them: checked when Herald starts. */
describe('blocklistErrorCodes of connectors', () => {
  const problem = (data: unknown): string => {
    try {
      parseConfigFile(data);
      return 'taken';
    } catch (error) {
      return (error as ConfigError).message;
    }
  };

  it('takes a list of codes on SMPP and declarative HTTP connectors, and reads them per connector', () => {
    const file = parseConfigFile({
      connectors: [
        { ...smpp, blocklistErrorCodes: [453, 1045] },
        { ...smpp, id: 'smsc-b' },
        { ...http, blocklistErrorCodes: [7] },
      ],
    });
    expect(blocklistCodesOf(file.connectors)).toEqual(
      new Map([
        ['smsc-a', new Set([453, 1045])],
        ['vk-herald', new Set([7])],
      ]),
    );
  });

  it('refuses codes that are not a list of distinct non-negative integers, naming the setting', () => {
    for (const codes of ['453', [-1], [1.5], [453, 453], Array.from({ length: 101 }, (_, i) => i)])
      expect(problem({ connectors: [{ ...smpp, blocklistErrorCodes: codes }] })).toContain(
        'connectors[0].blocklistErrorCodes',
      );
    expect(problem({ connectors: [{ ...smpp, blocklistErrorCodes: [0, 453] }] })).toBe('taken');
  });
});
