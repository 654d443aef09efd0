import { describe, expect, it } from 'vitest';
import {
  compileJsonPath,
  JsonPathError,
  jsonPathAll,
  jsonPathFirst,
} from '../../src/connectors/http/declarative/jsonPath.js';
import {
  compileJson,
  compileString,
  placeholdersOf,
  renderJson,
  renderString,
  TemplateError,
} from '../../src/connectors/http/declarative/templates.js';

const SECRETS = { KEY: 's3cr3t/+key' };
const SCOPE = { secrets: SECRETS };

describe('declarative connectors: the JSON path subset (DESIGN 19)', () => {
  const doc = {
    status: 'OK',
    'odd key': { "it's": 1 },
    data: [
      { id: 'a1', cost: 1.5 },
      { id: 'a2', cost: 2 },
    ],
    errors: { '7916': 'bad', '7917': 'worse' },
  };

  it('finds members by name, quoted names, indexes (from the end too) and every element', () => {
    expect(jsonPathFirst(compileJsonPath('$.status'), doc)).toBe('OK');
    expect(jsonPathFirst(compileJsonPath("$['odd key']['it\\'s']"), doc)).toBe(1);
    expect(jsonPathFirst(compileJsonPath('$.data[1].id'), doc)).toBe('a2');
    expect(jsonPathFirst(compileJsonPath('$.data[-1].cost'), doc)).toBe(2);
    expect(jsonPathAll(compileJsonPath('$.data[*].id'), doc)).toEqual(['a1', 'a2']);
    expect(jsonPathAll(compileJsonPath('$.errors[*]'), doc)).toEqual(['bad', 'worse']);
    expect(jsonPathFirst(compileJsonPath('$'), doc)).toBe(doc);
    expect(compileJsonPath('$.data[*].id').many).toBe(true);
    expect(compileJsonPath('$.data[0].id').many).toBe(false);
  });

  it('finds nothing, without throwing, where the document has no such value', () => {
    for (const path of ['$.missing', '$.status.deeper', '$.data[5]', '$.data.id', '$.status[0]', '$.errors[*].x'])
      expect(jsonPathAll(compileJsonPath(path), doc), path).toEqual([]);
    expect(jsonPathFirst(compileJsonPath('$.a'), null)).toBeUndefined();
  });

  it('refuses what is not in the subset, saying where', () => {
    const refusals: [string, string][] = [
      ['status', 'a path starts with $'],
      ['$..id', 'a member name (letters, digits, _ or -) expected after "." at character 2'],
      ['$.data[?(@.id)]', '[n], [*] or a quoted name expected at character 7'],
      ['$.data[0:2]', '[n], [*] or a quoted name expected at character 7'],
      ["$['open", 'an unterminated quoted name at character 2'],
      ['$.a b', '" " is not part of the path syntax'],
      ['$.9lives', 'a member name'],
    ];
    for (const [path, message] of refusals) {
      expect(() => compileJsonPath(path), path).toThrow(JsonPathError);
      expect(() => compileJsonPath(path), path).toThrow(message);
    }
  });
});

