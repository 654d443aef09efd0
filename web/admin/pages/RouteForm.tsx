import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../shared/api.js';
import { type Channel, CHANNELS } from '../../shared/format.js';
import { CheckField, SelectField, TextField, type useAction } from '../../shared/ui.js';
import {
  bodyOf,
  type ConnectorDraft,
  DraftError,
  draftOf,
  emptyConnector,
  emptyDraft,
  type MatchList,
  patchOf,
  type RouteDraft,
  routeFieldOf,
  STRATEGIES,
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

const LIST_FIELDS: readonly { field: MatchList; label: string; hint: string }[] = [
  { field: 'accountIds', label: 'Account ids', hint: 'Empty: every account.' },
  { field: 'trafficTypes', label: 'Traffic types', hint: 'AUTHORIZE, TRANSACT, SERVICE, PROMO. Empty: every one.' },
  { field: 'senderNames', label: 'Sender names', hint: 'Empty: every sender name.' },
  { field: 'prefixes', label: 'Prefixes', hint: 'Digits, e.g. 7916 7917. Empty: every number.' },
  { field: 'countries', label: 'Countries', hint: 'ISO 3166 codes, e.g. RU KZ.' },
  { field: 'operators', label: 'Operators', hint: "The number's operator (brand), e.g. MTS." },
];

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
        return editing ? `Route ${saved.id} saved.` : `Route ${saved.id} added.`;
      } catch (error) {
        const field =
          error instanceof DraftError ? error.field : error instanceof ApiError ? routeFieldOf(error) : undefined;
        if (field === undefined || !(error instanceof Error)) throw error;
        focusError.current = true;
        setErrors({ [field]: error.message });
        throw new Error(`Not saved: ${error.message}`, { cause: error });
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
        {editing ? `Edit route ${editing.id}` : 'Add a route'}
      </h2>
      <fieldset>
        <legend>Match</legend>
        <div class="grid">
          <TextField
            label="Priority"
            type="number"
            step="1"
            value={draft.priority}
            onValue={(priority) => change({ priority }, 'priority')}
            hint="The highest matching route wins."
            error={errors.priority}
          />
          <SelectField
            label="Channel"
            value={draft.channelType}
            onValue={(channelType: Channel) => change({ channelType }, 'match.channelType', 'connectors')}
            options={CHANNELS}
            error={errors['match.channelType']}
          />
          {LIST_FIELDS.map(({ field, label, hint }) => (
            <TextField
              key={field}
              label={label}
              value={draft.lists[field]}
              onValue={(value) => change({ lists: { ...draft.lists, [field]: value } }, `match.${field}`)}
              hint={`Separated by commas or spaces. ${hint}`}
              error={errors[`match.${field}`]}
            />
          ))}
        </div>
      </fieldset>

      <fieldset>
        <legend>Connectors</legend>
        <div class="grid">
          <SelectField
            label="Strategy"
            value={draft.strategy}
            onValue={(strategy) => change({ strategy }, 'strategy', 'connectors')}
            options={STRATEGIES}
            error={errors.strategy}
          />
        </div>
        <p class="hint">
          ordered: the first connector that is up, in this order; weighted: shares by weight; cheapest: the lowest buy
          price (every connector priced, in one currency).
        </p>
        {draft.connectors.map((c, i) => {
          const listed = choices.length > 0 && !c.other;
          return (
            <fieldset key={c.key}>
              <legend>Connector {i + 1}</legend>
              <div class="grid">
                {choices.length > 0 && (
                  <SelectField
                    label="Connector"
                    value={listed ? c.connectorId : OTHER}
                    onValue={(value) =>
                      changeConnector(
                        i,
                        value === OTHER ? { other: true, connectorId: '' } : { other: false, connectorId: value },
                        'connectorId',
                      )
                    }
                    options={[...choices, { value: OTHER, label: 'Another id…' }]}
                    error={listed ? errors[`connectors.${i}.connectorId`] : undefined}
                  />
                )}
                {!listed && (
                  <TextField
                    label="Connector id"
                    value={c.connectorId}
                    onValue={(connectorId) => changeConnector(i, { connectorId }, 'connectorId')}
                    required
                    maxLength={100}
                    hint={choices.length > 0 ? undefined : `No ${draft.channelType} connector reports: type its id.`}
                    error={errors[`connectors.${i}.connectorId`]}
                  />
                )}
                {draft.strategy === 'weighted' && (
                  <TextField
                    label="Weight"
                    type="number"
                    min="1"
                    max="1000"
                    step="1"
                    value={c.weight}
                    onValue={(weight) => changeConnector(i, { weight }, 'weight')}
                    hint="Its share; empty: 1."
                    error={errors[`connectors.${i}.weight`]}
                  />
                )}
                <TextField
                  label="Buy price per part"
                  type="number"
                  min="0"
                  step="any"
                  value={c.amount}
                  onValue={(amount) => changeConnector(i, { amount }, 'buyPrice')}
                  hint="Empty: not priced."
                  error={errors[`connectors.${i}.buyPrice.amount`]}
                />
                <TextField
                  label="Currency"
                  value={c.currency}
                  onValue={(currency) => changeConnector(i, { currency }, 'buyPrice')}
                  maxLength={3}
                  hint="e.g. RUB"
                  error={errors[`connectors.${i}.buyPrice.currency`]}
                />
              </div>
              {draft.connectors.length > 1 && (
                <div class="actions">
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Remove connector ${i + 1}`}
                    onClick={() =>
                      change({ connectors: draft.connectors.filter((d) => d.key !== c.key) }, 'connectors')
                    }
                  >
                    Remove connector
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
            Add a connector
          </button>
        </div>
      </fieldset>

      <fieldset>
        <legend>Reroute and quality</legend>
        <CheckField
          label="Reroute a failed message through the next connector"
          checked={draft.reroute}
          onChecked={(reroute) => change({ reroute }, 'reroute')}
        />
        {draft.reroute && (
          <div class="grid">
            <TextField
              label="Error codes"
              value={draft.errorCodes}
              onValue={(errorCodes) => change({ errorCodes }, 'reroute')}
              hint="Codes that send it on, separated by commas or spaces."
              error={errors['reroute.errorCodes']}
            />
            <CheckField
              label="Also when undelivered"
              checked={draft.onUndelivered}
              onChecked={(onUndelivered) => change({ onUndelivered }, 'reroute')}
            />
            <TextField
              label="Reroutes at most"
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
          label="Skip connectors below a delivery rate"
          checked={draft.quality}
          onChecked={(quality) => change({ quality }, 'quality')}
        />
        {draft.quality && (
          <div class="grid">
            <TextField
              label="Minimum delivery rate"
              type="number"
              min="0"
              max="1"
              step="any"
              value={draft.minDeliveryRate}
              onValue={(minDeliveryRate) => change({ minDeliveryRate }, 'quality')}
              hint="0 to 1: 0.9 is 90 %."
              error={errors['quality.minDeliveryRate']}
            />
            <TextField
              label="Over the last (seconds)"
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
          {editing ? 'Save route' : 'Add route'}
        </button>
        {editing && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel editing
          </button>
        )}
      </div>
    </form>
  );
}
