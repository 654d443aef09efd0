import { codeOptions, codeWord, t, texts } from '../../shared/i18n/index.js';
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
  ChannelField,
} from '../../shared/ui.js';
import { system } from '../session.js';
import type { Template } from '../types.js';

const PER_PAGE = 50;
const TEMPLATE_TYPES = ['SERVICE', 'AUTHENTICATION', 'MARKETING'] as const;
const STATUSES = ['INTERNAL_REVIEW', 'APPROVED', 'REJECTED', 'CLOSED'] as const;

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
      return t('templates.created', { id: created.id, status: codeWord('templateStatus', created.status) });
    });
  };
  const remove = (item: Template) =>
    action.run(async () => {
      await system.delete('/api/v1/templates/{id}', { params: { id: item.id } });
      list.reload();
      return t('templates.deleted', { id: item.id });
    });

  return (
    <Page title={t('app.nav.templates')}>
      <form class="card" onSubmit={create} aria-labelledby="new-template">
        <h2 id="new-template">{t('templates.create')}</h2>
        <div class="grid">
          <ChannelField value={channelType} onValue={setChannelType} channels={CHANNELS} />
          <SelectField
            label={t('templates.type')}
            value={templateType}
            onValue={setTemplateType}
            options={codeOptions('templateType', TEMPLATE_TYPES)}
          />
          {channelType === 'VK' ? (
            <TextField label={t('col.senderName')} value={senderName} onValue={setSenderName} required />
          ) : (
            <SelectField
              label={t('col.senderName')}
              value={chosen}
              onValue={setSenderName}
              options={nameOptions.length ? nameOptions : [{ value: '', label: t('templates.noNames') }]}
              required
            />
          )}
          {[
            {
              label: t('templates.validFrom'),
              value: dateFrom,
              onValue: setDateFrom,
              hint: t('templates.validFromHint'),
            },
            { label: t('templates.validTo'), value: dateTo, onValue: setDateTo, hint: t('ui.optional') },
          ].map((field) => (
            <TextField key={field.label} type="datetime-local" {...field} />
          ))}
        </div>
        <TextArea
          label={t('templates.pattern')}
          value={pattern}
          onValue={setPattern}
          required
          rows={3}
          hint={t('templates.patternHint')}
        />
        <div class="actions">
          <button type="submit" disabled={action.busy || !chosen}>
            {t('templates.createButton')}
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
          options={codeOptions('templateStatus', STATUSES, 'ui.allStatuses')}
        />
      </div>
      <AsyncState state={list} what="templates" />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.templates')}
            columns={[
              ...texts('col.id', 'col.channel', 'col.type', 'col.senderName', 'templates.pattern', 'col.status'),
              ...texts('col.valid', 'col.operatorComment'),
              { label: t('ui.actions'), hidden: true },
            ]}
            sorts={[
              (item) => item.id,
              (item) => codeWord('channel', item.channelType),
              (item) => codeWord('templateType', item.templateType),
              (item) => item.senderName,
              (item) => item.pattern,
              (item) => codeWord('templateStatus', item.status),
              (item) => item.dateFrom,
              (item) => item.managerComment,
            ]}
            rows={list.data.items}
            empty={t('templates.none')}
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.id}</th>
                <td>{codeWord('channel', item.channelType)}</td>
                <td>{codeWord('templateType', item.templateType)}</td>
                <td>{item.senderName}</td>
                <td class="pre clip">{item.pattern}</td>
                <td>
                  <span class={`badge tpl-${item.status}`}>{codeWord('templateStatus', item.status)}</span>
                </td>
                <td>
                  {formatTime(item.dateFrom)} – {item.dateTo ? formatTime(item.dateTo) : t('templates.open')}
                </td>
                <td>{item.managerComment ?? '—'}</td>
                <td>
                  <ConfirmButton
                    label={t('ui.delete')}
                    name={t('templates.name', { id: item.id })}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label={t('templates.pages')} />
        </>
      )}
    </Page>
  );
}
