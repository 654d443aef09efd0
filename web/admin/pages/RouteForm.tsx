import { codeOptions, t } from '../../shared/i18n/index.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorText, errorWords } from '../../shared/api.js';
import { type Channel, CHANNELS } from '../../shared/format.js';
import { CheckField, SelectField, TextField, type useAction } from '../../shared/ui.js';
import {
  bodyOf,
  type ConnectorDraft,
  DraftError,
  draftOf,
  emptyConnector,
  emptyDraft,
  patchOf,
  type RouteDraft,
  routeFieldOf,
  STRATEGIES,
  MATCH_LISTS,
} from '../routeForm.js';
import { admin } from '../session.js';
import type { Route } from '../types.js';

/** The "Another id…" choice of a connector select: the id is typed in a text field instead. */
const OTHER = '\u0000other';

/** The connectors Herald reports (GET /admin/v1/connectors), one per id, with the channel each carries. */
export interface ConnectorChoice {
  readonly id: string;
  readonly channel: string;
}

/**
 * The form that adds a route or, given `editing`, changes one (PATCH with every field, empty match lists removed).
 * A refusal of the API is shown under the field it names (`connectors.1.connectorId: ...` under connector 2's
 * "Connector"), which takes the focus, and in the page's status line as "Not saved: <the API's message>".
 */
