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
      return `Sender name ${created.name} registered: ${created.status}.`;
    });
  };
  const remove = (item: SenderName) =>
    action.run(async () => {
      await system.delete('/api/v1/sender-names/{id}', { params: { id: item.id } });
      list.reload();
      return `Sender name ${item.name} deleted.`;
    });

  return (
    <Page title="Sender names">
      <form class="card" onSubmit={create} aria-labelledby="new-sender-name">
        <h2 id="new-sender-name">Register a sender name</h2>
        <div class="grid">
          <SelectField label="Channel" value={channelType} onValue={setChannelType} options={CHANNELS} />
          <TextField
            label="Name"
            value={name}
            onValue={setName}
            required
            maxLength={50}
            hint={
              channelType === 'TELEGRAM'
                ? 'The bot’s username without @ (ends in bot); the operator attaches its token.'
                : undefined
            }
          />
          <TextField label="Comment" value={comment} onValue={setComment} hint="Optional: a note for the operator." />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Register
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />

      <div class="toolbar">
        <SelectField
          label="Show"
          value={status}
          onValue={(v) => {
            setStatus(v);
            setPage(1);
          }}
          options={[{ value: '', label: 'All statuses' }, 'Pending', 'Approved', 'Rejected']}
        />
      </div>
      <AsyncState state={list} what="sender names" />
      {list.data && (
        <>
          <ListTable
            label="Sender names"
            columns={[
              'Name',
              'Channel',
              'Status',
              'Start date',
              'Bot token',
              'Your comment',
              "Operator's comment",
              'Created',
              { label: 'Actions', hidden: true },
            ]}
            rows={list.data.items}
            empty="No sender names."
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.name}</th>
                <td>{item.channelType}</td>
                <td>
                  <span class={`badge sn-${item.status}`}>{item.status}</span>
                </td>
                <td>{formatTime(item.startDate)}</td>
                <td>{item.channelType === 'TELEGRAM' ? (item.botToken ?? 'Not attached yet') : '—'}</td>
                <td>{item.comment ?? '—'}</td>
                <td>{item.managerComment ?? '—'}</td>
                <td>{formatTime(item.createdAt)}</td>
                <td>
                  <ConfirmButton
                    label="Delete"
                    name={item.name}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label="Sender name pages" />
        </>
      )}
    </Page>
  );
}
