import { describe, expect, it } from 'vitest';
import { ApiError } from '../../web/shared/api.js';
import {
  bodyOf,
  DraftError,
  emptyConnector,
  emptyDraft,
  patchOf,
  placeOf,
  routeFieldOf,
  splitList,
} from '../../web/admin/routeForm.js';

// What the console's Routes form sends and where it shows the API's refusals, without a browser.
describe('route form', () => {
  const draft = {
    ...emptyDraft({ ...emptyConnector(1, 'sim-smsc'), amount: '0.1', currency: 'rub' }),
    priority: '5',
    lists: {
      accountIds: '12, 13',
      trafficTypes: 'promo',
      senderNames: '',
      prefixes: '+7916 7917;7918',
      countries: 'ru',
      operators: '',
    },
  };

  it('splits lists on commas, semicolons and white space', () => {
    expect(splitList(' a, b;c\n d  ')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitList('  ')).toEqual([]);
  });

  it('leaves empty match lists out of a new route and removes them (null) in a change', () => {
    expect(bodyOf(draft)).toEqual({
      priority: 5,
      match: {
        channelType: 'SMS',
        accountIds: [12, 13],
        trafficTypes: ['PROMO'],
        prefixes: ['7916', '7917', '7918'],
        countries: ['RU'],
      },
      connectors: [{ connectorId: 'sim-smsc', buyPrice: { amount: 0.1, currency: 'RUB' } }],
      strategy: 'ordered',
      reroute: null,
      quality: null,
    });
    expect(patchOf(draft).match).toMatchObject({ senderNames: null, operators: null, countries: ['RU'] });
  });

  it('refuses an account id that is not a whole number before sending, at its field', () => {
    const wrong = { ...draft, lists: { ...draft.lists, accountIds: '12 x' } };
    expect(() => bodyOf(wrong)).toThrow(
      new DraftError('match.accountIds', 'Invalid match.accountIds: x is not a whole number'),
    );
  });

  it('reads a buy price as the reader writes it, and refuses one it cannot read at its field', () => {
    const priced = (amount: string) => ({ ...draft, connectors: [{ ...draft.connectors[0]!, amount }] });
    expect(bodyOf(priced('1000,50')).connectors[0]!.buyPrice).toEqual({ amount: 1000.5, currency: 'RUB' });
    expect(() => bodyOf(priced('1e5'))).toThrow(
      expect.objectContaining({
        field: 'connectors.0.buyPrice.amount',
        message: expect.stringMatching(/^Not an amount/),
      }),
    );
  });

  it("places the API's refusals at the field they name, or the nearest the form has", () => {
    const at = (status: number, msg: string) => routeFieldOf(new ApiError(status, 4220, msg));
    expect(at(422, 'connectors.1.connectorId: no connector x is configured')).toBe('connectors.1.connectorId');
    expect(at(422, 'Invalid connectors.0.buyPrice.currency: "rub" (must match pattern)')).toBe(
      'connectors.0.buyPrice.currency',
    );
    expect(at(422, "connectors.0.buyPrice: the cheapest strategy needs every connector's price")).toBe(
      'connectors.0.buyPrice.amount',
    );
    expect(at(422, 'Invalid match.prefixes.0: "79a" (must match pattern)')).toBe('match.prefixes');
    expect(at(422, 'reroute: give errorCodes, onUndelivered: true, or both')).toBe('reroute');
    expect(at(422, 'Invalid reroute.max: 4 (must be <= 3)')).toBe('reroute.max');
    expect(at(422, 'Missing match.channelType')).toBe('match.channelType');
    expect(at(404, 'Account 99 not found')).toBe('match.accountIds');
    expect(at(422, 'No exchange rate from USD to RUB: set HERALD_EXCHANGE_RATES')).toBeUndefined();
    expect(placeOf('body')).toBeUndefined();
  });
});
