import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { t } from '../shared/i18n/index.js';

/**
 * What a money or blocking action will do, shown before it is done: a heading, the figures (e.g. balance now and
 * after), a note, and the button that does it (focused, named after the action and what it acts on) beside Cancel.
 */
export function ConfirmPanel({
  title,
  lines,
  note,
  confirm,
  onConfirm,
  onCancel,
  busy,
  testId,
}: {
  title: string;
  lines: readonly (readonly [label: string, value: ComponentChildren, testId?: string])[];
  note?: string;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  testId?: string;
}) {
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <div class="confirm-panel" role="group" aria-labelledby={`${id}-title`} data-testid={testId}>
      <h3 id={`${id}-title`}>{title}</h3>
      {lines.length > 0 && (
        <dl class="facts">
          {lines.map(([label, value, lineTestId]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd data-testid={lineTestId}>{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      {note && <p>{note}</p>}
      <div class="actions">
        <button type="button" class="danger" ref={button} disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
          {t('ui.cancel')}
        </button>
      </div>
    </div>
  );
}
