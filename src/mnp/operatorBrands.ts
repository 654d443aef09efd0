/**
 * The brand of a ported number's operator, spelled as the numbering plan spells the same operator, so that a route
 * matching operator "X" matches both a number of X's own ranges and a number ported to X.
 *
 * The base names an operator by its OwnerId: `m` and a Latin code (`mMTS`, `mMEGAFON`, `mBEELINE`, `mTELE2`, `mMTT`
 * in published samples of Port_All files). The plan names it by its legal name without the legal form, as most of
 * its ranges spell it (numbering/numberingPlan.ts): `МТС`, `МЕГАФОН`, `ВЫМПЕЛКОМ` (Beeline), `Т2 Мобайл` (Tele2).
 * test/mnp/operatorBrands.test.ts checks that every name here is a brand of the bundled plan.
 */
export const OWNER_BRANDS: Readonly<Record<string, string>> = {
  MTS: 'МТС',
  MEGAFON: 'МЕГАФОН',
  BEELINE: 'ВЫМПЕЛКОМ',
  VIMPELCOM: 'ВЫМПЕЛКОМ',
  TELE2: 'Т2 Мобайл',
  T2: 'Т2 Мобайл',
  T2MOBILE: 'Т2 Мобайл',
  MTT: 'МТТ',
  YOTA: 'Скартел',
  SCARTEL: 'Скартел',
  ROSTELECOM: 'Ростелеком',
  RTK: 'Ростелеком',
  TINKOFF: 'Т-МОБ',
  TMOB: 'Т-МОБ',
  SBERMOBILE: 'СБЕРБАНК-ТЕЛЕКОМ',
  SBERTELECOM: 'СБЕРБАНК-ТЕЛЕКОМ',
  MOTIV: 'ЕКАТЕРИНБУРГ-2000',
  VTBMOBILE: 'ВТБ МОБАЙЛ',
  KTELECOM: 'К-ТЕЛЕКОМ',
  WINMOBILE: 'К-ТЕЛЕКОМ',
  MIRANDA: 'МИРАНДА-МЕДИА',
  TTK: 'ТТК-СВЯЗЬ',
  ALFAMOBILE: 'АЛЬФА-МОБАЙЛ',
  GAZPROMTELECOM: 'ГАЗПРОМ ТЕЛЕКОМ',
};

/** An OwnerId's key in {@link OWNER_BRANDS}: without the base's `m`, upper case, letters and digits only. */
export function ownerKey(ownerId: string): string {
  return ownerId
    .replace(/^m(?=[A-Z0-9])/, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '');
}

/**
 * The brand of an owner operator: the plan's name when {@link OWNER_BRANDS} knows its code, or when the owner is
 * already given by one of the plan's names (any case); otherwise the base's own name, as it is.
 */
export function ownerBrand(ownerId: string, planBrands: ReadonlyMap<string, string>): string {
  return OWNER_BRANDS[ownerKey(ownerId)] ?? planBrands.get(ownerId.trim().toLocaleUpperCase('ru')) ?? ownerId;
}

/** The plan's brands by their upper-case spelling, for {@link ownerBrand}. */
export function planBrandsByKey(brands: Iterable<string>): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const brand of brands) byKey.set(brand.toLocaleUpperCase('ru'), brand);
  return byKey;
}
