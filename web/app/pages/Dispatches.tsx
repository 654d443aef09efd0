import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { RequestBody } from '../../shared/apiClient.js';
import { formatTime, formatNumber } from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  SelectField,
  TextArea,
  TextField,
  useAction,
  useAsync,
  useLiveReload,
  useNotice,
  ChannelField,
} from '../../shared/ui.js';
import { namingStep, useCascadeSteps } from '../cascadeSteps.js';
import { counterLabel, COUNTERS, placeholdersOf } from '../dispatches.js';
import {
  contentFor,
  NEEDS_APPROVED,
  NoSenderNameHint,
  SEND_CHANNELS,
  type SendChannel,
  SenderNameField,
  usableNames,
} from '../sending.js';
import { system, traffic } from '../session.js';
import { estimateLine, useMessageEstimate } from '../estimate.js';
import { useSendWindow } from '../sendWindow.js';

type NewDispatch = RequestBody<'/api/v1/dispatch', 'post'>;

/** A dispatch is one text for many people: FLASHCALL sends a code, which has no placeholders. */
const DISPATCH_CHANNELS = SEND_CHANNELS.filter((c): c is Exclude<SendChannel, 'FLASHCALL'> => c !== 'FLASHCALL');
const units = () =>
  [
    { value: 'minute', label: t('dispatches.perMinute') },
    { value: 'hour', label: t('dispatches.perHour') },
  ] as const;
const kinds = () =>
  [
    { value: 'single', label: t('dispatches.single') },
    { value: 'cascade', label: t('dispatches.cascade') },
  ] as const;
const PER_PAGE = 20;

/** Dispatches: the account's list with counters (newest first, a page at a time) and a form to create one. */
export function Dispatches() {
  const { query, route } = useLocation();
  const page = Math.max(1, Number(query.page) || 1);
  const list = useAsync(
    (signal) => traffic.get('/api/v1/dispatch', { signal, query: { page, per_page: PER_PAGE } }),
    [page],
  );
  // Counters and statuses change by themselves: read again while the tab is shown (shared/ui.tsx useLiveReload).
  useLiveReload(list, true);

  return (
    <Page title={t('app.nav.dispatches')}>
      <p class="lead">{t('dispatches.lead', { placeholders: '{placeholders}' })}</p>
      <CreateDispatch onCreated={(id) => route(`/app/dispatches/${id}`)} />

      <h2>{t('dispatches.yours')}</h2>
      <AsyncState state={list} what={t('dispatches.theDispatches')} />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.dispatches')}
            columns={[
              ...texts('col.name', 'col.status', 'col.channel', 'col.senderName'),
              ...COUNTERS.map((c) => ({ label: c === 'total' ? t('col.messages') : counterLabel(c), class: 'num' })),
              t('col.created'),
            ]}
            sorts={[
              (d) => d.dispatchName,
              (d) => codeWord('dispatchState', d.status),
              (d) => (d.channelType ? codeWord('channel', d.channelType) : null),
              (d) => d.source,
              ...COUNTERS.map((c) => (d: (typeof list.data.items)[number]) => d.messages[c]),
              (d) => d.created,
            ]}
            rows={list.data.items}
            empty={t('dispatches.none')}
            row={(d) => (
              <tr key={d.dispatchId}>
                <th scope="row">
                  <a href={`/app/dispatches/${d.dispatchId}`}>{d.dispatchName}</a>
                </th>
                <td>
                  <span class={`badge dispatch-${d.status}`} data-testid="row-dispatch-status">
                    {codeWord('dispatchState', d.status)}
                  </span>
                </td>
                <td>{d.channelType ? codeWord('channel', d.channelType) : '—'}</td>
                <td>{d.source}</td>
                {COUNTERS.map((c) => (
                  <td class="num" key={c}>
                    {formatNumber(d.messages[c])}
                  </td>
                ))}
                <td>{formatTime(d.created)}</td>
              </tr>
            )}
          />
          <Pager
            list={{ page, per_page: PER_PAGE, total: list.data.total }}
            onPage={(next) => {
              route(next > 1 ? `/app/dispatches?page=${next}` : '/app/dispatches');
              scrollTo(0, 0);
            }}
            label={t('dispatches.pages')}
          />
        </>
      )}
    </Page>
  );
}