describe('declarative connectors: request templates (DESIGN 19)', () => {
  const values = {
    destination: '79161234567',
    destinationPlus: '+79161234567',
    senderName: 'Shop & Co',
    text: 'Code: 1234 {not a placeholder}',
    ttl: 3600,
    messageUuid: '019cd6f9-7a80-723a-9a76-ed7eae4363f5',
  };

  it('fills a body: a lone placeholder keeps its type, others become text, secrets come from the connector', () => {
    const template = compileJson(
      {
        to: '{destinationPlus}',
        from: '{senderName}',
        text: '{text}',
        validity: '{ttl}',
        label: 'ttl={ttl}s {{literal}}',
        auth: { key: '{secret:KEY}' },
        list: ['{destination}', 1, true, null],
      },
      'connectors[0].request.body',
      SCOPE,
    );
    expect(renderJson(template, values, SECRETS)).toEqual({
      to: '+79161234567',
      from: 'Shop & Co',
      text: 'Code: 1234 {not a placeholder}',
      validity: 3600,
      label: 'ttl=3600s {literal}',
      auth: { key: 's3cr3t/+key' },
      list: ['79161234567', 1, true, null],
    });
    expect([...placeholdersOf(template)].sort()).toEqual([
      'destination',
      'destinationPlus',
      'senderName',
      'text',
      'ttl',
    ]);
  });

  it('percent-encodes placeholders in a URL, never the secrets (they are written as the provider wants them)', () => {
    const url = compileString(
      'https://api.example.com/send?to={destination}&from={senderName}&key={secret:KEY}',
      'url',
      SCOPE,
    );
    expect(renderString(url, values, SECRETS, true)).toBe(
      'https://api.example.com/send?to=79161234567&from=Shop%20%26%20Co&key=s3cr3t/+key',
    );
  });

  it('refuses an unknown placeholder, a missing secret and an unbalanced brace, naming the key', () => {
    const refusals: [unknown, string][] = [
      [{ to: '{phone}' }, 'connectors[1].request.body.to: unknown placeholder {phone}'],
      [{ a: [{ b: 'x{secret:TOKEN}' }] }, 'connectors[1].request.body.a[0].b: {secret:TOKEN} names no key'],
      [{ t: 'a { b' }, 'connectors[1].request.body.t: "{" without "}"'],
      [{ t: 'a } b' }, 'connectors[1].request.body.t: "}" without "{"'],
    ];
    for (const [body, message] of refusals) {
      expect(() => compileJson(body, 'connectors[1].request.body', SCOPE)).toThrow(TemplateError);
      expect(() => compileJson(body, 'connectors[1].request.body', SCOPE)).toThrow(message);
    }
    // Positive control: the same shapes, written right.
    expect(() => compileJson({ to: '{destination}', k: '{secret:KEY}', t: 'a {{ b }}' }, 'b', SCOPE)).not.toThrow();
  });

  it('applies filters in order, fills vars, maps values, and leaves out keys whose placeholder has no value', () => {
    const scope = {
      secrets: SECRETS,
      vars: { TEMPLATE: '3222269333010907123', FROM: '+15005550006' },
      valueMaps: { viber: { text: 'TEXT', image: 'IMAGE_URL' } },
    };
    const template = compileJson(
      {
        say: '<Say>{text|xml}</Say>',
        code: '{code|number}',
        digits: '{text|digits}',
        validity: '{ttl|max:600|min:60}',
        type: '{contentType|map:viber}',
        other: '{caption|upper}',
        template: '{var:TEMPLATE|number}',
        from: '{var:FROM}',
        loud: '{senderName|upper}',
      },
      'body',
      scope,
    );
    const filled = renderJson(
      template,
      { text: 'Код <1234> & "go"', code: '0042', ttl: 3600, contentType: 'image', senderName: 'Shop' },
      SECRETS,
    );
    expect(filled).toEqual({
      say: '<Say>Код &lt;1234&gt; &amp; &quot;go&quot;</Say>',
      code: 42,
      digits: '1234',
      validity: 600,
      type: 'IMAGE_URL',
      template: expect.objectContaining({ digits: '3222269333010907123' }),
      from: '+15005550006',
      loud: 'SHOP',
    });
    expect(filled).not.toHaveProperty('other');
    expect(renderJson(template, { ttl: 5, contentType: 'video' }, SECRETS)).toMatchObject({
      validity: 60,
      type: 'video',
    });
    const refusals: [string, string][] = [
      ['{text|shout}', 'body: unknown filter |shout'],
      ['{ttl|max:x}', 'body: unknown filter |max:x'],
      ['{contentType|map:none}', 'body: |map:none names no key'],
      ['{var:NONE}', 'body: {var:NONE} names no key'],
      ['{secret:KEY|upper}', 'body: {secret:KEY} takes no filter'],
      ['{carrierId}', 'body: unknown placeholder {carrierId}'],
    ];
    for (const [source, message] of refusals) expect(() => compileString(source, 'body', scope)).toThrow(message);
    // The ids of a status poll are its own: a list, comma-separated within a string.
    const poll = compileString('/status?ids={carrierIds}&one={carrierId}', 'p', { ...scope, poll: true });
    expect(renderString(poll, { carrierIds: ['a', 'b'], carrierId: 'a' }, SECRETS)).toBe('/status?ids=a,b&one=a');
  });
});
