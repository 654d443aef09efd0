import { codeWord, t } from '../shared/i18n/index.js';
import { useLocation } from 'preact-iso';
import { SelectField, TextField } from '../shared/ui.js';

/*
 * What the two send pages share: one message (/app/send) and a cascade (/app/send/cascade).
 */

/**
 * Channels the send pages offer; SMS, WHATSAPP, VIBER and TELEGRAM (a bot) need an approved sender name, the others
 * take any.
 */
export const SEND_CHANNELS = ['SMS', 'WHATSAPP', 'VIBER', 'VK', 'TELEGRAM', 'FLASHCALL'] as const;
export type SendChannel = (typeof SEND_CHANNELS)[number];
export const NEEDS_APPROVED: readonly SendChannel[] = ['SMS', 'WHATSAPP', 'VIBER', 'TELEGRAM'];

/** What a TELEGRAM message carries (DESIGN 18): a text through the Bot API, or a code through the Gateway API. */
export type TelegramKind = 'text' | 'code';
export const telegramKinds = (): readonly { value: TelegramKind; label: string }[] => [
  { value: 'text', label: t('send.telegramText') },
  { value: 'code', label: t('send.telegramCode') },
];

/** The channels of SEND_CHANNELS as options of a select, in words. */
export const sendChannels = (): { value: SendChannel; label: string }[] =>
  SEND_CHANNELS.map((value) => ({ value, label: codeWord('channel', value) }));

/** Whether the message's content is a code rather than a text: FLASHCALL, or a TELEGRAM code. */
export const isCode = (channel: SendChannel, kind: TelegramKind): boolean =>
  channel === 'FLASHCALL' || (channel === 'TELEGRAM' && kind === 'code');

/** The label and hint of the content's input. */
export function contentField(channel: SendChannel, kind: TelegramKind, text: string): { label: string; hint: string } {
  if (channel === 'FLASHCALL') return { label: t('send.code'), hint: t('send.flashcallHint') };
  if (channel === 'TELEGRAM' && kind === 'code') return { label: t('send.code'), hint: t('send.telegramCodeHint') };
  return { label: t('message.text'), hint: t('send.characters', { count: text.length }) };
}

/**
 * Builds the content of a message (or a cascade's step) of the channel from plain text (spec 2.2); a TELEGRAM
 * message is a text or a code as `kind` says.
 */
export function contentFor(
  channel: SendChannel,
  text: string,
  kind: TelegramKind = 'text',
): string | { contentType: 'text'; text: string } | { contentType: 'code'; code: string } {
  if (channel === 'TELEGRAM')
    return kind === 'code' ? { contentType: 'code', code: text.trim() } : { contentType: 'text', text };
  return channel === 'WHATSAPP' || channel === 'VIBER' ? { contentType: 'text', text } : text;
}

/** The tags of a comma-separated input, without blanks. */
export function tagsOf(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * The names of sender names that may be used now: an approved name with a start date waits for it, and a TELEGRAM
 * name (a bot) for the token the operator attaches.
 */
export function usableNames(
  items:
    readonly { name: string; startDate: string | null; channelType: string; botToken: string | null }[] | undefined,
): string[] {
  const usable = (n: NonNullable<typeof items>[number]) =>
    (!n.startDate || Date.parse(n.startDate) <= Date.now()) && (n.channelType !== 'TELEGRAM' || n.botToken !== null);
  return items?.filter(usable).map((n) => n.name) ?? [];
}

const modes = () =>
  [
    { href: '/app/send', label: t('send.oneMessage') },
    { href: '/app/send/cascade', label: t('message.cascade') },
  ] as const;

/** Links between the send pages, the current one marked. */
export function SendModes() {
  const { path } = useLocation();
  return (
    <nav aria-label={t('send.whatToSend')} class="actions modes">
      {modes().map((mode) => (
        <a key={mode.href} href={mode.href} aria-current={path === mode.href ? 'page' : undefined}>
          {mode.label}
        </a>
      ))}
    </nav>
  );
}

/**
 * The sender name of a message or step: a select of the approved names its channel needs (`approved`), else free
 * text.
 */
export function SenderNameField(props: {
  approved: boolean;
  value: string;
  onValue: (name: string) => void;
  options: readonly string[];
  loading: boolean;
  /** What the API said is wrong with it. */
  error?: string | undefined;
}) {
  const { approved, value, onValue, options, loading, error } = props;
  if (!approved)
    return <TextField label={t('col.senderName')} value={value} onValue={onValue} required error={error} />;
  const none = loading ? t('send.loadingNames') : t('send.noApprovedNames');
  return (
    <SelectField
      label={t('col.senderName')}
      value={value}
      onValue={onValue}
      options={options.length ? options : [{ value: '', label: none }]}
      required
      error={error}
    />
  );
}

/** Says that the channel has no sender name to choose yet, and where to register one. */
export function NoSenderNameHint({ channel }: { channel: SendChannel }) {
  if (channel === 'TELEGRAM') {
    return (
      <p class="hint">
        {t('send.noBot')} <a href="/app/sender-names">{t('send.registerBot')}</a>
        {t('send.noBotEnd')}
      </p>
    );
  }
  return (
    <p class="hint">
      {t('send.noName', { channel: codeWord('channel', channel) })}{' '}
      <a href="/app/sender-names">{t('send.registerOne')}</a>.
    </p>
  );
}
