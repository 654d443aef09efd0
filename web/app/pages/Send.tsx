import { explainApiError, explainedLine } from '../../shared/errorWords.js';
import { estimateLine, type MessageField, messageFieldOf, useMessageEstimate } from '../estimate.js';
import { t } from '../../shared/i18n/index.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NoticeLine, Page, SelectField, TextArea, TextField, useAction, useAsync, useNotice } from '../../shared/ui.js';
import type { RequestBody } from '../../shared/apiClient.js';
import { ApiError } from '../../shared/api.js';
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
  const [errors, setErrors] = useState<Partial<Record<MessageField, string>>>({});
  const notice = useNotice();
  const action = useAction(notice);
  const form = useRef<HTMLFormElement>(null);
  // A refusal moves the focus to the field it is about, where its words are read out with the control.
  useEffect(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), [errors]);
  const approved = NEEDS_APPROVED.includes(channel);
  const field = contentField(channel, kind, text);
  const estimate = useMessageEstimate(channel, destination, isCode(channel, kind) ? '' : text);
  const estimated = isCode(channel, kind) ? undefined : estimateLine(estimate.data);
  /** A field's setter that also clears the refusal shown under it: the value it was about has changed. */
  const edit =
    <V,>(name: MessageField, set: (value: V) => void) =>
    (value: V) => {
      set(value);
      if (errors[name]) setErrors({ ...errors, [name]: undefined });
    };
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
    setErrors({});
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
      // A message the API refuses as a whole (422 with its index) or as an item of the batch (its code and msg).
      const refused = (code: number | undefined, msg: string): Error => {
        const explained = explainApiError(code, msg);
        const at = messageFieldOf(code, msg);
        if (!at) return new Error(t('send.notAccepted', { why: explainedLine(explained) }));
        // The words under the field the refusal is about (its control aria-invalid); the status line says where.
        setErrors({ [at]: explainedLine(explained) });
        return new Error(t('estimate.notAcceptedAt', { field: fieldLabel(at, field.label) }));
      };
      let result;
      try {
        result = await traffic.post('/api/v1/message', { body: [message] });
      } catch (error) {
        throw error instanceof ApiError && error.status === 422 ? refused(error.code, error.message) : error;
      }
      const item = result.items[0];
      if (!item || item.code !== 201 || !item.messageUuid) {
        throw item?.msg
          ? refused(item.code, item.msg)
          : new Error(t('send.notAccepted', { why: `${item?.code ?? '?'}` }));
      }
      setSent(item.messageUuid);
      setText('');
      return t('send.accepted', { uuid: item.messageUuid });
    });
  };

  return (
    <Page title={t('send.title')} actions={<SendModes />}>
      <form class="card" onSubmit={submit} ref={form}>
        <div class="grid">
          <SelectField
            label={t('col.channel')}
            value={channel}
            onValue={edit('channel', setChannel)}
            options={sendChannels()}
            error={errors.channel}
          />
          <SenderNameField
            approved={approved}
            value={approved ? chosen : senderName}
            onValue={edit('senderName', setSenderName)}
            options={options}
            loading={names.loading}
            error={errors.senderName}
          />
          <TextField
            label={t('message.destination')}
            value={destination}
            onValue={edit('destination', setDestination)}
            error={errors.destination}
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
          onValue={edit('text', setText)}
          required
          rows={isCode(channel, kind) ? 1 : 4}
          hint={estimated ?? field.hint}
          error={errors.text}
        />
        <div class="grid">
          {channel !== 'FLASHCALL' && (
            <TextField
              label={t('message.tags')}
              value={tags}
              onValue={edit('tags', setTags)}
              hint={t('send.tagsHint')}
              error={errors.tags}
            />
          )}
          <TextField
            label={t('message.callbackUrl')}
            type="url"
            value={callbackUrl}
            onValue={edit('callbackUrl', setCallbackUrl)}
            hint={t('send.callbackHint')}
            error={errors.callbackUrl}
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

/** The label of a field of the form, for the status line that points at it. */
function fieldLabel(name: MessageField, textLabel: string): string {
  const labels: Record<MessageField, string> = {
    channel: t('col.channel'),
    senderName: t('col.senderName'),
    destination: t('message.destination'),
    text: textLabel,
    tags: t('message.tags'),
    callbackUrl: t('message.callbackUrl'),
  };
  return labels[name];
}
