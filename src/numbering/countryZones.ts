import ct from 'countries-and-timezones';

/**
 * The main zone of countries spanning several: where most of the population lives (Herald knows a country, not a
 * city, for numbers outside the Russian numbering plan). Single-zone countries come from countries-and-timezones.
 */
const MAIN_ZONES: Readonly<Record<string, string>> = {
  AQ: 'Pacific/Auckland',
  AR: 'America/Argentina/Buenos_Aires',
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CD: 'Africa/Kinshasa',
  CL: 'America/Santiago',
  CN: 'Asia/Shanghai',
  CY: 'Asia/Nicosia',
  DE: 'Europe/Berlin',
  EC: 'America/Guayaquil',
  ES: 'Europe/Madrid',
  FM: 'Pacific/Pohnpei',
  GL: 'America/Nuuk',
  ID: 'Asia/Jakarta',
  KI: 'Pacific/Tarawa',
  KZ: 'Asia/Almaty',
  MH: 'Pacific/Majuro',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  MY: 'Asia/Kuala_Lumpur',
  NZ: 'Pacific/Auckland',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PS: 'Asia/Hebron',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  TF: 'Indian/Kerguelen',
  UA: 'Europe/Kyiv',
  UM: 'Pacific/Wake',
  US: 'America/New_York',
  UZ: 'Asia/Tashkent',
  VN: 'Asia/Ho_Chi_Minh',
};

/** Country (ISO 3166-1 alpha-2) -> its main IANA zone, built once. */
export const COUNTRY_ZONES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    Object.entries(ct.getAllCountries()).flatMap(([code, country]) => {
      const zone = MAIN_ZONES[code] ?? country.timezones[0];
      return zone ? [[code, zone]] : [];
    }),
  ),
);
