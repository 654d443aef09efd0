import { formatTime } from './format.js';
import { codeWord, t, texts } from './i18n/index.js';
import { useEffect, useState } from 'preact/hooks';
import { ListTable, TextArea } from './ui.js';

/** One side's settings, as the API stores them: the fields it sets. */
type Side = Record<string, unknown>;
export interface GuardSettingsData {
  readonly operator: Side;
  readonly client: Side;
  readonly effective: Side;
}
export interface AuditEntry {
  readonly id: string;
  readonly changedAt: string;
  readonly side: string;
  readonly actor: string;
  readonly before: Side;
  readonly after: Side;
}

const FIELDS = ['geoPermissions', 'flood', 'dailySpendLimit', 'consentRequired', 'pumping'] as const;
const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value));

/**
 * The fraud guard's and consent's settings (DESIGN 20, docs/fraud.md): per field the operator's, the client's
 * narrowing and the effective value; an editor of one side's fields as JSON (`editing`), whose save is a PATCH of
 * the caller's.
 */
export function GuardSettingsView({
  settings,
  editing,
  busy,
  onSave,
}: {
  settings: GuardSettingsData;
  editing: 'operator' | 'client';
  busy: boolean;
  onSave: (changes: Side) => void;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => setText(JSON.stringify(settings[editing], null, 2)), [settings, editing]);
  const save = (event: Event) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      setError(t('guard.notJson'));
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setError('A JSON object of settings');
      return;
    }
    setError(undefined);
    // A field removed from the object is cleared: null (the client's narrowing ends; the operator's default).
    const cleared = Object.fromEntries(
      Object.keys(settings[editing])
        .filter((k) => !(k in parsed))
        .map((k) => [k, null]),
    );
    onSave({ ...cleared, ...(parsed as Side) });
  };
  return (
    <>
      <ListTable
        label={t('guard.table')}
        columns={texts('guard.setting', 'guard.operator', 'col.account', 'guard.effective')}
        rows={FIELDS}
        row={(field) => (
          <tr key={field}>
            <th scope="row">{field}</th>
            <td class="mono">{show(settings.operator[field])}</td>
            <td class="mono">{show(settings.client[field])}</td>
            <td class="mono" data-testid={`effective-${field}`}>
              {show(settings.effective[field])}
            </td>
          </tr>
        )}
      />
      <form class="card" onSubmit={save} aria-labelledby="guard-edit">
        <h2 id="guard-edit">{editing === 'operator' ? t('guard.operatorSettings') : t('guard.narrow')}</h2>
        <TextArea
          label={t('guard.json')}
          value={text}
          onValue={setText}
          rows={8}
          hint={editing === 'client' ? t('guard.clientHint') : t('guard.operatorHint')}
        />
        {error && <p class="field-error">{error}</p>}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {t('guard.save')}
          </button>
        </div>
      </form>
    </>
  );
}

/** The audit of settings: who changed which side, when, from what to what. */
export function SettingsAudit({ items }: { items: readonly AuditEntry[] }) {
  return (
    <ListTable
      label={t('guard.audit')}
      columns={texts('guard.when', 'guard.side', 'guard.who', 'guard.before', 'guard.after')}
      rows={items}
      empty={t('guard.noChanges')}
      row={(e) => (
        <tr key={e.id}>
          <td>{formatTime(e.changedAt)}</td>
          <td>{codeWord('side', e.side)}</td>
          <td class="mono">{e.actor}</td>
          <td class="mono">{JSON.stringify(e.before)}</td>
          <td class="mono">{JSON.stringify(e.after)}</td>
        </tr>
      )}
    />
  );
}
