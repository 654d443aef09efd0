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
export const TELEGRAM_KINDS: readonly { value: TelegramKind; label: string }[] = [
  { value: 'text', label: 'Text (Bot API)' },
  { value: 'code', label: 'Verification code (Gateway API)' },
];

/** Whether the message's content is a code rather than a text: FLASHCALL, or a TELEGRAM code. */
export const isCode = (channel: SendChannel, kind: TelegramKind): boolean =>
  channel === 'FLASHCALL' || (channel === 'TELEGRAM' && kind === 'code');

/** The label and hint of the content's input. */
export function contentField(channel: SendChannel, kind: TelegramKind, text: string): { label: string; hint: string } {
  if (channel === 'FLASHCALL') return { label: 'Code', hint: '4 digits.' };
  if (channel === 'TELEGRAM' && kind === 'code')
    return { label: 'Code', hint: '4 to 8 digits, sent in Telegram’s own verification message.' };
  return { label: 'Text', hint: `${text.length} characters` };
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

const MODES = [
  { href: '/app/send', label: 'One message' },
  { href: '/app/send/cascade', label: 'Cascade' },
] as const;

/** Links between the send pages, the current one marked. */
export function SendModes() {
  const { path } = useLocation();
  return (
    <nav aria-label="What to send" class="actions modes">
      {MODES.map((mode) => (
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
}) {
  const { approved, value, onValue, options, loading } = props;
  if (!approved) return <TextField label="Sender name" value={value} onValue={onValue} required />;
  return (
    <SelectField
      label="Sender name"
      value={value}
      onValue={onValue}
      options={options.length ? options : [{ value: '', label: loading ? 'Loading…' : 'No approved sender names' }]}
      required
    />
  );
}

/** Says that the channel has no sender name to choose yet, and where to register one. */
export function NoSenderNameHint({ channel }: { channel: SendChannel }) {
  if (channel === 'TELEGRAM') {
    return (
      <p class="hint">
        No TELEGRAM bot ready yet: <a href="/app/sender-names">register its username</a>; it sends once the operator
        approves it and attaches its token.
      </p>
    );
  }
  return (
    <p class="hint">
      No approved sender name for {channel} yet: <a href="/app/sender-names">register one</a>.
    </p>
  );
}
