import { useState } from 'preact/hooks';
import { currentLocale, t } from '../shared/i18n/index.js';
import { CheckField, SelectField, TextField } from '../shared/ui.js';

/*
 * When a dispatch sends (spec 2.1's window fields, which a dispatch takes as its messages do; docs/dispatches.md,
 * Send window): a scheduled start, an end, the hours and weekdays allowed, in each recipient's time zone or Moscow's.
 */

/** The window fields of a dispatch's body, only those given. */
export interface WindowFields {
  useLocalTime?: boolean;
  localSendTime?: string;
  localCompletionTime?: string;
  hours?: number[];
  days?: number[];
}

const HOURS = Array.from({ length: 25 }, (_, h) => String(h));
const DAYS = [1, 2, 3, 4, 5, 6, 7] as const;

/** A datetime-local input's `2026-12-31T09:00` as the API's `2026-12-31 09:00:00`, or undefined when empty. */
export function apiLocalTime(value: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/.exec(value);
  return match ? `${match[1]} ${match[2]}${match[3] ?? ':00'}` : undefined;
}

/** The hours from `from` to `to`, over midnight when `to` is earlier: 22 to 2 is 22, 23, 0, 1. */
export function hoursBetween(from: number, to: number): number[] {
  const hours: number[] = [];
  let hour = from;
  do {
    hours.push(hour);
    hour = (hour + 1) % 24;
  } while (hour !== to % 24 && hours.length < 24);
  return hours;
}

/** The weekday's name in the reader's locale: 1 is Monday, 7 Sunday (ISO, as the API counts them). */
const dayName = (day: number): string =>
  new Date(Date.UTC(2024, 0, day)).toLocaleDateString(currentLocale(), { weekday: 'long', timeZone: 'UTC' });

/** The fieldset "When to send" of the dispatch form, and the fields it adds to the body. */
export function useSendWindow() {
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [from, setFrom] = useState('0');
  const [to, setTo] = useState('24');
  const [days, setDays] = useState<readonly number[]>(DAYS);
  const [local, setLocal] = useState(true);

  const body = (): WindowFields => {
    const hours = from === '0' && to === '24' ? undefined : hoursBetween(Number(from), Number(to));
    const localSendTime = apiLocalTime(start);
    const localCompletionTime = apiLocalTime(end);
    return {
      ...(local ? {} : { useLocalTime: false }),
      ...(localSendTime ? { localSendTime } : {}),
      ...(localCompletionTime ? { localCompletionTime } : {}),
      ...(hours ? { hours } : {}),
      ...(days.length < DAYS.length ? { days: [...days] } : {}),
    };
  };

  const view = () => (
    <fieldset>
      <legend>{t('window.legend')}</legend>
      <div class="grid">
        <TextField
          label={t('window.start')}
          type="datetime-local"
          value={start}
          onValue={setStart}
          hint={t('window.startHint')}
        />
        <TextField label={t('window.end')} type="datetime-local" value={end} onValue={setEnd} />
        <SelectField
          label={t('window.fromHour')}
          value={from}
          onValue={setFrom}
          options={HOURS.slice(0, 24).map((h) => ({ value: h, label: `${h.padStart(2, '0')}:00` }))}
        />
        <SelectField
          label={t('window.toHour')}
          value={to}
          onValue={setTo}
          options={HOURS.slice(1).map((h) => ({ value: h, label: `${h.padStart(2, '0')}:00` }))}
        />
      </div>
      <fieldset class="days">
        <legend>{t('window.days')}</legend>
        {DAYS.map((day) => (
          <CheckField
            key={day}
            label={dayName(day)}
            checked={days.includes(day)}
            onChecked={(on) => setDays(on ? [...days, day].sort() : days.filter((d) => d !== day))}
          />
        ))}
      </fieldset>
      <CheckField label={t('window.localTime')} checked={local} onChecked={setLocal} />
    </fieldset>
  );

  return { body, view };
}
