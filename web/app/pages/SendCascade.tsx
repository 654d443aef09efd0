import { useState } from 'preact/hooks';
import type { RequestBody } from '../../shared/apiClient.js';
import { NoticeLine, Page, TextField, useAction, useNotice } from '../../shared/ui.js';
import { namingStep, useCascadeSteps } from '../cascadeSteps.js';
import { SEND_CHANNELS, SendModes, tagsOf } from '../sending.js';
import { traffic } from '../session.js';

type NewCascade = RequestBody<'/api/v1/message/cascade', 'post'>[number];

/**
 * Send a cascade (DESIGN section 13): a destination and its common fields, then 1 to 6 steps, each a channel,
 * sender name, text and lifetime, and (all but the last) when the next step follows. A messenger first and SMS
 * after it, to start with.
 */
export function SendCascade() {
  const steps = useCascadeSteps(SEND_CHANNELS);
  const [destination, setDestination] = useState('');
  const [tags, setTags] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  // A FLASHCALL message takes no tags, and the cascade's tags go to every step.
  const flashcall = steps.flashcall;

  const submit = (event: Event) => {
    event.preventDefault();
    setSent(undefined);
    void action.run(async () => {
      const tagList = tagsOf(tags);
      const cascade: NewCascade = {
        destination: destination.trim(),
        ...(tagList.length && !flashcall ? { tags: tagList } : {}),
        ...(callbackUrl.trim() ? { callbackUrl: callbackUrl.trim() } : {}),
        cascade: steps.body(),
      };
      const result = await namingStep(() => traffic.post('/api/v1/message/cascade', { body: [cascade] }));
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
        {steps.view()}
        <div class="actions">
          <button type="submit" disabled={action.busy || steps.incomplete}>
            Send cascade
          </button>
        </div>
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
