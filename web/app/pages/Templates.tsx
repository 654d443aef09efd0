import { useState } from 'preact/hooks';
import { type Channel, CHANNELS, formatTime, localInputToIso } from '../../shared/format.js';
import {
  AsyncState,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  SelectField,
  TextArea,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { system } from '../session.js';
import type { Template } from '../types.js';

const PER_PAGE = 50;
const TEMPLATE_TYPES = ['SERVICE', 'AUTHENTICATION', 'MARKETING'] as const;
const STATUSES = ['INTERNAL_REVIEW', 'APPROVED', 'REJECTED', 'CLOSED'];

/** Templates: create (reviewed by the operator), status and the operator's comment, delete. */
export function Templates() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [channelType, setChannelType] = useState<Channel>('WHATSAPP');
  const [templateType, setTemplateType] = useState<(typeof TEMPLATE_TYPES)[number]>('SERVICE');
  const [senderName, setSenderName] = useState('');
  const [pattern, setPattern] = useState('');
  const [dateFrom, setDateFrom] = useState('');
  const [dateTo, setDateTo] = useState('');
  const notice = useNotice();
  const action = useAction(notice);
  const list = useAsync(
    (signal) => system.get('/api/v1/templates', { signal, query: { page, per_page: PER_PAGE, status } }),
    [page, status],
  );
  const names = useAsync(
    (signal) => system.get('/api/v1/sender-names', { signal, query: { channelType, per_page: 1000 } }),
    [channelType],
  );
  const nameOptions = names.data?.items.filter((n) => n.status !== 'Rejected').map((n) => n.name) ?? [];
  const chosen = channelType === 'VK' || nameOptions.includes(senderName) ? senderName : (nameOptions[0] ?? '');

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const from = localInputToIso(dateFrom);
      const to = localInputToIso(dateTo);
      const created = await system.post('/api/v1/templates', {
        body: {
          channelType,
          templateType,
          senderName: chosen,
          pattern,
          ...(from ? { dateFrom: from } : {}),
          ...(to ? { dateTo: to } : {}),
        },
      });
      setPattern('');
      list.reload();
      return `Template ${created.id} created: ${created.status}.`;
    });
  };
  const remove = (item: Template) =>
    action.run(async () => {
      await system.delete('/api/v1/templates/{id}', { params: { id: item.id } });
      list.reload();
      return `Template ${item.id} deleted.`;
    });

  return (
    <Page title="Templates">
      <form class="card" onSubmit={create} aria-labelledby="new-template">
        <h2 id="new-template">Create a template</h2>
        <div class="grid">
          <SelectField label="Channel" value={channelType} onValue={setChannelType} options={CHANNELS} />
          <SelectField label="Template type" value={templateType} onValue={setTemplateType} options={TEMPLATE_TYPES} />
          {channelType === 'VK' ? (
            <TextField label="Sender name" value={senderName} onValue={setSenderName} required />
          ) : (
            <SelectField
              label="Sender name"
              value={chosen}
              onValue={setSenderName}
              options={nameOptions.length ? nameOptions : [{ value: '', label: 'No sender names for this channel' }]}
              required
            />
          )}
          <TextField
            label="Valid from"
            type="datetime-local"
            value={dateFrom}
            onValue={setDateFrom}
            hint="Optional; now by default."
          />
          <TextField label="Valid to" type="datetime-local" value={dateTo} onValue={setDateTo} hint="Optional." />
        </div>
        <TextArea
          label="Pattern"
          value={pattern}
          onValue={setPattern}
          required
          rows={3}
          hint="Text with %w (a word), %d (digits), %s (any text)."
        />
        <div class="actions">
          <button type="submit" disabled={action.busy || !chosen}>
            Create template
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
          options={[{ value: '', label: 'All statuses' }, ...STATUSES]}
        />
      </div>
      <AsyncState state={list} what="templates" />
      {list.data && (
        <>
          <ListTable
            label="Templates"
            columns={[
              'Id',
              'Channel',
              'Type',
              'Sender name',
              'Pattern',
              'Status',
              'Valid',
              "Operator's comment",
              { label: 'Actions', hidden: true },
            ]}
            rows={list.data.items}
            empty="No templates."
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.id}</th>
                <td>{item.channelType}</td>
                <td>{item.templateType}</td>
                <td>{item.senderName}</td>
                <td class="pre clip">{item.pattern}</td>
                <td>
                  <span class={`badge tpl-${item.status}`}>{item.status}</span>
                </td>
                <td>
                  {formatTime(item.dateFrom)} – {item.dateTo ? formatTime(item.dateTo) : 'open'}
                </td>
                <td>{item.managerComment ?? '—'}</td>
                <td>
                  <ConfirmButton
                    label="Delete"
                    name={`template ${item.id}`}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label="Template pages" />
        </>
      )}
    </Page>
  );
}
