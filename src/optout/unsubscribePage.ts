/** The page an unsubscribe link opens (DESIGN 20), in the subscriber's language: Russian or English. */
export type PageLanguage = 'ru' | 'en';

/** What the page says: the question with its button, or the answer once confirmed. */
export type PageKind = 'confirm' | 'done';

const TEXTS = {
  en: {
    confirm: {
      title: 'Unsubscribe',
      text: (sender: string, number: string) =>
        `Stop promotional and service messages from ${sender} to ${number}? ` +
        'Authorisation codes and transaction notices will still come.',
      button: 'Unsubscribe',
    },
    done: {
      title: 'Unsubscribed',
      text: (sender: string, number: string) =>
        `Done: ${sender} will send no more promotional or service messages to ${number}.`,
    },
  },
  ru: {
    confirm: {
      title: 'Отписка',
      text: (sender: string, number: string) =>
        `Отписаться от рекламных и сервисных сообщений ${sender} на номер ${number}? ` +
        'Коды авторизации и уведомления об операциях будут приходить по-прежнему.',
      button: 'Отписаться',
    },
    done: {
      title: 'Вы отписались',
      text: (sender: string, number: string) =>
        `Готово: ${sender} больше не будет присылать рекламные и сервисные сообщения на номер ${number}.`,
    },
  },
} as const;

/** No script, no outside resource; the form posts to the page itself only. */
export const PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Russian when the browser puts it before English (or names no English), else English. */
export function pageLanguage(acceptLanguage: string | undefined): PageLanguage {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((tag) => tag !== '');
  const ru = tags.findIndex((tag) => tag.startsWith('ru'));
  const en = tags.findIndex((tag) => tag.startsWith('en'));
  return ru >= 0 && (en < 0 || ru < en) ? 'ru' : 'en';
}

/** A number as the page shows it: its last four digits only (a forwarded link shows little of its subscriber's). */
export function maskedNumber(msisdn: string): string {
  return `+${'•'.repeat(Math.max(0, msisdn.length - 4))}${msisdn.slice(-4)}`;
}

/** The page's HTML. `sender` and `number` are escaped here. */
export function unsubscribePage(lang: PageLanguage, kind: PageKind, sender: string, number: string): string {
  const texts = TEXTS[lang];
  const who = escapeHtml(sender);
  const to = escapeHtml(number);
  const title = texts[kind].title;
  const body =
    kind === 'confirm'
      ? `<p>${texts.confirm.text(who, to)}</p>` +
        `<form method="post"><button type="submit">${texts.confirm.button}</button></form>`
      : `<p>${texts.done.text(who, to)}</p>`;
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${title}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${title}</h1>${body}</main></body></html>`
  );
}

const STYLE =
  'body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;background:#f6f7f9;color:#1d2330}' +
  'main{max-width:32rem;margin:0 auto;background:#fff;padding:1.5rem;border-radius:8px}' +
  'button{font:inherit;padding:.6rem 1.4rem;border:0;border-radius:6px;background:#c0392b;color:#fff;cursor:pointer}';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
