import { formatTime } from '../../shared/format.js';
import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import {
  ListTable,
  NoticeLine,
  Page,
  Pager,
  TextField,
  useAction,
  useAsync,
  useNotice,
  AsyncState,
} from '../../shared/ui.js';
import { system } from '../session.js';

const PER_PAGE = 50;

/** Subscribers' consents to mailings (DESIGN 20, docs/compliance.md): list with filters, record one, export CSV. */
export function Consents() {
  const notice = useNotice();
  const action = useAction(notice);
  const [page, setPage] = useState(1);
  const [source, setSource] = useState('');
  const [number, setNumber] = useState('');
  const [form, setForm] = useState({ number: '', senderName: '', source: 'web-form', proof: '' });
  const filter = { ...(source ? { source } : {}), ...(number ? { number } : {}) };
  const list = useAsync(
    (signal) => system.get('/api/v1/consents', { signal, query: { page, per_page: PER_PAGE, ...filter } }),
    [page, source, number],
  );
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await system.post('/api/v1/consents', {
        body: {
          number: form.number,
          source: form.source,
          ...(form.senderName ? { senderName: form.senderName } : {}),
          ...(form.proof ? { proof: form.proof } : {}),
        },
      });
      list.reload();
      return t('consents.recorded', { number: form.number });
    });
  };
  const exportCsv = () =>
    action.run(async () => {
      const csv = (await system.get('/api/v1/consents/export', { query: filter })) as unknown as string;
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      link.download = 'consents.csv';
      link.click();
      return t('consents.exported');
    });
  return (
    <Page title={t('app.nav.consents')}>
      <NoticeLine notice={notice.notice} />
      <form class="card" onSubmit={add} aria-labelledby="new-consent">
        <h2 id="new-consent">{t('consents.record')}</h2>
        <div class="grid">
          <TextField
            label={t('col.number')}
            value={form.number}
            onValue={(v) => setForm({ ...form, number: v })}
            required
          />
          <TextField
            label={t('col.senderName')}
            value={form.senderName}
            onValue={(v) => setForm({ ...form, senderName: v })}
            hint={t('consents.anyName')}
          />
          <TextField
            label={t('col.source')}
            value={form.source}
            onValue={(v) => setForm({ ...form, source: v })}
            required
          />
          <TextField label={t('col.proof')} value={form.proof} onValue={(v) => setForm({ ...form, proof: v })} />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('consents.recordButton')}
          </button>
        </div>
      </form>
      <div class="grid">
        <TextField label={t('consents.byNumber')} value={number} onValue={(v) => (setNumber(v), setPage(1))} />
        <TextField label={t('consents.bySource')} value={source} onValue={(v) => (setSource(v), setPage(1))} />
      </div>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => void exportCsv()} disabled={action.busy}>
          Export CSV
        </button>
      </div>
      <AsyncState state={list} what={t('consents.theConsents')} />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.consents')}
            columns={texts(
              'col.number',
              'col.senderName',
              'dispatch.trafficType',
              'col.source',
              'col.proof',
              'col.given',
            )}
            rows={list.data.items}
            empty={t('consents.none')}
            row={(c) => (
              <tr key={c.id}>
                <td class="mono">{c.number}</td>
                <td>{c.senderName ?? t('consents.any')}</td>
                <td>{c.trafficType ? codeWord('traffic', c.trafficType) : t('consents.any')}</td>
                <td>{c.source}</td>
                <td>{c.proof ?? ''}</td>
                <td>{formatTime(c.time)}</td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} />
        </>
      )}
    </Page>
  );
}
