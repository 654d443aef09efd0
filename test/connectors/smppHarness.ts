import { logSink } from '../helpers/logs.js';
import pino from 'pino';
import type { SmppConnectorConfig } from '../../src/connectors/connectorConfig.js';
import type { CarrierReceipt, OutboundMessage, SubmitOutcome } from '../../src/connectors/connector.js';
import type { SmsInboundSink } from '../../src/connectors/smpp/smppDeliveries.js';
import { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { SmscSimulator, type SmscSimulatorOptions } from '../../src/simulators/smscSimulator.js';
import { TestClock } from '../helpers/clock.js';

/** A connector to a simulator on a real port, a test clock, the receipts it hands over and the lines it logs. */
export interface SmppHarness {
  readonly smsc: SmscSimulator;
  readonly connector: SmppConnector;
  readonly clock: TestClock;
  readonly receipts: CarrierReceipt[];
  readonly logs: { msg: string; error?: string; [key: string]: unknown }[];
  close(): Promise<void>;
}

export function smppConfig(port: number, options: Partial<SmppConnectorConfig> = {}): SmppConnectorConfig {
  return {
    id: 'smsc-test',
    type: 'smpp',
    host: '127.0.0.1',
    port,
    systemId: 'herald',
    password: 'pw',
    systemType: 'herald',
    window: 20,
    mps: 10_000,
    enquireLinkSeconds: 30,
    responseTimeoutSeconds: 5,
    reconnectMinMs: 200,
    reconnectMaxMs: 1000,
    ...options,
  };
}

export async function startSmpp(
  options: Partial<SmppConnectorConfig> = {},
  simulator: Partial<SmscSimulatorOptions> = {},
  setUp: (smsc: SmscSimulator) => void = () => undefined,
  inbound?: SmsInboundSink,
): Promise<SmppHarness> {
  const clock = new TestClock('2026-03-10T09:00:00Z');
  const smsc = new SmscSimulator({ systemId: 'herald', password: 'pw', delayMs: 10, clock, ...simulator });
  setUp(smsc);
  const port = await smsc.start();
  const receipts: CarrierReceipt[] = [];
  const logs: SmppHarness['logs'] = [];
  const stream = logSink((line) => logs.push(JSON.parse(line) as SmppHarness['logs'][0]));
  const connector = new SmppConnector(
    smppConfig(port, options),
    async (batch) => {
      receipts.push(...batch);
    },
    pino({ level: 'debug' }, stream),
    clock,
    inbound,
  );
  await connector.start();
  return {
    smsc,
    connector,
    clock,
    receipts,
    logs,
    close: async () => {
      await connector.stop();
      await smsc.stop();
    },
  };
}

/** An SMS to hand to a connector. */
export function sms(destination: string, content: string, id = `m-${destination}-${content.length}`): OutboundMessage {
  return {
    accountId: 1,
    id,
    channel: 'SMS',
    senderName: 'Herald',
    destination,
    content,
    totalParts: 1,
    ttlSeconds: 3600,
    externalMessageId: null,
    urgent: false,
  };
}

/** The carrier ids of an accepted outcome; fails the test on any other. */
export function acceptedIds(outcome: SubmitOutcome): readonly string[] {
  if (outcome.kind !== 'accepted') throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
  return outcome.carrierIds;
}
