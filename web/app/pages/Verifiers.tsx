import { codeOptions, codeWord, t, texts } from '../../shared/i18n/index.js';
import { useRef, useState } from 'preact/hooks';
import { ApiError, errorWords } from '../../shared/api.js';
import type { RequestBody } from '../../shared/apiClient.js';
import { type Channel, CHANNELS, formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { MAX_STEPS } from '../cascades.js';
import { system } from '../session.js';
import type { Verifier } from '../types.js';

type VerifierBody = RequestBody<'/api/v1/verifiers', 'post'>;

/** A workflow step as the form holds it; `key` keeps each step's inputs in place when another is removed. */
interface StepDraft {
  readonly key: number;
  readonly channelType: Channel;
  readonly senderName: string;
  readonly timeout: string;
}

interface Draft {
  readonly name: string;
  readonly brand: string;
  readonly codeLength: string;
  readonly codeTtl: string;
  readonly maxChecks: string;
  readonly steps: readonly StepDraft[];
}

const EMPTY: Draft = { name: '', brand: '', codeLength: '4', codeTtl: '300', maxChecks: '3', steps: [] };

/** What the sender name of a step is on channels that take a fixed one. */
const FIXED_SENDER: Partial<Record<Channel, string>> = { VOICECODE: 'voicecode' };

/** Errors by field: `name`, `brand`, `codeLength`, `codeTtl`, `maxChecks`, `workflow`, `step.<i>.<field>`. */
type FieldErrors = Readonly<Record<string, string>>;

/**
 * The field an API error is about: its message names it (`Invalid workflow.1.timeout: ...`, `Missing brand`), or
 * its `step` says which step (a channel not enabled, a sender name not active). Undefined when no field is.
 */
export function fieldOf(error: ApiError): string | undefined {
  const named = /^(?:Invalid|Missing) ([A-Za-z]+(?:\.\d+\.[A-Za-z]+)?)/.exec(error.message)?.[1];
  if (named?.startsWith('workflow.')) return named.replace(/^workflow\./, 'step.');
  if (named) return named;
  const step = error.detail.step;
  if (typeof step !== 'number') return undefined;
  return error.code === 4031 ? `step.${step}.channelType` : `step.${step}.senderName`;
}

const secondsOf = (seconds: number) => t('connectors.seconds', { seconds });
/** A number input's props for a whole number in [min, max], the API's bounds kept by the browser too. */
const whole = (min: number, max: number) =>
  ({ type: 'number', min: String(min), max: String(max), step: '1', inputMode: 'numeric' }) as const;
const workflowText = (v: Verifier) =>
  v.workflow.map((s) => `${codeWord('channel', s.channelType)} (${secondsOf(s.timeout)})`).join(' → ');

/**
 * Verifiers (DESIGN 16): how the account's one-time codes are made (brand, code length, lifetime, checks) and over
 * which channels they go (the workflow's steps, each with how long it waits for the code before the next one).
 * List, create, edit, delete; the API's refusals are shown beside the field they are about.
 */
export function Verifiers() {
  const nextKey = useRef(1);
  const step = (channelType: Channel = 'SMS'): StepDraft => ({
    key: nextKey.current++,
    channelType,
    senderName: FIXED_SENDER[channelType] ?? '',
    timeout: '60',
  });
  const [draft, setDraft] = useState<Draft>(() => ({ ...EMPTY, steps: [step()] }));
  const [editing, setEditing] = useState<Verifier | undefined>(undefined);
  const [errors, setErrors] = useState<FieldErrors>({});
  const notice = useNotice();
  const action = useAction(notice);
  const list = useAsync((signal) => system.get('/api/v1/verifiers', { signal }), []);

  /** Sets fields of the draft and clears their errors (all the steps' when steps are added or removed). */
  const set = (fields: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...fields }));
    const cleared = (k: string) => k in fields || ('steps' in fields && (k === 'workflow' || k.startsWith('step.')));
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !cleared(k))));
  };
  const setStep = (key: number, index: number, fields: Partial<Omit<StepDraft, 'key'>>) => {
    setDraft((d) => ({ ...d, steps: d.steps.map((s) => (s.key === key ? { ...s, ...fields } : s)) }));
    setErrors((e) =>
      Object.fromEntries(
        Object.entries(e).filter(
          ([k]) => k !== 'workflow' && !Object.keys(fields).some((f) => k === `step.${index}.${f}`),
        ),
      ),
    );
  };
  const reset = () => {
    setEditing(undefined);
    setErrors({});
    setDraft({ ...EMPTY, steps: [step()] });
  };
  const edit = (v: Verifier) => {
    setEditing(v);
    setErrors({});
    notice.clear();
    setDraft({
      name: v.name,
      brand: v.brand,
      codeLength: String(v.codeLength),
      codeTtl: String(v.codeTtl),
      maxChecks: String(v.maxChecks),
      steps: v.workflow.map((s) => ({ ...step(s.channelType), senderName: s.senderName, timeout: String(s.timeout) })),
    });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    setErrors({});
    void action.run(async () => {
      const body: VerifierBody = {
        name: draft.name.trim(),
        brand: draft.brand.trim(),
        codeLength: Number(draft.codeLength),
        codeTtl: Number(draft.codeTtl),
        maxChecks: Number(draft.maxChecks),
        workflow: draft.steps.map((s) => ({
          channelType: s.channelType,
          senderName: s.senderName.trim(),
          timeout: Number(s.timeout),
        })),
      };
      try {
        const saved = editing
          ? await system.patch('/api/v1/verifiers/{gatewayId}', { params: { gatewayId: editing.gatewayId }, body })
          : await system.post('/api/v1/verifiers', { body });
        reset();
        list.reload();
        return editing
          ? t('verifiers.saved', { name: saved.name })
          : t('verifiers.created', { name: saved.name, gateway: saved.gatewayId });
      } catch (error) {
        const field = error instanceof ApiError ? fieldOf(error) : undefined;
        if (field && error instanceof ApiError) {
          setErrors({ [field]: errorWords(error) });
          throw new ApiError(error.status, error.code, error.message, {
            ...error.detail,
            about: t('verifiers.notSaved'),
          });
        }
        throw error;
      }
    });
  };
  const remove = (v: Verifier) =>
    action.run(async () => {
      await system.delete('/api/v1/verifiers/{gatewayId}', { params: { gatewayId: v.gatewayId } });
      if (editing?.gatewayId === v.gatewayId) reset();
      list.reload();
      return t('verifiers.deleted', { name: v.name });
    });

  return (
    <Page title={t('app.nav.verifiers')}>
      <p class="lead">
        A verifier sends one-time codes with a verify token (<code>POST /api/v1/verifier/send</code>) and checks them (
        <code>POST /api/v1/verifier/check</code>): each step of its workflow is sent when the one before was not
        delivered or its code not confirmed in time.
      </p>
      <form class="card" onSubmit={submit} aria-labelledby="verifier-form">
        <h2 id="verifier-form">{editing ? t('verifiers.edit', { name: editing.name }) : t('verifiers.create')}</h2>
        <div class="grid">
          <TextField
            label={t('col.name')}
            value={draft.name}
            onValue={(name) => set({ name })}
            required
            maxLength={200}
            error={errors.name}
          />
          <TextField
            label={t('verifiers.brand')}
            value={draft.brand}
            onValue={(brand) => set({ brand })}
            required
            maxLength={64}
            hint={t('verifiers.brandHint', { example: '“<brand>: <code>”' })}
            error={errors.brand}
          />
          <TextField
            label={t('verifiers.codeLength')}
            {...whole(4, 8)}
            value={draft.codeLength}
            onValue={(codeLength) => set({ codeLength })}
            required
            hint={t('verifiers.codeLengthHint')}
            error={errors.codeLength}
          />
          <TextField
            label={t('verifiers.lifetime')}
            {...whole(60, 3600)}
            value={draft.codeTtl}
            onValue={(codeTtl) => set({ codeTtl })}
            required
            hint={t('verifiers.lifetimeHint')}
            error={errors.codeTtl}
          />
          <TextField
            label={t('verifiers.maxChecks')}
            {...whole(1, 10)}
            value={draft.maxChecks}
            onValue={(maxChecks) => set({ maxChecks })}
            required
            hint={t('verifiers.maxChecksHint')}
            error={errors.maxChecks}
          />
        </div>
        {draft.steps.map((s, i) => (
          <fieldset key={s.key}>
            <legend>{t('cascade.step', { step: i + 1 })}</legend>
            <div class="grid">
              <SelectField
                label={t('col.channel')}
                value={s.channelType}
                onValue={(channelType) =>
                  setStep(s.key, i, { channelType, senderName: FIXED_SENDER[channelType] ?? s.senderName })
                }
                options={codeOptions('channel', CHANNELS)}
                error={errors[`step.${i}.channelType`]}
              />
              <TextField
                label={t('col.senderName')}
                value={s.senderName}
                onValue={(senderName) => setStep(s.key, i, { senderName })}
                required
                maxLength={50}
                hint={
                  s.channelType === 'SMS' || s.channelType === 'WHATSAPP'
                    ? t('verifiers.approvedName')
                    : s.channelType === 'TELEGRAM'
                      ? t('verifiers.approvedBot')
                      : s.channelType === 'VOICECODE'
                        ? t('verifiers.voicecode')
                        : undefined
                }
                error={errors[`step.${i}.senderName`]}
              />
              <TextField
                label={t('verifiers.timeout')}
                {...whole(30, 900)}
                value={s.timeout}
                onValue={(timeout) => setStep(s.key, i, { timeout })}
                required
                hint={t('verifiers.timeoutHint')}
                error={errors[`step.${i}.timeout`]}
              />
            </div>
            {draft.steps.length > 1 && (
              <div class="actions">
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => set({ steps: draft.steps.filter((d) => d.key !== s.key) })}
                  aria-label={t('cascade.removeStepN', { step: i + 1 })}
                >
                  {t('cascade.removeStep')}
                </button>
              </div>
            )}
          </fieldset>
        ))}
        {errors.workflow && (
          <p class="field-error" role="alert">
            {errors.workflow}
          </p>
        )}
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={draft.steps.length >= MAX_STEPS}
            onClick={() => set({ steps: [...draft.steps, step()] })}
          >
            {t('cascade.addStep')}
          </button>
          <button type="submit" disabled={action.busy}>
            {editing ? t('verifiers.saveChanges') : t('verifiers.createButton')}
          </button>
          {editing && (
            <button type="button" class="secondary" onClick={reset}>
              {t('verifiers.cancel')}
            </button>
          )}
        </div>
        {draft.steps.length >= MAX_STEPS && <p class="hint">{t('verifiers.atMost', { max: MAX_STEPS })}</p>}
      </form>
      <NoticeLine notice={notice.notice} />

      <AsyncState state={list} what={t('verifiers.theVerifiers')} />
      {list.data && (
        <ListTable
          label={t('app.nav.verifiers')}
          columns={[
            ...texts('col.name', 'verification.gatewayId', 'verifiers.brand'),
            ...(['verifiers.codeLength', 'verifiers.lifetimeCol', 'verifiers.maxChecks'] as const).map((key) => ({
              label: t(key),
              class: 'num',
            })),
            ...texts('verifiers.workflow', 'col.updated'),
            { label: t('ui.actions'), hidden: true },
          ]}
          rows={list.data.items}
          empty={t('verifiers.none')}
          row={(v) => (
            <tr key={v.gatewayId}>
              <th scope="row">{v.name}</th>
              <td>
                <code>{v.gatewayId}</code>
              </td>
              <td>{v.brand}</td>
              <td class="num">{v.codeLength}</td>
              <td class="num">{secondsOf(v.codeTtl)}</td>
              <td class="num">{v.maxChecks}</td>
              <td>{workflowText(v)}</td>
              <td>{formatTime(v.updatedAt)}</td>
              <td>
                <span class="actions">
                  <button
                    type="button"
                    class="secondary small"
                    disabled={action.busy}
                    onClick={() => edit(v)}
                    aria-label={t('verifiers.edit', { name: v.name })}
                  >
                    {t('verifiers.editButton')}
                  </button>
                  <ConfirmButton
                    label={t('ui.delete')}
                    name={v.name}
                    disabled={action.busy}
                    onConfirm={() => void remove(v)}
                  />
                </span>
              </td>
            </tr>
          )}
        />
      )}
    </Page>
  );
}
