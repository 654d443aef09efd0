import type { SmppConnectorConfig } from '../../src/connectors/connectorConfig.js';

/**
 * An SMPP connector to a test's SmscSimulator on loopback (system id `herald`, password `pw`): a window of 50, 5000
 * per second, reconnecting within half a second. `timings` changes its enquire_link and response timeouts.
 */
export function testSmppConnector(
  id: string,
  port: number,
  timings: Partial<Pick<SmppConnectorConfig, 'enquireLinkSeconds' | 'responseTimeoutSeconds'>> = {},
): SmppConnectorConfig {
  return {
    id,
    type: 'smpp',
    host: '127.0.0.1',
    port,
    systemId: 'herald',
    password: 'pw',
    systemType: '',
    window: 50,
    mps: 5000,
    enquireLinkSeconds: 30,
    responseTimeoutSeconds: 30,
    reconnectMinMs: 100,
    reconnectMaxMs: 500,
    ...timings,
  };
}
