import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../../shared/api.js';
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

const secondsOf = (n: number) => `${n} s`;
/** A number input's props for a whole number in [min, max], the API's bounds kept by the browser too. */
const whole = (min: number, max: number) =>
  ({ type: 'number', min: String(min), max: String(max), step: '1', inputMode: 'numeric' }) as const;
const workflowText = (v: Verifier) => v.workflow.map((s) => `${s.channelType} (${secondsOf(s.timeout)})`).join(' → ');

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
          ? `Verifier ${saved.name} saved.`
          : `Verifier ${saved.name} created: send codes through gateway ${saved.gatewayId}.`;
      } catch (error) {
        const field = error instanceof ApiError ? fieldOf(error) : undefined;
        if (field && error instanceof ApiError) {
          setErrors({ [field]: error.message });
          throw new ApiError(error.status, error.code, `Not saved: ${error.message}`, error.detail);
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
      return `Verifier ${v.name} deleted; codes already sent through it can be checked until they expire.`;
    });

  return (
    <Page title="Verifiers">
      <p class="lead">
        A verifier sends one-time codes with a verify token (<code>POST /api/v1/verifier/send</code>) and checks them (
        <code>POST /api/v1/verifier/check</code>): each step of its workflow is sent when the one before was not
        delivered or its code not confirmed in time.
      </p>
      <form class="card" onSubmit={submit} aria-labelledby="verifier-form">
        <h2 id="verifier-form">{editing ? `Edit ${editing.name}` : 'Create a verifier'}</h2>
        <div class="grid">
          <TextField
            label="Name"
            value={draft.name}
            onValue={(name) => set({ name })}
            required
            maxLength={200}
            error={errors.name}
          />
          <TextField
            label="Brand"
            value={draft.brand}
            onValue={(brand) => set({ brand })}
            required
            maxLength={64}
            hint="Written into each code's text: “<brand>: <code>”."
            error={errors.brand}
          />
          <TextField
            label="Code length"
            {...whole(4, 8)}
            value={draft.codeLength}
            onValue={(codeLength) => set({ codeLength })}
            required
            hint="4-8 digits; 4 with a FLASHCALL step."
            error={errors.codeLength}
          />
          <TextField
            label="Code lifetime"
            {...whole(60, 3600)}
            value={draft.codeTtl}
            onValue={(codeTtl) => set({ codeTtl })}
            required
            hint="Seconds a code can be checked: 60-3600."
            error={errors.codeTtl}
          />
          <TextField
            label="Max checks"
            {...whole(1, 10)}
            value={draft.maxChecks}
            onValue={(maxChecks) => set({ maxChecks })}
            required
            hint="Checks of one code before it expires: 1-10."
            error={errors.maxChecks}
          />
        </div>
        {draft.steps.map((s, i) => (
          <fieldset key={s.key}>
            <legend>Step {i + 1}</legend>
            <div class="grid">
              <SelectField
                label="Channel"
                value={s.channelType}
                onValue={(channelType) =>
                  setStep(s.key, i, { channelType, senderName: FIXED_SENDER[channelType] ?? s.senderName })
                }
                options={CHANNELS}
                error={errors[`step.${i}.channelType`]}
              />
              <TextField
                label="Sender name"
                value={s.senderName}
                onValue={(senderName) => setStep(s.key, i, { senderName })}
                required
                maxLength={50}
                hint={
                  s.channelType === 'SMS' || s.channelType === 'WHATSAPP'
                    ? 'An approved sender name.'
                    : s.channelType === 'TELEGRAM'
                      ? 'An approved bot with its token; the code goes through the Telegram Gateway.'
                      : s.channelType === 'VOICECODE'
                        ? 'Always voicecode.'
                        : undefined
                }
                error={errors[`step.${i}.senderName`]}
              />
              <TextField
                label="Timeout"
                {...whole(30, 900)}
                value={s.timeout}
                onValue={(timeout) => setStep(s.key, i, { timeout })}
                required
                hint="Seconds this step waits for the code before the next: 30-900."
                error={errors[`step.${i}.timeout`]}
              />
            </div>
            {draft.steps.length > 1 && (
              <div class="actions">
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => set({ steps: draft.steps.filter((d) => d.key !== s.key) })}
                  aria-label={`Remove step ${i + 1}`}
                >
                  Remove step
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
            Add a step
          </button>
          <button type="submit" disabled={action.busy}>
            {editing ? 'Save changes' : 'Create verifier'}
          </button>
          {editing && (
            <button type="button" class="secondary" onClick={reset}>
              Cancel editing
            </button>
          )}
        </div>
        {draft.steps.length >= MAX_STEPS && <p class="hint">A workflow has at most {MAX_STEPS} steps.</p>}
      </form>
      <NoticeLine notice={notice.notice} />

      <AsyncState state={list} what="verifiers" />
      {list.data && (
        <ListTable
          label="Verifiers"
          columns={[
            'Name',
            'Gateway ID',
            'Brand',
            { label: 'Code length', class: 'num' },
            { label: 'Lifetime', class: 'num' },
            { label: 'Max checks', class: 'num' },
            'Workflow',
            'Updated',
            { label: 'Actions', hidden: true },
          ]}
          rows={list.data.items}
          empty="No verifiers yet."
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
                    aria-label={`Edit ${v.name}`}
                  >
                    Edit
                  </button>
                  <ConfirmButton label="Delete" name={v.name} disabled={action.busy} onConfirm={() => void remove(v)} />
                </span>
              </td>
            </tr>
          )}
        />
      )}
    </Page>
  );
}
