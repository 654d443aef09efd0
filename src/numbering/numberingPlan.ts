import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMunicipality, SUBJECT_ZONES, WHOLE_COUNTRY } from './regionZones.js';

/** The bundled copy of the Russian mobile (DEF 9xx) numbering plan; see assets/numbering/README.md. */
export const BUNDLED_NUMBERING_PLAN = fileURLToPath(new URL('../../assets/numbering/DEF-9xx.csv', import.meta.url));

export interface RangeInfo {
  /** The operator's trade name: its legal name without the legal form, spelled as most of its ranges spell it. */
  readonly brand: string;
  /** The subjects the range serves, as in the state address register, joined with ", ". */
  readonly region: string;
  /** IANA zones of those subjects, unique; empty when the range serves the whole country. */
  readonly zones: readonly string[];
}

/**
 * The numbering plan in memory: ranges of 10-digit national numbers sorted by start, in typed arrays, so that a
 * lookup is a binary search over 16,000 ranges (a microsecond) and the whole plan takes a few hundred kilobytes.
 */
export class NumberingPlan {
  private constructor(
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
    private readonly infoIndex: Uint32Array,
    private readonly infos: readonly RangeInfo[],
  ) {}

  get size(): number {
    return this.starts.length;
  }

  /** Every operator's brand, once each. */
  brands(): string[] {
    return [...new Set(this.infos.map((info) => info.brand))];
  }

  /** The range holding a national number `9XXXXXXXXX` (10 digits), if any. */
  lookupNational(national: number): RangeInfo | undefined {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (this.starts[mid]! > national) high = mid - 1;
      else if (this.ends[mid]! < national) low = mid + 1;
      else return this.infos[this.infoIndex[mid]!];
    }
    return undefined;
  }

  /**
   * Reads the plan's CSV (UTF-8 with BOM, `;`-separated: code; from; to; capacity; operator; region; GAR region; INN).
   */
  static parse(csv: string): NumberingPlan {
    const lines = csv
      .replace(/^\ufeff/, '')
      .split(/\r?\n/)
      .slice(1)
      .filter((line) => line.trim() !== '');
    const rows = lines.map((line, i) => {
      const cells = line.split(';');
      if (cells.length < 8) throw new Error(`numbering plan line ${i + 2}: expected 8 columns`);
      const [code, from, to, , operator, , garRegion, inn] = cells as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const start = Number(code) * 1e7 + Number(from);
      const end = Number(code) * 1e7 + Number(to);
      if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) {
        throw new Error(`numbering plan line ${i + 2}: bad range ${code} ${from}-${to}`);
      }
      return { start, end, operator: operator.trim(), garRegion: garRegion.trim(), inn: inn.trim() };
    });
    rows.sort((a, b) => a.start - b.start);

    const brands = brandsByInn(rows);
    const infoKeys = new Map<string, number>();
    const infos: RangeInfo[] = [];
    const starts = new Float64Array(rows.length);
    const ends = new Float64Array(rows.length);
    const infoIndex = new Uint32Array(rows.length);
    rows.forEach((row, i) => {
      const brand = brands.get(row.inn) ?? tradeName(row.operator);
      const key = `${brand}\u0000${row.garRegion}`;
      let index = infoKeys.get(key);
      if (index === undefined) {
        index = infos.length;
        const { region, zones } = regionOf(row.garRegion);
        infos.push({ brand: copyOf(brand), region: copyOf(region), zones });
        infoKeys.set(key, index);
      }
      starts[i] = row.start;
      ends[i] = row.end;
      infoIndex[i] = index;
    });
    return new NumberingPlan(starts, ends, infoIndex, infos);
  }

  static load(file: string = BUNDLED_NUMBERING_PLAN): NumberingPlan {
    return NumberingPlan.parse(readFileSync(file, 'utf8'));
  }
}

/**
 * A string of its own. V8 keeps a piece cut from a string (split, trim, a regular expression's match) as a view
 * of the whole, so a brand kept from a line of the plan kept the whole file's text alive: 3.9 MB of an idle
 * Herald's heap.
 */
function copyOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Subjects and zones of a register cell: every zone of every subject it names (`A, B` or `A|B`). */
export function regionOf(cell: string): { region: string; zones: string[] } {
  const pieces = cellPieces(cell);
  const subjects = pieces.filter((piece) => piece in SUBJECT_ZONES);
  const zones = [...new Set(subjects.flatMap((subject) => SUBJECT_ZONES[subject]!))];
  const region =
    subjects.length > 0 ? [...new Set(subjects)].join(', ') : pieces.includes(WHOLE_COUNTRY) ? WHOLE_COUNTRY : cell;
  return { region, zones };
}

/**
 * The places a register cell names: `|` and `, ` separate them, but a municipality's own name may hold a comma
 * (`м.р-н Муниципальные районы Камчатского края, входящие в состав Корякского округа`).
 */
export function cellPieces(cell: string): string[] {
  return cell
    .split('|')
    .flatMap((part) => (isMunicipality(part.trim()) ? [part] : part.split(',')))
    .map((piece) => piece.trim())
    .filter(Boolean);
}

/** `ПАО "МТС"` -> `МТС`; `ООО «Т2 Мобайл»` -> `Т2 Мобайл`. */
export function tradeName(operator: string): string {
  return operator
    .replace(/^(ООО|ПАО|АО|ОАО|ЗАО|НАО|ФГУП|ГУП|МУП|ИП)\s+/u, '')
    .replace(/^ГОСУДАРСТВЕННОЕ УНИТАРНОЕ ПРЕДПРИЯТИЕ\s+.*?(?=[«"])/u, '')
    .replace(/["«»]/g, '')
    .trim();
}

/** One spelling per operator (tax id): the most frequent trade name among its ranges. */
function brandsByInn(rows: readonly { operator: string; inn: string }[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (!row.inn) continue;
    const names = counts.get(row.inn) ?? new Map<string, number>();
    const name = tradeName(row.operator);
    names.set(name, (names.get(name) ?? 0) + 1);
    counts.set(row.inn, names);
  }
  const brands = new Map<string, string>();
  for (const [inn, names] of counts) {
    const [best] = [...names].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    brands.set(inn, best![0]);
  }
  return brands;
}
