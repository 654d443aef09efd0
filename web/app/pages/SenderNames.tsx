import { useState } from 'preact/hooks';
import type { Page as ApiPage } from '../../shared/api.js';
import { CHANNELS, formatTime } from '../../shared/format.js';
import { AsyncState, ConfirmButton, NoticeLine, Page, Pager, SelectField, TableWrap, TextField, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { system } from '../session.js';
import type { SenderName } from '../types.js';

const PER_PAGE = 50;

/** Sender names: register one (it waits for the operator), see status and comments, delete. */
export function SenderNames() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [channelType, setChannelType] = useState('SMS');
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const notice = useNotice();
  const action = useAction(notice);
  const list = useAsync((signal) => system<ApiPage<SenderName>>('GET', '/api/v1/sender-names', { signal, query: { page, per_page: PER_PAGE, status } }), [page, status]);

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await system<SenderName>('POST', '/api/v1/sender-names', { body: { channelType, name: name.trim(), ...(comment.trim() ? { comment: comment.trim() } : {}) } });
      setName('');
      setComment('');
      list.reload();
      return `Sender name ${created.name} registered: ${created.status}.`;
    });
  };
  const remove = (item: SenderName) =>
    action.run(async () => {
      await system('DELETE', `/api/v1/sender-names/${item.id}`);
      list.reload();
      return `Sender name ${item.name} deleted.`;
    });

  return (
    <Page title="Sender names">
      <form class="card" onSubmit={create} aria-labelledby="new-sender-name">
        <h2 id="new-sender-name">Register a sender name</h2>
        <div class="grid">
          <SelectField label="Channel" value={channelType} onValue={setChannelType} options={CHANNELS} />
          <TextField label="Name" value={name} onValue={setName} required maxLength={50} />
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
          <TableWrap label="Sender names">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channel</th>
                <th scope="col">Status</th>
                <th scope="col">Start date</th>
                <th scope="col">Your comment</th>
                <th scope="col">Operator's comment</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.length === 0 && (
                <tr>
                  <td colSpan={8}>No sender names.</td>
                </tr>
              )}
              {list.data.items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">{item.name}</th>
                  <td>{item.channelType}</td>
                  <td>
                    <span class={`badge sn-${item.status}`}>{item.status}</span>
                  </td>
                  <td>{formatTime(item.startDate)}</td>
                  <td>{item.comment ?? '—'}</td>
                  <td>{item.managerComment ?? '—'}</td>
                  <td>{formatTime(item.createdAt)}</td>
                  <td>
                    <ConfirmButton label="Delete" name={item.name} disabled={action.busy} onConfirm={() => void remove(item)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
          <Pager list={list.data} onPage={setPage} label="Sender name pages" />
        </>
      )}
    </Page>
  );
}
