import { describe, expect, it } from 'vitest';
import { NumberingPlan } from '../../src/numbering/index.js';
import { OWNER_BRANDS, ownerBrand, planBrandsByKey } from '../../src/mnp/operatorBrands.js';
import { linesOf, PortingLayout } from '../../src/mnp/portingCsv.js';

describe('operator brands of the portability base', () => {
  const plan = NumberingPlan.load();
  const brands = planBrandsByKey(plan.brands());

  it("names every operator it maps as the bundled numbering plan does, the big four's among them", () => {
    const planBrands = new Set(plan.brands());
    for (const brand of Object.values(OWNER_BRANDS)) expect(planBrands.has(brand), brand).toBe(true);
    // The plan's brand of a range of each big operator (916 MTS, 926 MegaFon, 903 Beeline, 900 Tele2).
    const ofRange = (national: number) => plan.lookupNational(national)!.brand;
    expect(ownerBrand('mMTS', brands)).toBe(ofRange(9161234567));
    expect(ownerBrand('mMEGAFON', brands)).toBe(ofRange(9261234567));
    expect(ownerBrand('mBEELINE', brands)).toBe(ofRange(9031234567));
    expect(ownerBrand('mTELE2', brands)).toBe(ofRange(9000000000));
  });

  it("takes the plan's own names in any case, and keeps an unknown owner's name as the base gives it", () => {
    expect(ownerBrand('мегафон', brands)).toBe('МЕГАФОН');
    expect(ownerBrand('mSOMEOP', brands)).toBe('mSOMEOP');
  });
});

describe('rows of the portability base', () => {
  it('reads the header in any case, 10- and 11-digit numbers, empty optional cells, quotes', () => {
    const layout = PortingLayout.of('\uFEFFnumber,ownerid,MNC,Route,RegionCode,PortDate,RowCount') as PortingLayout;
    expect(layout.headed).toBe(true);
    expect(layout.row('9000000000,mMEGAFON,02,D2502,25,2016-09-07T12:00:17+03:00,6121908')).toEqual({
      number: '79000000000',
      ownerId: 'mMEGAFON',
      mnc: 2,
      route: 'D2502',
      regionCode: 25,
      portedAt: '2016-09-07T12:00:17+03:00',
    });
    expect(layout.row('"79000000001","mMTS",,,,,')).toEqual({
      number: '79000000001',
      ownerId: 'mMTS',
      mnc: null,
      route: null,
      regionCode: null,
      portedAt: null,
    });
    expect(layout.row('89000000001,mMTS')).toMatch(/^Invalid Number/);
    expect(layout.row('9000000001,')).toBe('Invalid OwnerId: ""');
    expect(PortingLayout.of('Phone,Operator')).toMatch(/header/);
    const semicolons = PortingLayout.of('Number;OwnerId') as PortingLayout;
    expect(semicolons.row('9000000002;mMTS')).toMatchObject({ number: '79000000002', ownerId: 'mMTS' });
  });

  it('splits lines across chunks (and a character across them), CRLF or LF, counting blank lines', async () => {
    const bytes = Buffer.from('a,я\r\n\r\nb\nc', 'utf8');
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
    }
    const lines = [];
    for await (const line of linesOf(chunks())) lines.push(line);
    expect(lines).toEqual([
      { line: 1, text: 'a,я' },
      { line: 3, text: 'b' },
      { line: 4, text: 'c' },
    ]);
  });
});
