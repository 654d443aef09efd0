import { codeWord, t } from '../shared/i18n/index.js';
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../shared/api.js';
import type { RequestBody } from '../shared/apiClient.js';
import { SelectField, TextArea, TextField, useAsync } from '../shared/ui.js';
import { type Condition, conditions, isReadTracked, MAX_STEPS } from './cascades.js';
import {
  contentField,
  contentFor,
  isCode,
  NEEDS_APPROVED,
  NoSenderNameHint,
  type SendChannel,
  SenderNameField,
  telegramKinds,
  type TelegramKind,
  usableNames,
} from './sending.js';
import { system } from './session.js';

/*
 * The steps of a cascade as the pages compose them: the Send page's cascade and a dispatch of cascades share them.
 */

export type StepBody = RequestBody<'/api/v1/message/cascade', 'post'>[number]['cascade'][number];

/** A step as the form holds it; `key` keeps each step's inputs in place when another is removed. */
interface StepDraft {
  readonly key: number;
  readonly channel: SendChannel;
  readonly senderName: string;
  readonly text: string;
  /** A TELEGRAM step's content: a text or a code. */
  readonly kind: TelegramKind;
  readonly ttl: string;
  readonly condition: Condition;
}

const draft = (key: number, channel: SendChannel): StepDraft => ({
  key,
  channel,
  senderName: '',
  text: '',
  kind: 'text',
  ttl: '',
  condition: 'not_delivered',
});

/** Whether the step is read or not read after delivery: only then may the next step follow on `not_read`. */
const readTracked = (step: StepDraft): boolean => isReadTracked(step.channel, isCode(step.channel, step.kind));

/** `not_read` only follows a step with read receipts; after another the step moves on when not delivered. */
const conditionOf = (step: StepDraft): Condition =>
  step.condition === 'not_read' && !readTracked(step) ? 'not_delivered' : step.condition;

export interface CascadeSteps {
  /** The steps as the API takes them. */
  readonly body: () => StepBody[];
  /** Whether a step lacks the approved sender name its channel needs. */
  readonly incomplete: boolean;
  /** Whether a step is a FLASHCALL (a cascade with one takes no tags). */
  readonly flashcall: boolean;
  readonly view: () => preact.JSX.Element;
}

/**
 * A cascade's steps (1 to 6, each a channel, sender name, text and lifetime, and all but the last when the next one
 * follows) with their inputs, starting with `first` then SMS. `channels`: what a step may use.
 */
export function useCascadeSteps(channels: readonly SendChannel[], first: SendChannel = 'VK'): CascadeSteps {
  const nextKey = useRef(2);
  const [steps, setSteps] = useState<StepDraft[]>(() => [draft(0, first), draft(1, 'SMS')]);

  // Every approved name at once: each step picks those of its channel.
  const names = useAsync(
    (signal) => system.get('/api/v1/sender-names', { signal, query: { status: 'Approved', per_page: 1000 } }),
    [],
  );
  const optionsFor = (channel: SendChannel) => usableNames(names.data?.items.filter((n) => n.channelType === channel));
  const approved = (step: StepDraft) => NEEDS_APPROVED.includes(step.channel);
  const senderOf = (step: StepDraft) => {
    if (!approved(step)) return step.senderName;
    const options = optionsFor(step.channel);
    return options.includes(step.senderName) ? step.senderName : (options[0] ?? '');
  };

  const change = (key: number, fields: Partial<Omit<StepDraft, 'key'>>) =>
    setSteps((all) => all.map((s) => (s.key === key ? { ...s, ...fields } : s)));
  const add = () => setSteps((all) => [...all, draft(nextKey.current++, 'SMS')]);
  const remove = (key: number) => setSteps((all) => all.filter((s) => s.key !== key));

  const body = (): StepBody[] =>
    steps.map((s, i) => ({
      channelType: s.channel,
      senderName: senderOf(s),
      content: contentFor(s.channel, s.text, s.kind),
      ...(s.ttl.trim() ? { ttl: Number(s.ttl) } : {}),
      ...(i < steps.length - 1 ? { condition: conditionOf(s) } : {}),
    }));

  const view = () => (
    <>
      {steps.map((s, i) => {
        const options = optionsFor(s.channel);
        const last = i === steps.length - 1;
        const field = contentField(s.channel, s.kind, s.text);
        return (
          <fieldset key={s.key}>
            <legend>{t('cascade.step', { step: i + 1 })}</legend>
            <div class="grid">
              <SelectField
                label={t('col.channel')}
                value={s.channel}
                onValue={(channel) => change(s.key, { channel })}
                options={channels.map((value) => ({ value, label: codeWord('channel', value) }))}
              />
              <SenderNameField
                approved={approved(s)}
                value={senderOf(s)}
                onValue={(senderName) => change(s.key, { senderName })}
                options={options}
                loading={names.loading}
              />
              <TextField
                label={t('cascade.ttl')}
                type="number"
                min="1"
                step="1"
                inputMode="numeric"
                value={s.ttl}
                onValue={(ttl) => change(s.key, { ttl })}
                hint={t('cascade.ttlHint')}
              />
              {last ? (
                <p class="hint">{t('cascade.last')}</p>
              ) : (
                <SelectField
                  label={t('col.nextStep')}
                  value={conditionOf(s)}
                  onValue={(condition) => change(s.key, { condition })}
                  options={readTracked(s) ? conditions() : conditions().slice(0, 1)}
                />
              )}
              {s.channel === 'TELEGRAM' && (
                <SelectField
                  label={t('send.content')}
                  value={s.kind}
                  onValue={(kind) => change(s.key, { kind })}
                  options={telegramKinds()}
                />
              )}
            </div>
            <TextArea
              label={field.label}
              value={s.text}
              onValue={(text) => change(s.key, { text })}
              required
              rows={isCode(s.channel, s.kind) ? 1 : 3}
              hint={field.hint}
            />
            {approved(s) && !names.loading && options.length === 0 && <NoSenderNameHint channel={s.channel} />}
            {steps.length > 1 && (
              <div class="actions">
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => remove(s.key)}
                  aria-label={t('cascade.removeStepN', { step: i + 1 })}
                >
                  {t('cascade.removeStep')}
                </button>
              </div>
            )}
          </fieldset>
        );
      })}
      <div class="actions">
        <button type="button" class="secondary" disabled={steps.length >= MAX_STEPS} onClick={add}>
          {t('cascade.addStep')}
        </button>
      </div>
      {steps.length >= MAX_STEPS && <p class="hint">{t('cascade.atMost', { max: MAX_STEPS })}</p>}
    </>
  );

  return {
    body,
    incomplete: steps.some((s) => approved(s) && !senderOf(s)),
    flashcall: steps.some((s) => s.channel === 'FLASHCALL'),
    view,
  };
}

/** Runs a request with cascade steps: a refused step's error (0-based `step`) is told as "Step n: ...". */
export async function namingStep<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const step = error instanceof ApiError ? error.detail.step : undefined;
    if (error instanceof ApiError && typeof step === 'number')
      throw new ApiError(error.status, error.code, error.message, {
        ...error.detail,
        about: t('cascade.step', { step: step + 1 }),
      });
    throw error;
  }
}