/**
 * The form that creates a dispatch: its name, channel, sender name, text and optional speed; or, for a dispatch of
 * cascades, its steps in place of the channel, sender name and text.
 */
function CreateDispatch({ onCreated }: { onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ReturnType<typeof kinds>[number]['value']>('single');
  const steps = useCascadeSteps(DISPATCH_CHANNELS);
  const [channel, setChannel] = useState<(typeof DISPATCH_CHANNELS)[number]>('SMS');
  const [senderName, setSenderName] = useState('');
  const [text, setText] = useState('');
  const [amount, setAmount] = useState('');
  const [unit, setUnit] = useState<'minute' | 'hour'>('minute');
  const notice = useNotice();
  const action = useAction(notice);
  const approved = kind === 'single' && NEEDS_APPROVED.includes(channel);

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
  const placeholders = placeholdersOf(text);
  const sendWindow = useSendWindow();
  // The parts of the text as written; each message's own substitutions may lengthen it (the preview counts them).
  const estimate = useMessageEstimate(channel, '', kind === 'single' ? text : '');
  const estimated = kind === 'single' ? estimateLine(estimate.data) : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const message =
        kind === 'cascade'
          ? { cascade: steps.body() }
          : { channelType: channel, senderName: chosen, content: contentFor(channel, text) };
      const body: NewDispatch = {
        dispatchName: name.trim(),
        ...message,
        ...sendWindow.body(),
        ...(amount.trim() ? { speed: { amount: Number(amount), unit } } : {}),
      };
      const created = await namingStep(() => traffic.post('/api/v1/dispatch', { body }));
      onCreated(created.dispatchId);
    });
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-dispatch">
      <h2 id="create-dispatch">{t('dispatches.create')}</h2>
      <div class="grid">
        <TextField label={t('dispatches.name')} value={name} onValue={setName} required maxLength={200} />
        <SelectField label={t('dispatches.sendAs')} value={kind} onValue={setKind} options={kinds()} />
        {kind === 'single' && (
          <>
            <ChannelField value={channel} onValue={setChannel} channels={DISPATCH_CHANNELS} />
            <SenderNameField
              approved={approved}
              value={approved ? chosen : senderName}
              onValue={setSenderName}
              options={options}
              loading={names.loading}
            />
          </>
        )}
      </div>
      {kind === 'single' ? (
        <TextArea
          label={t('message.text')}
          value={text}
          onValue={setText}
          required
          rows={4}
          hint={
            t('dispatches.textHint', { count: text.length, example: '{name}' }) +
            (placeholders.length
              ? t('dispatches.placeholders', { list: placeholders.map((p) => `{${p}}`).join(', ') })
              : '') +
            (estimated ? ` ${t('window.perMessage', { estimate: estimated })}` : '')
          }
        />
      ) : (
        steps.view()
      )}
      <fieldset>
        <legend>{t('dispatches.speed')}</legend>
        <div class="grid">
          <TextField
            label={t('col.messages')}
            type="number"
            min="1"
            step="1"
            inputMode="numeric"
            value={amount}
            onValue={setAmount}
            hint={t('dispatches.speedHint')}
          />
          <SelectField label={t('dispatches.per')} value={unit} onValue={setUnit} options={units()} />
        </div>
      </fieldset>
      {sendWindow.view()}
      {approved && !names.loading && options.length === 0 && <NoSenderNameHint channel={channel} />}
      <div class="actions">
        <button
          type="submit"
          disabled={action.busy || (approved && !chosen) || (kind === 'cascade' && steps.incomplete)}
        >
          {t('dispatches.createButton')}
        </button>
      </div>
      <NoticeLine notice={notice.notice} />
    </form>
  );
}
