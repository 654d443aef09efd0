import { explainApiError, explainedLine } from '../../shared/errorWords.js';
import { t } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { NoticeLine, Page, SelectField, TextArea, TextField, useAction, useAsync, useNotice } from '../../shared/ui.js';
import type { RequestBody } from '../../shared/apiClient.js';
import {
  contentField,
  contentFor,
  isCode,
  NEEDS_APPROVED,
  NoSenderNameHint,
  sendChannels,
  type SendChannel,
  SenderNameField,
  SendModes,
  tagsOf,
  telegramKinds,
  type TelegramKind,
  usableNames,
} from '../sending.js';
import { system, traffic } from '../session.js';

type NewMessage = RequestBody<'/api/v1/message', 'post'>[number];

/** Send one message: channel, sender name (approved ones to choose from), destination, text. */
export function Send() {
  const [channel, setChannel] = useState<SendChannel>('SMS');
  const [senderName, setSenderName] = useState('');
  const [destination, setDestination] = useState('');
  const [text, setText] = useState('');
  const [kind, setKind] = useState<TelegramKind>('text');
  const [tags, setTags] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  const approved = NEEDS_APPROVED.includes(channel);
  const field = contentField(channel, kind, text);

  const names = useAsync(
    (signal) =>
      approved
        ? system.get('/api/v1/sender-names', {
            signal,
            query: { status: 'Approved', channelType: channel, per_page: 1000 },
          })
        : Promise.resolve(undefined),
    [channel],
  );
  const options = usableNames(names.data?.items);
  const chosen = approved ? (options.includes(senderName) ? senderName : (options[0] ?? '')) : senderName;

  const submit = (event: Event) => {
    event.preventDefault();
    setSent(undefined);
    void action.run(async () => {
      const tagList = tagsOf(tags);
      const message: NewMessage = {
        channelType: channel,
        senderName: chosen,
        destination: destination.trim(),
        content: contentFor(channel, text, kind),
        ...(tagList.length && channel !== 'FLASHCALL' ? { tags: tagList } : {}),
        ...(callbackUrl.trim() ? { callbackUrl: callbackUrl.trim() } : {}),
      };
      const result = await traffic.post('/api/v1/message', { body: [message] });
      const item = result.items[0];
      if (!item || item.code !== 201 || !item.messageUuid) {
        const why = item?.msg ? explainedLine(explainApiError(item.code, item.msg)) : `${item?.code ?? '?'}`;
        throw new Error(t('send.notAccepted', { why }));
      }
      setSent(item.messageUuid);
      setText('');
      return t('send.accepted', { uuid: item.messageUuid });
    });
  };

  return (
    <Page title={t('send.title')} actions={<SendModes />}>
      <form class="card" onSubmit={submit}>
        <div class="grid">
          <SelectField label={t('col.channel')} value={channel} onValue={setChannel} options={sendChannels()} />
          <SenderNameField
            approved={approved}
            value={approved ? chosen : senderName}
            onValue={setSenderName}
            options={options}
            loading={names.loading}
          />
          <TextField
            label={t('message.destination')}
            value={destination}
            onValue={setDestination}
            required
            inputMode="tel"
            autoComplete="off"
            hint={t('send.destinationHint')}
          />
          {channel === 'TELEGRAM' && (
            <SelectField label={t('send.content')} value={kind} onValue={setKind} options={telegramKinds()} />
          )}
        </div>
        <TextArea
          label={field.label}
          value={text}
          onValue={setText}
          required
          rows={isCode(channel, kind) ? 1 : 4}
          hint={field.hint}
        />
        <div class="grid">
          {channel !== 'FLASHCALL' && (
            <TextField label={t('message.tags')} value={tags} onValue={setTags} hint={t('send.tagsHint')} />
          )}
          <TextField
            label={t('message.callbackUrl')}
            type="url"
            value={callbackUrl}
            onValue={setCallbackUrl}
            hint={t('send.callbackHint')}
          />
        </div>
        {approved && !names.loading && options.length === 0 && <NoSenderNameHint channel={channel} />}
        <div class="actions">
          <button type="submit" disabled={action.busy || (approved && !chosen)}>
            {t('send.send')}
          </button>
        </div>
        <NoticeLine notice={notice.notice} />
        {sent && (
          <p>
            <a href={`/app/messages/${sent}`}>{t('send.open')}</a>
          </p>
        )}
      </form>
    </Page>
  );
}
