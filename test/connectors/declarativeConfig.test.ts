import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/configFile.js';
import {
  compileHttpConnector,
  HttpConnectorConfigError,
  type HttpConnectorSettings,
} from '../../src/connectors/http/declarative/httpConnectorConfig.js';
import { renderJson, renderString } from '../../src/connectors/http/declarative/templates.js';
import { DeclarativeConnector } from '../../src/connectors/http/declarative/declarativeConnector.js';
import { statusReportBody, statusReports } from '../../src/connectors/http/declarative/statusReports.js';

/** A VK provider described as an operator would: JSON in, an id out, statuses by a signed webhook. */
const VALID: HttpConnectorSettings = {
  id: 'vk-provider',
  type: 'http',
  channel: 'VK',
  baseUrl: 'https://api.provider.example/v6',
  secrets: { LOGIN: 'shop', PASSWORD: 'pa55', HOOK: 'hook-key' },
  request: {
    method: 'POST',
    path: '/messages/{messageUuid}',
    headers: { Authorization: 'Basic {secret:PASSWORD}' },
    body: {
      id: '{messageUuid}',
      destination: '{destination}',
      message: {
        type: 'VK',
        data: { text: '{text}', serviceNumber: '{senderName}', ttl: '{ttl}', ttlUnit: 'SECONDS' },
      },
      notifyUrl: '{statusUrl}',
    },
  },
  response: {
    successStatus: [200, 201],
    id: '$.id',
    errorCode: '$.error.code',
    permanent: ['INVALID_DESTINATION', 2],
    transient: [429, 'THROTTLED'],
    price: '$.price',
  },
  status: {
    webhook: {
      signature: { kind: 'hmac-sha256', header: 'X-Signature', secret: 'HOOK', prefix: 'sha256=' },
      items: '$.reports[*]',
      id: '$.id',
      status: '$.status',
      errorCode: '$.reason',
    },
    map: { '0': 'sent', '2': 'delivered', '5': 'undelivered', '9': 'read' },
  },
};

/** The message of the refusal of `settings` (VALID changed), or 'taken'. */
function problem(change: (s: HttpConnectorSettings) => void): string {
  const settings = structuredClone(VALID) as HttpConnectorSettings;
  change(settings);
  try {
    compileHttpConnector(settings, 'connectors[3]');
    return 'taken';
  } catch (error) {
    expect(error).toBeInstanceOf(HttpConnectorConfigError);
    return (error as Error).message;
  }
}

const POLL = { items: '$[*]', id: '$.id', status: '$.status' };

