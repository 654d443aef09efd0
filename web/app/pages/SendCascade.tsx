import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../../shared/api.js';
import type { RequestBody } from '../../shared/apiClient.js';
import { NoticeLine, Page, SelectField, TextArea, TextField, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { type Condition, CONDITIONS, MAX_STEPS, READ_TRACKED } from '../cascades.js';
import {
  contentFor,
  NEEDS_APPROVED,
  SEND_CHANNELS,
  type SendChannel,
  SendModes,
  tagsOf,
  usableNames,
} from '../sending.js';
import { system, traffic } from '../session.js';

type NewCascade = RequestBody<'/api/v1/message/cascade', 'post'>[number];

/** A step as the form holds it; `key` keeps each step's inputs in place when another is removed. */
interface StepDraft {
  readonly key: number;
  readonly channel: SendChannel;
  readonly senderName: string;
  readonly text: string;
  readonly ttl: string;
  readonly condition: Condition;
}

const draft = (key: number, channel: SendChannel): StepDraft => ({
  key,
  channel,
  senderName: '',
  text: '',
  ttl: '',
  condition: 'not_delivered',
});

/** `not_read` only follows a channel with read receipts; after another the step moves on when not delivered. */
const conditionOf = (step: StepDraft): Condition =>
  step.condition === 'not_read' && !READ_TRACKED.has(step.channel) ? 'not_delivered' : step.condition;

/**
 * Send a cascade (DESIGN section 13): a destination and its common fields, then 1 to 6 steps, each a channel,
 * sender name, text and lifetime, and (all but the last) when the next step follows. A messenger first and SMS
 * after it, to start with.
 */
export function SendCascade() {
  const nextKey = useRef(2);
  const [steps, setSteps] = useState<StepDraft[]>(() => [draft(0, 'VK'), draft(1, 'SMS')]);
  const [destination, setDestination] = useState('');
  const [tags, setTags] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);

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
  // A FLASHCALL message takes no tags, and the cascade's tags go to every step.
  const flashcall = steps.some((s) => s.channel === 'FLASHCALL');

  const change = (key: number, fields: Partial<Omit<StepDraft, 'key'>>) =>
    setSteps((all) => all.map((s) => (s.key === key ? { ...s, ...fields } : s)));
  const add = () => setSteps((all) => [...all, draft(nextKey.current++, 'SMS')]);
  const remove = (key: number) => setSteps((all) => all.filter((s) => s.key !== key));

  const submit = (event: Event) => {
    event.preventDefault();
    setSent(undefined);
    void action.run(async () => {
      const tagList = tagsOf(tags);
      const cascade: NewCascade = {
        destination: destination.trim(),
        ...(tagList.length && !flashcall ? { tags: tagList } : {}),
        ...(callbackUrl.trim() ? { callbackUrl: callbackUrl.trim() } : {}),
        cascade: steps.map((s, i) => ({
          channelType: s.channel,
          senderName: senderOf(s),
          content: contentFor(s.channel, s.text),
          ...(s.ttl.trim() ? { ttl: Number(s.ttl) } : {}),
          ...(i < steps.length - 1 ? { condition: conditionOf(s) } : {}),
        })),
      };
      let result;
      try {
        result = await traffic.post('/api/v1/message/cascade', { body: [cascade] });
      } catch (error) {
        // A refused step's error names it (0-based `step`).
        const step = error instanceof ApiError ? error.detail.step : undefined;
        if (error instanceof ApiError && typeof step === 'number')
          throw new ApiError(error.status, error.code, `Step ${step + 1}: ${error.message}`, error.detail);
        throw error;
      }
      const item = result.items[0];
      if (!item || item.code !== 201 || !item.messageUuid) {
        throw new Error(`The cascade was not accepted: ${item?.msg ?? `code ${item?.code ?? 'unknown'}`}`);
      }
      setSent(item.messageUuid);
      return `Cascade accepted: its first message is ${item.messageUuid}`;
    });
  };

  return (
    <Page title="Send a cascade" actions={<SendModes />}>
      <p class="lead">
        One notification over a chain of channels: each next step is sent when the one before is not delivered (or not
        read), and the cascade ends at the first step that is.
      </p>
      <form class="card" onSubmit={submit}>
        <div class="grid">
          <TextField
            label="Destination"
            value={destination}
            onValue={setDestination}
            required
            inputMode="tel"
            autoComplete="off"
            hint="Phone number, e.g. +7 916 123-45-67"
          />
          {!flashcall && (
            <TextField
              label="Tags"
              value={tags}
              onValue={setTags}
              hint="Comma-separated: letters, digits, underscore."
            />
          )}
          <TextField
            label="Callback URL"
            type="url"
            value={callbackUrl}
            onValue={setCallbackUrl}
            hint="Optional: where each step's callbacks go."
          />
        </div>
        {steps.map((s, i) => {
          const options = optionsFor(s.channel);
          const last = i === steps.length - 1;
          return (
            <fieldset key={s.key}>
              <legend>Step {i + 1}</legend>
              <div class="grid">
                <SelectField
                  label="Channel"
                  value={s.channel}
                  onValue={(channel) => change(s.key, { channel })}
                  options={SEND_CHANNELS}
                />
                {approved(s) ? (
                  <SelectField
                    label="Sender name"
                    value={senderOf(s)}
                    onValue={(senderName) => change(s.key, { senderName })}
                    options={
                      options.length
                        ? options
                        : [{ value: '', label: names.loading ? 'Loading…' : 'No approved sender names' }]
                    }
                    required
                  />
                ) : (
                  <TextField
                    label="Sender name"
                    value={s.senderName}
                    onValue={(senderName) => change(s.key, { senderName })}
                    required
                  />
                )}
                <TextField
                  label="TTL"
                  type="number"
                  min="1"
                  step="1"
                  inputMode="numeric"
                  value={s.ttl}
                  onValue={(ttl) => change(s.key, { ttl })}
                  hint="Seconds; optional, within the channel's bounds."
                />
                {last ? (
                  <p class="hint">The last step: the cascade ends with it.</p>
                ) : (
                  <SelectField
                    label="Next step"
                    value={conditionOf(s)}
                    onValue={(condition) => change(s.key, { condition })}
                    options={READ_TRACKED.has(s.channel) ? CONDITIONS : CONDITIONS.slice(0, 1)}
                  />
                )}
              </div>
              <TextArea
                label={s.channel === 'FLASHCALL' ? 'Code' : 'Text'}
                value={s.text}
                onValue={(text) => change(s.key, { text })}
                required
                rows={3}
                hint={s.channel === 'FLASHCALL' ? '4 digits.' : `${s.text.length} characters`}
              />
              {approved(s) && !names.loading && options.length === 0 && (
                <p class="hint">
                  No approved sender name for {s.channel} yet: <a href="/app/sender-names">register one</a>.
                </p>
              )}
              {steps.length > 1 && (
                <div class="actions">
                  <button
                    type="button"
                    class="secondary small"
                    onClick={() => remove(s.key)}
                    aria-label={`Remove step ${i + 1}`}
                  >
                    Remove step
                  </button>
                </div>
              )}
            </fieldset>
          );
        })}
        <div class="actions">
          <button type="button" class="secondary" disabled={steps.length >= MAX_STEPS} onClick={add}>
            Add a step
          </button>
          <button type="submit" disabled={action.busy || steps.some((s) => approved(s) && !senderOf(s))}>
            Send cascade
          </button>
        </div>
        {steps.length >= MAX_STEPS && <p class="hint">A cascade has at most {MAX_STEPS} steps.</p>}
        <NoticeLine notice={notice.notice} />
        {sent && (
          <p>
            <a href={`/app/messages/${sent}`}>Open the cascade's first message</a>
          </p>
        )}
      </form>
    </Page>
  );
}
