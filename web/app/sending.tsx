import { useLocation } from 'preact-iso';
import { SelectField, TextField } from '../shared/ui.js';

/*
 * What the two send pages share: one message (/app/send) and a cascade (/app/send/cascade).
 */

/** Channels the send pages offer; SMS, WHATSAPP and VIBER need an approved sender name, the others take any. */
export const SEND_CHANNELS = ['SMS', 'WHATSAPP', 'VIBER', 'VK', 'FLASHCALL'] as const;
export type SendChannel = (typeof SEND_CHANNELS)[number];
export const NEEDS_APPROVED: readonly SendChannel[] = ['SMS', 'WHATSAPP', 'VIBER'];

/** Builds the content of a message (or a cascade's step) of the channel from plain text (spec 2.2). */
export function contentFor(channel: SendChannel, text: string): string | { contentType: 'text'; text: string } {
  return channel === 'WHATSAPP' || channel === 'VIBER' ? { contentType: 'text', text } : text;
}

/** The tags of a comma-separated input, without blanks. */
export function tagsOf(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The names of sender names that may be used now (an approved name with a start date waits for it). */
export function usableNames(items: readonly { name: string; startDate: string | null }[] | undefined): string[] {
  return items?.filter((n) => !n.startDate || Date.parse(n.startDate) <= Date.now()).map((n) => n.name) ?? [];
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
