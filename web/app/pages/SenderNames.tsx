import { codeOptions, codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { type Channel, CHANNELS, formatTime } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
  ChannelField,
} from '../../shared/ui.js';
import { system } from '../session.js';
import type { SenderName } from '../types.js';

const PER_PAGE = 50;

/** Sender names: register one (it waits for the operator), see status and comments, delete. */
export function SenderNames() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [channelType, setChannelType] = useState<Channel>('SMS');
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const notice = useNotice();
  const action = useAction(notice);
  const list = useAsync(
    (signal) => system.get('/api/v1/sender-names', { signal, query: { page, per_page: PER_PAGE, status } }),
    [page, status],
  );

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await system.post('/api/v1/sender-names', {
        body: { channelType, name: name.trim(), ...(comment.trim() ? { comment: comment.trim() } : {}) },
      });
      setName('');
      setComment('');
      list.reload();
      return t('senderNames.registered', { name: created.name, status: codeWord('senderStatus', created.status) });
    });
  };
  const remove = (item: SenderName) =>
    action.run(async () => {
      await system.delete('/api/v1/sender-names/{id}', { params: { id: item.id } });
      list.reload();
      return t('senderNames.deleted', { name: item.name });
    });

  return (
    <Page title={t('app.nav.senderNames')}>
      <form class="card" onSubmit={create} aria-labelledby="new-sender-name">
        <h2 id="new-sender-name">{t('senderNames.register')}</h2>
        <div class="grid">
          <ChannelField value={channelType} onValue={setChannelType} channels={CHANNELS} />
          <TextField
            label={t('col.name')}
            value={name}
            onValue={setName}
            required
            maxLength={50}
            hint={channelType === 'TELEGRAM' ? t('senderNames.botHint') : undefined}
          />
          <TextField
            label={t('senderNames.comment')}
            value={comment}
            onValue={setComment}
            hint={t('senderNames.commentHint')}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('senderNames.registerButton')}
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />

      <div class="toolbar">
        <SelectField
          label={t('ui.show')}
          value={status}
          onValue={(v) => {
            setStatus(v);
            setPage(1);
          }}
          options={codeOptions('senderStatus', ['Pending', 'Approved', 'Rejected'], 'ui.allStatuses')}
        />
      </div>
      <AsyncState state={list} what={t('senderNames.theNames')} />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.senderNames')}
            columns={[
              ...texts('col.name', 'col.channel', 'col.status', 'col.startDate', 'col.botToken', 'col.yourComment'),
              ...texts('col.operatorComment', 'col.created'),
              { label: t('ui.actions'), hidden: true },
            ]}
            sorts={[
              (item) => item.name,
              (item) => codeWord('channel', item.channelType),
              (item) => codeWord('senderStatus', item.status),
              (item) => item.startDate,
              undefined,
              (item) => item.comment,
              (item) => item.managerComment,
              (item) => item.createdAt,
            ]}
            rows={list.data.items}
            empty={t('senderNames.none')}
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.name}</th>
                <td>{codeWord('channel', item.channelType)}</td>
                <td>
                  <span class={`badge sn-${item.status}`}>{codeWord('senderStatus', item.status)}</span>
                </td>
                <td>{formatTime(item.startDate)}</td>
                <td>{item.channelType === 'TELEGRAM' ? (item.botToken ?? t('senderNames.notAttached')) : '—'}</td>
                <td>{item.comment ?? '—'}</td>
                <td>{item.managerComment ?? '—'}</td>
                <td>{formatTime(item.createdAt)}</td>
                <td>
                  <ConfirmButton
                    label={t('ui.delete')}
                    name={item.name}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label={t('senderNames.pages')} />
        </>
      )}
    </Page>
  );
}
