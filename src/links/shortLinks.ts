import { randomBytes } from 'node:crypto';

/**
 * http(s) links in a text; trailing punctuation belongs to the sentence, not to the link. The pattern has nothing
 * after its one repetition, so it never backtracks: linear in the text.
 */
const LINK = /https?:\/\/[^\s<>"']+/gi;
const TRAILING = new Set('.,;:!?)]}\'"»');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Links one message may have shortened. Each is a code, a row and a redirect; a 1000-message batch of texts made of
 * nothing but `http://a ` took 7.5 s of one core before any was stored. Ten per message is more than a text needs and
 * bounds a batch to 10,000 codes (about 30 ms).
 */
export const MAX_LINKS_PER_MESSAGE = 10;
/** 10 characters of 62: 59 bits, unguessable (a scan of a billion codes finds a link with odds of 1 in 500,000). */
export const CODE_LENGTH = 10;

export interface ShortLink {
  readonly code: string;
  /** Where the link redirects; null for an unsubscribe link, whose page lists the subscriber (DESIGN 20). */
  readonly url: string | null;
}

/** Written in a text, becomes the message's unsubscribe link (DESIGN 20). */
export const UNSUBSCRIBE_PLACEHOLDER = '{unsubscribe}';
/** The path under the short-link base of unsubscribe links: `<base>/u/<code>`, apart from redirects. */
export const UNSUBSCRIBE_PATH = 'u';

/**
 * Replaces every `{unsubscribe}` of a text by the message's one unsubscribe link, `<base>/u/<code>`; no link when the
 * text has none.
 */
export function insertUnsubscribeLink(text: string, base: string): { text: string; link: ShortLink | undefined } {
  if (!text.includes(UNSUBSCRIBE_PLACEHOLDER)) return { text, link: undefined };
  const code = newCode();
  return {
    text: text.replaceAll(UNSUBSCRIBE_PLACEHOLDER, `${base}/${UNSUBSCRIBE_PATH}/${code}`),
    link: { code, url: null },
  };
}

export function newCode(): string {
  const bytes = randomBytes(CODE_LENGTH * 2);
  let code = '';
  // Rejection sampling keeps every character equally likely.
  for (let i = 0; i < bytes.length && code.length < CODE_LENGTH; i++) {
    if (bytes[i]! < 248) code += ALPHABET[bytes[i]! % 62];
  }
  return code.length === CODE_LENGTH ? code : newCode();
}

/** The http(s) links of a text, counted up to `max + 1` (the count stops there: a long text costs no more). */
export function linkCount(text: string, max: number): number {
  const pattern = new RegExp(LINK);
  let n = 0;
  while (n <= max && pattern.exec(text) !== null) n++;
  return n;
}

/**
 * Replaces each http(s) link of a text by `<base>/<code>`, one code per link, and keeps each link as the WHATWG URL
 * parser writes it (`href`): percent-encoded ASCII, which a `Location` header can carry whatever the text held (Node
 * refuses `€` or `ж` there: such a click answered 500). A link that is no URL (`http://[`) stays in the text as is.
 */
export function shortenText(text: string, base: string): { text: string; links: ShortLink[] } {
  const links: ShortLink[] = [];
  const replaced = text.replace(LINK, (match) => {
    const end = endOfLink(match);
    const url = normalisedUrl(match.slice(0, end));
    if (url === undefined) return match;
    const code = newCode();
    links.push({ code, url });
    return `${base}/${code}${match.slice(end)}`;
  });
  return { text: replaced, links };
}

/** The link as the WHATWG URL parser writes it, or undefined when it is no http(s) URL. */
export function normalisedUrl(link: string): string | undefined {
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a link ends once its trailing punctuation is left to the sentence. A loop from the end: linear, where the
 * regular expression `[.,;:!?...]+$` it replaces tried every start of a run and took 0.8 s for a link of 20,000 dots.
 */
function endOfLink(match: string): number {
  let end = match.length;
  while (end > 0 && TRAILING.has(match[end - 1]!)) end--;
  return end;
}
