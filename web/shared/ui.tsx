import type { ComponentChildren, InputHTMLAttributes, RefObject, VNode } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { errorText, type Page as ApiPage } from './api.js';
import { codeOptions, currentLocale, t } from './i18n/index.js';
import { LanguageSwitch } from './i18n/LanguageSwitch.js';
import { wasNavigated } from './routes.js';

/** A page: its heading (focused after a navigation, for screen readers and keyboards) and content. */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = t('ui.titleSuffix', { title });
    if (wasNavigated()) heading.current?.focus();
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

export interface NavItem {
  readonly href: string;
  readonly label: string;
  /** Also current for paths below href (default true, except for the home link). */
  readonly prefix?: boolean;
}

/**
 * The site header: product name, navigation (wraps on narrow screens), and what sits on the right. Its links are
 * plain `<a href>`: preact-iso's LocationProvider changes the page in place on a plain click and leaves a click with
 * a modifier key (a new tab or window) to the browser.
 */
export function Header({
  brand,
  home,
  items,
  aside,
}: {
  brand: string;
  home: string;
  items: readonly NavItem[];
  aside?: ComponentChildren;
}) {
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  return (
    <header class="site-header">
      <div class="bar">
        <a class="brand" href={home}>
          {brand}
        </a>
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpen(!open)}
        >
          {t('ui.menu')}
        </button>
        <div class="aside">
          {aside}
          <LanguageSwitch />
        </div>
      </div>
      <nav id="main-nav" aria-label={t('ui.mainNav')} class={open ? 'open' : ''}>
        <ul>
          {items.map((item) => {
            const current = path === item.href || ((item.prefix ?? true) && path.startsWith(`${item.href}/`));
            return (
              <li key={item.href}>
                <a href={item.href} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
    </header>
  );
}

export interface Notice {
  readonly kind: 'ok' | 'error' | 'info';
  readonly text: string;
}

/** A status line for async outcomes; the region is always present so that screen readers announce changes. */
export function NoticeLine({ notice }: { notice: Notice | undefined }) {
  return (
    <p class={`notice ${notice ? notice.kind : ''}`} role="status" aria-live="polite">
      {notice?.text ?? ''}
    </p>
  );
}

/** [notice, setOk, setError, clear]: the state behind a {@link NoticeLine}. */
export function useNotice() {
  const [notice, setNotice] = useState<Notice | undefined>(undefined);
  return {
    notice,
    ok: (text: string) => setNotice({ kind: 'ok', text }),
    info: (text: string) => setNotice({ kind: 'info', text }),
    error: (error: unknown) => setNotice({ kind: 'error', text: errorText(error) }),
    clear: () => setNotice(undefined),
  };
}

export interface Async<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  reload(): void;
}

/** Runs `load` now and whenever `deps` change; a newer run supersedes an older one. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) => !controller.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => controller.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** The first read again of a live page, after an answer that changed something (docs/web.md, "Live updates"). */
export const LIVE_FIRST_MS = 2000;
/** The longest wait between reads of a live page: each answer that changed nothing waits half as long again. */
export const LIVE_MAX_MS = 30_000;

/**
 * Reads `state` again by itself while `live` (its data can still change without the reader doing anything): 2 s
 * after an answer that changed something, then half as long again after each that did not, up to 30 s; the next read
 * starts only after the previous answer, so a slow server never gets requests piled up. Nothing is read while the
 * tab is hidden; showing it again reads at once.
 */
export function useLiveReload(state: Async<unknown>, live: boolean): void {
  const delay = useRef(LIVE_FIRST_MS);
  const last = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (state.loading || !live) return;
    const now = JSON.stringify(state.data);
    delay.current = now === last.current ? Math.min(LIVE_MAX_MS, delay.current * 1.5) : LIVE_FIRST_MS;
    last.current = now;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (!document.hidden) timer = setTimeout(state.reload, delay.current);
    const shown = () => {
      clearTimeout(timer);
      if (!document.hidden) state.reload();
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [state.data, state.loading, state.error, live]);
}

/**
 * An id shown whole, in a form that can be selected and copied: a UUIDv7 begins with its time, so ids made in the
 * same moment share their first characters (cut to 8, every message of a batch read "01a21fc4…"); the last 12,
 * random, tell them apart and are set off in bold.
 */
export function Uuid({ value }: { value: string }) {
  const cut = Math.max(0, value.length - 12);
  return (
    <code class="id" translate={false}>
      {value.slice(0, cut)}
      <b>{value.slice(cut)}</b>
    </code>
  );
}

/**
 * Loading and error lines of an {@link Async}, announced politely. A read again of what is shown (Refresh, a live
 * page) says nothing while it runs: a screen reader would hear "Loading" every few seconds.
 */
export function AsyncState({ state, what }: { state: Async<unknown>; what: string }) {
  return (
    <p class={`notice ${state.error ? 'error' : 'info'}`} role="status" aria-live="polite">
      {state.error
        ? t('ui.loadFailed', { what, error: errorText(state.error) })
        : state.loading && state.data === undefined
          ? t('ui.loading', { what })
          : ''}
    </p>
  );
}

interface InputProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
  /** What is wrong with the value (the API's words), shown under the field and announced with it. */
  error?: string | undefined;
  type?: 'text' | 'password' | 'number' | 'date' | 'datetime-local' | 'url' | 'email' | 'tel' | 'search';
  required?: boolean;
  maxLength?: number;
  minLength?: number;
  min?: string;
  max?: string;
  step?: string;
  pattern?: string;
  inputMode?: 'text' | 'tel' | 'numeric' | 'decimal' | 'email' | 'url' | 'search';
  autoComplete?: string;
  inputRef?: RefObject<HTMLInputElement>;
}

/** A labelled text input (or date, number, password...). */
export function TextField({ label, value, onValue, hint, error, inputRef, type = 'text', ...rest }: InputProps) {
  const id = useId();
  // Preact's input attributes are a union per `type`; this one component serves several types.
  const inputProps = {
    ...rest,
    id,
    ref: inputRef,
    type,
    value,
    onInput: (e: Event) => onValue((e.currentTarget as HTMLInputElement).value),
    ...errorAttributes(id, hint, error),
  } as unknown as InputHTMLAttributes<HTMLInputElement>;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input {...inputProps} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

/** aria-describedby (the hint, the error) and aria-invalid of a field's control. */
function errorAttributes(id: string, hint: string | undefined, error: string | undefined) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { 'aria-describedby': describedBy || undefined, 'aria-invalid': error ? true : undefined };
}

/** A field's hint and error lines, referred to by its control's aria-describedby. */
function FieldNotes({ id, hint, error }: { id: string; hint?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </>
  );
}

/** A labelled multi-line text input. */
export function TextArea({
  label,
  value,
  onValue,
  hint,
  error,
  ...rest
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string | undefined;
  /** What is wrong with the value (the API's words), shown under the field and announced with it. */
  error?: string | undefined;
  required?: boolean;
  rows?: number;
}) {
  const id = useId();
  return (
    <div class="field wide">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        {...errorAttributes(id, hint, error)}
        {...rest}
      />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export type Option<V extends string = string> = V | { value: V; label: string };

/** A labelled select; its value is one of its options' (`V`: the API's enum where a page sends one). */
export function SelectField<V extends string>({
  label,
  value,
  onValue,
  options,
  required,
  disabled,
  error,
}: {
  label: string;
  value: V;
  onValue: (value: V) => void;
  options: readonly Option<V>[];
  required?: boolean;
  disabled?: boolean;
  /** What is wrong with the value (the API's words), shown under the field and announced with it. */
  error?: string | undefined;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value as V)}
        required={required}
        disabled={disabled}
        {...errorAttributes(id, undefined, error)}
      >
        {options.map((o) => {
          const { value: v, label: l } = typeof o === 'string' ? { value: o, label: o } : o;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
      <FieldNotes id={id} error={error} />
    </div>
  );
}

/** A labelled checkbox; `role="switch"` when it acts at once rather than on a form's submit. */
export function CheckField({
  label,
  checked,
  onChecked,
  switchLike,
  disabled,
}: {
  label: string;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  switchLike?: boolean;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div class="field check">
      <input
        id={id}
        type="checkbox"
        role={switchLike ? 'switch' : undefined}
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChecked(e.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
    </div>
  );
}

/** A table that scrolls sideways on narrow screens; the region is focusable so keyboards can scroll it. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{label}</caption>
        {children}
      </table>
    </div>
  );
}

/**
 * A column of a ListTable: its header text, or the text with a class (e.g. "num") or visually hidden (e.g. "Actions").
 */
export type Column = string | { readonly label: string; readonly class?: string; readonly hidden?: boolean };

/** What a column sorts its rows by: a number or a text (compared as the reader's language does); none goes last. */
export type SortValue = string | number | null | undefined;

/** The rows sorted by a key, ascending or descending; a stable sort, with rows without a value at the end. */
export function sortRows<T>(rows: readonly T[], key: (item: T) => SortValue, direction: 'ascending' | 'descending') {
  const collator = new Intl.Collator(currentLocale(), { numeric: true, sensitivity: 'base' });
  const sign = direction === 'ascending' ? 1 : -1;
  return rows
    .map((item, index) => ({ item, index, value: key(item) }))
    .sort((a, b) => {
      const missing = Number(a.value == null || a.value === '') - Number(b.value == null || b.value === '');
      if (missing !== 0 || a.value == null || b.value == null) return missing || a.index - b.index;
      const order =
        typeof a.value === 'number' && typeof b.value === 'number'
          ? a.value - b.value
          : collator.compare(String(a.value), String(b.value));
      return order * sign || a.index - b.index;
    })
    .map((entry) => entry.item);
}

/**
 * A TableWrap list: a header row of `<th scope="col">`, then a "nothing here" row spanning every column when
 * there are no rows and `empty` is given, then each row as the caller renders it, then an optional footer.
 *
 * `sorts`, one entry per column (undefined for a column that does not sort): the header of such a column is a
 * button that sorts the rows shown by that value, ascending, then descending on a second press; the sorted column's
 * `th` says so in `aria-sort` (the others have none) and its button shows an arrow. A list the server pages sorts
 * the rows of its page.
 */
export function ListTable<T>({
  label,
  columns,
  rows,
  empty,
  row,
  foot,
  sorts,
}: {
  label: string;
  columns: readonly Column[];
  rows: readonly T[];
  empty?: ComponentChildren;
  row: (item: T, index: number) => VNode;
  foot?: ComponentChildren;
  sorts?: readonly (((item: T) => SortValue) | undefined)[];
}) {
  const [sorted, setSorted] = useState<{ column: number; direction: 'ascending' | 'descending' } | undefined>();
  const key = sorted && sorts?.[sorted.column];
  const shown = key && sorted ? sortRows(rows, key, sorted.direction) : rows;
  const press = (column: number) =>
    setSorted((now) => ({
      column,
      direction: now?.column === column && now.direction === 'ascending' ? 'descending' : 'ascending',
    }));
  return (
    <TableWrap label={label}>
      <thead>
        <tr>
          {columns.map((column, i) => {
            const c = typeof column === 'string' ? { label: column } : column;
            const direction = sorted?.column === i ? sorted.direction : undefined;
            return (
              <th scope="col" class={c.class} key={i} aria-sort={direction}>
                {sorts?.[i] && !c.hidden ? (
                  <button type="button" class="sort" onClick={() => press(i)}>
                    {c.label}
                    <span class="sort-mark" aria-hidden="true">
                      {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
                    </span>
                  </button>
                ) : c.hidden ? (
                  <span class="visually-hidden">{c.label}</span>
                ) : (
                  c.label
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty !== undefined && (
          <tr>
            <td colSpan={columns.length}>{empty}</td>
          </tr>
        )}
        {shown.map(row)}
      </tbody>
      {foot !== undefined && <tfoot>{foot}</tfoot>}
    </TableWrap>
  );
}

/** Previous/next buttons and "Page x of y" for a server-side paginated list. */
export function Pager({
  list,
  onPage,
  label,
  maxItems,
}: {
  list: Pick<ApiPage<unknown>, 'page' | 'per_page' | 'total'> | undefined;
  onPage: (page: number) => void;
  label?: string;
  maxItems?: number;
}) {
  if (!list) return null;
  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  const reachable = maxItems === undefined ? pages : Math.max(1, Math.min(pages, Math.floor(maxItems / list.per_page)));
  return (
    <nav class="pager" aria-label={label ?? t('ui.pages')}>
      <button type="button" disabled={list.page <= 1} onClick={() => onPage(list.page - 1)}>
        {t('ui.previousPage')}
      </button>
      <span>{t('ui.pageOf', { page: list.page, pages, total: list.total })}</span>
      <button type="button" disabled={list.page >= reachable} onClick={() => onPage(list.page + 1)}>
        {t('ui.nextPage')}
      </button>
      {reachable < pages && list.page >= reachable && <span class="hint">{t('ui.narrowDates')}</span>}
    </nav>
  );
}

/** A token or secret shown once, with a copy button. */
export function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret">
      <span class="secret-label">{label}</span>
      <code data-testid="secret-value">{value}</code>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {t('ui.copy')}
      </button>
      <span role="status" aria-live="polite" class="hint">
        {copied ? t('ui.copied') : ''}
      </span>
    </div>
  );
}

/** Runs an async action with a busy flag, reporting success or failure to a notice. */
export function useAction(notice: ReturnType<typeof useNotice>) {
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<string | void>) => {
    setBusy(true);
    notice.info(t('ui.working'));
    try {
      const text = await action();
      if (text) notice.ok(text);
      else notice.clear();
    } catch (error) {
      notice.error(error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}

/**
 * A destructive action in two clicks without a browser dialog: the first shows "Confirm <label>" (focused) and
 * "Cancel"; the second runs it. `name` says what it acts on, for the accessible names ("Delete Acme").
 */
export function ConfirmButton({
  label,
  name,
  onConfirm,
  disabled,
}: {
  label: string;
  name: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        class="danger small"
        disabled={disabled}
        onClick={() => setAsking(true)}
        aria-label={`${label} ${name}`}
      >
        {label}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger small"
        ref={confirmRef}
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        aria-label={`${t('ui.confirmAction', { action: label.toLowerCase() })} ${name}`}
      >
        {t('ui.confirmAction', { action: label.toLowerCase() })}
      </button>
      <button type="button" class="secondary small" onClick={() => setAsking(false)}>
        {t('ui.cancel')}
      </button>
    </span>
  );
}

/** A select of channels (all of CHANNELS unless `channels` narrows them), each named in words, labelled "Channel". */
export function ChannelField<C extends string>({
  value,
  onValue,
  channels,
}: {
  value: C;
  onValue: (value: C) => void;
  channels: readonly C[];
}) {
  return (
    <SelectField label={t('col.channel')} value={value} onValue={onValue} options={codeOptions('channel', channels)} />
  );
}
