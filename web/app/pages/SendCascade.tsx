import { explainApiError, explainedLine } from '../../shared/errorWords.js';
import { t } from '../../shared/i18n/index.js';
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
        const why = item?.msg ? explainedLine(explainApiError(item.code, item.msg)) : `${item?.code ?? '?'}`;
        throw new Error(t('sendCascade.notAccepted', { why }));
      }
      setSent(item.messageUuid);
      return t('sendCascade.accepted', { uuid: item.messageUuid });
    });
  };

  return (
    <Page title={t('sendCascade.title')} actions={<SendModes />}>
      <p class="lead">{t('sendCascade.lead')}</p>
      <form class="card" onSubmit={submit}>
        <div class="grid">
          <TextField
            label={t('message.destination')}
            value={destination}
            onValue={setDestination}
            required
            inputMode="tel"
            autoComplete="off"
            hint={t('send.destinationHint')}
          />
          {!flashcall && (
            <TextField label={t('message.tags')} value={tags} onValue={setTags} hint={t('send.tagsHint')} />
          )}
          <TextField
            label={t('message.callbackUrl')}
            type="url"
            value={callbackUrl}
            onValue={setCallbackUrl}
            hint={t('sendCascade.callbackHint')}
          />
        </div>
        {steps.view()}
        <div class="actions">
          <button type="submit" disabled={action.busy || steps.incomplete}>
            {t('sendCascade.send')}
          </button>
        </div>
        <NoticeLine notice={notice.notice} />
        {sent && (
          <p>
            <a href={`/app/messages/${sent}`}>{t('sendCascade.open')}</a>
          </p>
        )}
      </form>
    </Page>
  );
}