describe('declarative HTTP connectors: settings read at start-up (DESIGN 19)', () => {
  it('reads a valid connector: templates fill, the status map is Herald-side', () => {
    const compiled = compileHttpConnector(VALID, 'connectors[3]');
    const values = { messageUuid: 'u-1', destination: '79161234567', text: 'Hi', senderName: 'club1', ttl: 600 };
    expect(renderString(compiled.request.path, values, VALID.secrets!, true)).toBe('/messages/u-1');
    expect(
      renderJson(compiled.request.body!, { ...values, statusUrl: 'https://h/webhooks/http/vk' }, VALID.secrets!),
    ).toMatchObject({ destination: '79161234567', message: { data: { ttl: 600, ttlUnit: 'SECONDS' } } });
    expect(compiled.statusMap.get('9')).toBe('read');
    expect(problem(() => undefined)).toBe('taken');
  });

  it('names the key of each invalid setting', () => {
    const refusals: [(s: HttpConnectorSettings) => void, string][] = [
      [
        (s) => ((s.request.body as any).destination = '{phone}'),
        'connectors[3].request.body.destination: unknown placeholder {phone}',
      ],
      [
        (s) => (s.request.headers!.Authorization = 'Key {secret:API_KEY}'),
        'connectors[3].request.headers.Authorization: {secret:API_KEY} names no key',
      ],
      [(s) => (s.request.path = '/send/{'), 'connectors[3].request.path: "{" without "}"'],
      [(s) => (s.response.id = 'id'), 'connectors[3].response.id: "id": a path starts with $'],
      [(s) => (s.response.errorCode = '$..code'), 'connectors[3].response.errorCode: "$..code": a member name'],
      [
        (s) => (s.response.errorCode = ['$.code', 'code']),
        'connectors[3].response.errorCode[1]: "code": a path starts',
      ],
      [(s) => (s.status.webhook!.status = '$.items[?(@.s)]'), 'connectors[3].status.webhook.status:'],
      [(s) => (s.status.map!['7'] = 'bounced'), 'connectors[3].status.map.7: "bounced" is not a status of Herald\'s'],
      [(s) => (s.status.map = {}), 'connectors[3].status.map: no status is mapped'],
      [(s) => delete s.secrets!.HOOK, 'connectors[3].status.webhook.signature.secret: HOOK names no key'],
      [(s) => delete s.status.webhook, 'connectors[3].status: a webhook or a poll is needed'],
      [(s) => (s.status.none = true), 'connectors[3].status.none: a provider that reports no status has no webhook'],
      [(s) => (s.request.method = 'GET'), 'connectors[3].request.body: a GET request has no body'],
      [(s) => s.response.transient!.push(2), 'connectors[3].response: 2 both permanent and transient'],
      [
        (s) => (s.status.poll = { request: { path: '/status?id={messageId}' }, intervalSeconds: 30, ...POLL }),
        'connectors[3].status.poll.request.path: unknown placeholder {messageId}',
      ],
      [
        (s) => (s.status.poll = { request: { path: '/status/{messageUuid}' }, intervalSeconds: 30, ...POLL }),
        'connectors[3].status.poll.request: names no {carrierId} or {carrierIds}',
      ],
      [
        (s) => (s.status.poll = { request: { path: '/status/{carrierId}' }, intervalSeconds: 30, batch: 5, ...POLL }),
        'connectors[3].status.poll.batch: more than one id a request needs {carrierIds}',
      ],
      [
        (s) => (s.status.poll = { request: { path: '/s' }, intervalSeconds: 30, ...POLL, id: '$.a[' }),
        'connectors[3].status.poll.id:',
      ],
      [
        (s) => (s.batch = { size: 10, into: '$.messages', item: { to: '{destination}' } }),
        "connectors[3].response.results: a batch needs where its messages' results are",
      ],
      [
        (s) => (s.batch = { size: 10, into: '$.a.b', item: {} }),
        'connectors[3].batch.into: "$.a.b": a batch goes into a member of the body',
      ],
      [(s) => (s.response.results = '$.messages[*]'), 'connectors[3].response.results: results are read in the answer'],
      [
        (s) => Object.assign(s.request, { encoding: 'form', body: ['x'] }),
        'connectors[3].request.body: a form is an object',
      ],
      [
        (s) => (s.request.auth = { basic: { user: '{secret:SID}', password: 'x' } }),
        'connectors[3].request.auth.basic.user: {secret:SID} names no key',
      ],
      [
        (s) => (s.status.webhook!.signature = { kind: 'twilio', secret: 'TOKEN' }),
        'connectors[3].status.webhook.signature.secret: TOKEN names no key',
      ],
    ];
    for (const [change, message] of refusals) expect(problem(change)).toContain(message);
  });

  it('completes a connector from its profile (profiles/), its own keys winning; an unknown profile is refused', () => {
    const file = parseConfigFile({
      connectors: [
        {
          id: 'vk-herald',
          type: 'http',
          profile: 'herald-vk',
          baseUrl: 'https://provider.example/api',
          secrets: { API_KEY: 'k', WEBHOOK: 'w' },
          response: { id: '$.messageId' },
        },
      ],
      routes: [{ channel: 'VK', connectors: ['vk-herald'] }],
    });
    expect(file.connectors[0]).toMatchObject({
      channel: 'VK',
      request: { path: '/vk/messages' },
      response: { id: '$.messageId' },
      status: { map: { rejected: 'unsent' } },
      window: 100,
    });
    const refused = (profile: string) => () =>
      parseConfigFile({ connectors: [{ id: 'x', type: 'http', profile, baseUrl: 'https://p.example' }] });
    expect(refused('nobody')).toThrow('config: connectors[0].profile: no profile nobody in');
    expect(refused('../etc')).toThrow('connectors[0].profile: not a profile name');
    // The profile's secrets are the operator's to give: without them its templates are refused.
    expect(() =>
      parseConfigFile({
        connectors: [{ id: 'x', type: 'http', profile: 'herald-vk', baseUrl: 'https://p.example' }],
      }),
    ).toThrow('connectors[0].request.headers.Authorization: {secret:API_KEY} names no key');
  });

  it('warns at start-up when its requests would name no status URL: no publicUrl, Herald not its carrier', () => {
    const flow = { window: 1, mps: 1, timeoutSeconds: 1, breakerFailures: 1, breakerOpenSeconds: 1 };
    const compiled = compileHttpConnector(structuredClone(VALID), 'connectors[3]');
    expect(new DeclarativeConnector(compiled, flow).publicUrlMissing()).toContain('no status report will come');
    expect(new DeclarativeConnector(compiled, flow, undefined, 'https://h.example').publicUrlMissing()).toBeUndefined();
    const polled = structuredClone(VALID);
    polled.request.body = { to: '{destination}' };
    const quiet = compileHttpConnector(polled, 'connectors[3]');
    expect(new DeclarativeConnector(quiet, flow).publicUrlMissing()).toBeUndefined();
  });

  it("reads a status report's long ids exactly, and its statuses by the map", () => {
    const compiled = compileHttpConnector(structuredClone(VALID), 'connectors[3]');
    const raw = Buffer.from('{"reports":[{"id":3158611117333282817,"status":5,"reason":"7"},{"id":"a","status":0}]}');
    const reports = statusReports(compiled, compiled.webhook!, statusReportBody(compiled, raw), new Date(0));
    expect(reports.map((r) => [r.carrierId, r.receipt?.state, r.receipt?.errorCode])).toEqual([
      ['3158611117333282817', 'undelivered', 7],
      ['a', undefined, undefined],
    ]);
  });
});