export function RouteForm({
  editing,
  connectors,
  action,
  onSaved,
  onCancel,
}: {
  editing: Route | undefined;
  connectors: readonly ConnectorChoice[];
  action: ReturnType<typeof useAction>;
  onSaved: (route: Route, created: boolean) => void;
  onCancel: () => void;
}) {
  const nextKey = useRef(1);
  const key = () => nextKey.current++;
  const choicesOf = (channel: string) => connectors.filter((c) => c.channel === channel).map((c) => c.id);
  const [draft, setDraft] = useState<RouteDraft>(() =>
    editing
      ? draftOf(editing, key, (id) => connectors.some((c) => c.id === id))
      : emptyDraft(emptyConnector(key(), choicesOf('SMS')[0])),
  );
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});
  const form = useRef<HTMLFormElement>(null);
  const focusError = useRef(false);
  const choices = choicesOf(draft.channelType);

  // A row not typed by hand names one of the channel's connectors: the first until another is chosen (also once
  // the list arrives, and after the channel changes).
  const choicesKey = choices.join('\n');
  useEffect(() => {
    if (choices.length === 0) return;
    setDraft((d) => ({
      ...d,
      connectors: d.connectors.map((c) =>
        c.other || choices.includes(c.connectorId) ? c : { ...c, connectorId: choices[0]! },
      ),
    }));
  }, [choicesKey]);
  useEffect(() => {
    if (!focusError.current) return;
    focusError.current = false;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .field-error[tabindex]')?.focus();
  }, [errors]);

  /** Changes the draft and clears the errors shown at the fields changed (`fields`: their keys). */
  const change = (next: Partial<RouteDraft>, ...fields: string[]) => {
    setDraft((d) => ({ ...d, ...next }));
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !fields.some((f) => k.startsWith(f)))));
  };
  const changeConnector = (index: number, next: Partial<ConnectorDraft>, field: string) =>
    change(
      { connectors: draft.connectors.map((c, i) => (i === index ? { ...c, ...next } : c)) },
      `connectors.${index}.${field}`,
      'connectors',
    );

  const submit = (event: Event) => {
    event.preventDefault();
    setErrors({});
    void action.run(async () => {
      try {
        const saved = editing
          ? await admin.patch('/admin/v1/routes/{id}', { params: { id: editing.id }, body: patchOf(draft) })
          : await admin.post('/admin/v1/routes', { body: bodyOf(draft) });
        onSaved(saved, !editing);
        return t(editing ? 'routeForm.saved' : 'routeForm.added', { id: saved.id });
      } catch (error) {
        const field =
          error instanceof DraftError ? error.field : error instanceof ApiError ? routeFieldOf(error) : undefined;
        if (field === undefined || !(error instanceof Error)) throw error;
        focusError.current = true;
        setErrors({ [field]: errorWords(error) });
        throw new Error(t('routeForm.notSaved', { error: errorText(error) }), { cause: error });
      }
    });
  };

  const general = (field: string) =>
    errors[field] && (
      <p class="field-error" role="alert" tabIndex={-1}>
        {errors[field]}
      </p>
    );

  return (
    <form class="card" ref={form} onSubmit={submit} aria-labelledby="route-form" noValidate>
      <h2 id="route-form" tabIndex={-1}>
        {editing ? t('routes.editRoute', { id: editing.id }) : t('routeForm.add')}
      </h2>
      <fieldset>
        <legend>{t('routes.matchCol')}</legend>
        <div class="grid">
          <TextField
            label={t('routes.priority')}
            type="number"
            step="1"
            value={draft.priority}
            onValue={(priority) => change({ priority }, 'priority')}
            hint={t('routeForm.priorityHint')}
            error={errors.priority}
          />
          <SelectField
            label={t('col.channel')}
            value={draft.channelType}
            onValue={(channelType: Channel) => change({ channelType }, 'match.channelType', 'connectors')}
            options={codeOptions('channel', CHANNELS)}
            error={errors['match.channelType']}
          />
          {/* Each match list's label and hint: keys `routeForm.<field>` and `routeForm.<field>Hint`. */}
          {MATCH_LISTS.map((field) => (
            <TextField
              key={field}
              label={t(`routeForm.${field}`)}
              value={draft.lists[field]}
              onValue={(value) => change({ lists: { ...draft.lists, [field]: value } }, `match.${field}`)}
              hint={t('routeForm.listHint', { hint: t(`routeForm.${field}Hint`) })}
              error={errors[`match.${field}`]}
            />
          ))}
        </div>
      </fieldset>

      <fieldset>
        <legend>{t('admin.nav.connectors')}</legend>
        <div class="grid">
          <SelectField
            label={t('routes.strategy')}
            value={draft.strategy}
            onValue={(strategy) => change({ strategy }, 'strategy', 'connectors')}
            options={codeOptions('strategy', STRATEGIES)}
            error={errors.strategy}
          />
        </div>
        <p class="hint">{t('routeForm.strategyHint')}</p>
        {draft.connectors.map((c, i) => {
          const listed = choices.length > 0 && !c.other;
          return (
            <fieldset key={c.key}>
              <legend>{t('routeForm.connectorN', { step: i + 1 })}</legend>
              <div class="grid">
                {choices.length > 0 && (
                  <SelectField
                    label={t('col.connector')}
                    value={listed ? c.connectorId : OTHER}
                    onValue={(value) =>
                      changeConnector(
                        i,
                        value === OTHER ? { other: true, connectorId: '' } : { other: false, connectorId: value },
                        'connectorId',
                      )
                    }
                    options={[...choices, { value: OTHER, label: t('routeForm.another') }]}
                    error={listed ? errors[`connectors.${i}.connectorId`] : undefined}
                  />
                )}
                {!listed && (
                  <TextField
                    label={t('routeForm.connectorId')}
                    value={c.connectorId}
                    onValue={(connectorId) => changeConnector(i, { connectorId }, 'connectorId')}
                    required
                    maxLength={100}
                    hint={choices.length > 0 ? undefined : t('routeForm.noReports', { channel: draft.channelType })}
                    error={errors[`connectors.${i}.connectorId`]}
                  />
                )}
                {draft.strategy === 'weighted' && (
                  <TextField
                    label={t('routeForm.weight')}
                    type="number"
                    min="1"
                    max="1000"
                    step="1"
                    value={c.weight}
                    onValue={(weight) => changeConnector(i, { weight }, 'weight')}
                    hint={t('routeForm.weightHint')}
                    error={errors[`connectors.${i}.weight`]}
                  />
                )}
                <TextField
                  label={t('resolve.buy')}
                  inputMode="decimal"
                  autoComplete="off"
                  value={c.amount}
                  onValue={(amount) => changeConnector(i, { amount }, 'buyPrice')}
                  hint={t('routeForm.buyHint')}
                  error={errors[`connectors.${i}.buyPrice.amount`]}
                />
                <TextField
                  label={t('accounts.currency')}
                  value={c.currency}
                  onValue={(currency) => changeConnector(i, { currency }, 'buyPrice')}
                  maxLength={3}
                  hint={t('routeForm.currencyHint')}
                  error={errors[`connectors.${i}.buyPrice.currency`]}
                />
              </div>
              {draft.connectors.length > 1 && (
                <div class="actions">
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={t('routeForm.removeN', { step: i + 1 })}
                    onClick={() =>
                      change({ connectors: draft.connectors.filter((d) => d.key !== c.key) }, 'connectors')
                    }
                  >
                    {t('routeForm.remove')}
                  </button>
                </div>
              )}
            </fieldset>
          );
        })}
        {general('connectors')}
        <div class="actions">
          <button
            type="button"
            class="secondary"
            onClick={() => change({ connectors: [...draft.connectors, emptyConnector(key(), choices[0])] })}
          >
            {t('routeForm.addConnector')}
          </button>
        </div>
      </fieldset>

      <fieldset>
        <legend>{t('routeForm.rerouteQuality')}</legend>
        <CheckField
          label={t('routeForm.reroute')}
          checked={draft.reroute}
          onChecked={(reroute) => change({ reroute }, 'reroute')}
        />
        {draft.reroute && (
          <div class="grid">
            <TextField
              label={t('routeForm.errorCodes')}
              value={draft.errorCodes}
              onValue={(errorCodes) => change({ errorCodes }, 'reroute')}
              hint={t('routeForm.errorCodesHint')}
              error={errors['reroute.errorCodes']}
            />
            <CheckField
              label={t('routeForm.undelivered')}
              checked={draft.onUndelivered}
              onChecked={(onUndelivered) => change({ onUndelivered }, 'reroute')}
            />
            <TextField
              label={t('routeForm.max')}
              type="number"
              min="1"
              max="3"
              step="1"
              value={draft.rerouteMax}
              onValue={(rerouteMax) => change({ rerouteMax }, 'reroute')}
              error={errors['reroute.max']}
            />
          </div>
        )}
        {general('reroute')}
        <CheckField
          label={t('routeForm.quality')}
          checked={draft.quality}
          onChecked={(quality) => change({ quality }, 'quality')}
        />
        {draft.quality && (
          <div class="grid">
            <TextField
              label={t('routeForm.minRate')}
              type="number"
              min="0"
              max="1"
              step="any"
              value={draft.minDeliveryRate}
              onValue={(minDeliveryRate) => change({ minDeliveryRate }, 'quality')}
              hint={t('routeForm.minRateHint')}
              error={errors['quality.minDeliveryRate']}
            />
            <TextField
              label={t('routeForm.window')}
              type="number"
              min="60"
              max="86400"
              step="1"
              value={draft.windowSeconds}
              onValue={(windowSeconds) => change({ windowSeconds }, 'quality')}
              error={errors['quality.windowSeconds']}
            />
          </div>
        )}
        {general('quality')}
      </fieldset>

      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {editing ? t('routeForm.save') : t('routeForm.addButton')}
        </button>
        {editing && (
          <button type="button" class="secondary" onClick={onCancel}>
            {t('verifiers.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
