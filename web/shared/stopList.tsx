import { explainApiError } from './errorWords.js';
import { codeOptions, codeWord, t, texts } from './i18n/index.js';
import { useId, useState } from 'preact/hooks';
import type { Answer, Item, RequestBody } from './apiClient.js';
import { downloadText } from './csv.js';
import { CHANNELS, formatTime } from './format.js';
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
} from './ui.js';

/** An entry of a stop list, the same shape in the account's and the operator's list (DESIGN 20). */
export type StopEntry = Item<Answer<'/api/v1/stop-list', 'get'>>;
type StopListPage = Answer<'/api/v1/stop-list', 'get'>;
type NewStopEntry = RequestBody<'/api/v1/stop-list', 'post'>;
type ImportResult = Answer<'/api/v1/stop-list/import', 'post'>;
export interface StopListQuery {
  readonly page: number;
  readonly per_page: number;
  readonly number?: string;
  readonly channelType?: StopEntry['channelType'] & string;
  readonly senderName?: string;
  readonly source?: StopEntry['source'];
}

/** The calls of one list: the personal account's (TOKEN_2) or the operator's. */
export interface StopListApi {
  list(query: StopListQuery, signal: AbortSignal): Promise<StopListPage>;
  add(entry: NewStopEntry): Promise<StopEntry>;
  remove(id: number): Promise<void>;
  importCsv(csv: string): Promise<ImportResult>;
  exportCsv(): Promise<string>;
}

const PER_PAGE = 50;
const SOURCES = ['api', 'import', 'keyword', 'link', 'carrier', 'operator'] as const;
const TRAFFIC_TYPES = ['AUTHORIZE', 'TRANSACT', 'SERVICE', 'PROMO'] as const;
/** What the API takes in one import (its IMPORT_MAX_CHARS): a bigger file is refused here, before it is sent. */
const IMPORT_MAX_CHARS = 500_000;

const scopeOf = (e: StopEntry): string =>
  [
    e.channelType ? codeWord('channel', e.channelType) : t('stopList.everyChannel'),
    e.senderName ?? t('stopList.everyName'),
    e.trafficTypes?.map((type) => codeWord('traffic', type)).join(', ') ?? t('stopList.everyType'),
  ]
    .filter(Boolean)
    .join('; ');

/**
 * A stop list page (DESIGN 20): filters, the entries newest first with "Delete", a form to add a number (absent
 * scope fields match everything), a CSV import whose refused rows are listed by line, and an export.
 */
export function StopListPage({ api, intro }: { api: StopListApi; intro: string }) {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState({ number: '', channelType: '', senderName: '', source: '' });
  const [draft, setDraft] = useState(filter);
  const [entry, setEntry] = useState({ number: '', channelType: '', senderName: '', trafficType: '', comment: '' });
  const [imported, setImported] = useState<ImportResult | undefined>(undefined);
  const notice = useNotice();
  const action = useAction(notice);
  const fileId = useId();
  const list = useAsync(
    (signal) =>
      api.list(
        {
          page,
          per_page: PER_PAGE,
          ...(filter.number ? { number: filter.number } : {}),
          ...(filter.channelType ? { channelType: filter.channelType as StopListQuery['channelType'] } : {}),
          ...(filter.senderName ? { senderName: filter.senderName } : {}),
          ...(filter.source ? { source: filter.source as StopListQuery['source'] } : {}),
        },
        signal,
      ),
    [page, filter],
  );

  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const added = await api.add({
        number: entry.number.trim(),
        ...(entry.channelType ? { channelType: entry.channelType as NewStopEntry['channelType'] } : {}),
        ...(entry.senderName.trim() ? { senderName: entry.senderName.trim() } : {}),
        ...(entry.trafficType ? { trafficTypes: [entry.trafficType as (typeof TRAFFIC_TYPES)[number]] } : {}),
        ...(entry.comment.trim() ? { comment: entry.comment.trim() } : {}),
      });
      setEntry({ number: '', channelType: '', senderName: '', trafficType: '', comment: '' });
      list.reload();
      return t('stopList.added', { number: added.number });
    });
  };
  const remove = (item: StopEntry) =>
    action.run(async () => {
      await api.remove(item.id);
      list.reload();
      return t('stopList.deleted', { number: item.number });
    });
  const importFile = (file: File | undefined) => {
    setImported(undefined);
    if (!file) return;
    void action.run(async () => {
      const csv = await file.text();
      if (csv.length > IMPORT_MAX_CHARS)
        throw new Error(t('stopList.tooBig', { file: file.name, max: IMPORT_MAX_CHARS }));
      const result = await api.importCsv(csv);
      setImported(result);
      list.reload();
      return t('stopList.imported', { added: result.added, existing: result.existing, refused: result.errorCount });
    });
  };
  const exportAll = () =>
    action.run(async () => {
      downloadText('stop-list.csv', await api.exportCsv(), 'text/csv');
      return t('stopList.exported');
    });

  return (
    <Page title={t('app.nav.stopList')}>
      <p class="hint">{intro}</p>
      <form class="card" onSubmit={add} aria-labelledby="add-stop-entry">
        <h2 id="add-stop-entry">{t('stopList.add')}</h2>
        <div class="grid">
          <TextField
            label={t('col.number')}
            value={entry.number}
            onValue={(number) => setEntry({ ...entry, number })}
            required
            maxLength={64}
          />
          <SelectField
            label={t('col.channel')}
            value={entry.channelType}
            onValue={(channelType) => setEntry({ ...entry, channelType })}
            options={codeOptions('channel', CHANNELS, 'stopList.everyChannelCap')}
          />
          <TextField
            label={t('col.senderName')}
            value={entry.senderName}
            onValue={(senderName) => setEntry({ ...entry, senderName })}
            maxLength={64}
            hint={t('stopList.nameHint')}
          />
          <SelectField
            label={t('dispatch.trafficType')}
            value={entry.trafficType}
            onValue={(trafficType) => setEntry({ ...entry, trafficType })}
            options={codeOptions('traffic', TRAFFIC_TYPES, 'stopList.everyTypeCap')}
          />
          <TextField
            label={t('senderNames.comment')}
            value={entry.comment}
            onValue={(comment) => setEntry({ ...entry, comment })}
            maxLength={1000}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('stopList.addButton')}
          </button>
        </div>
      </form>

      <section class="card" aria-labelledby="import-export">
        <h2 id="import-export">{t('stopList.importExport')}</h2>
        <div class="field">
          <label for={fileId}>{t('stopList.file')}</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            aria-describedby={`${fileId}-hint`}
            disabled={action.busy}
            onChange={(e) => importFile(e.currentTarget.files?.[0])}
          />
          <small id={`${fileId}-hint`} class="hint">
            {t('stopList.fileHint')}
          </small>
        </div>
        {imported && imported.errors.length > 0 && (
          <ListTable
            label={t('stopList.refused')}
            columns={texts('stopList.line', 'stopList.why')}
            rows={imported.errors}
            empty=""
            row={(e) => (
              <tr key={e.line}>
                <td>{e.line}</td>
                <td data-testid="row-problem">{explainApiError(4220, e.msg).text}</td>
              </tr>
            )}
          />
        )}
        <div class="actions">
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void exportAll()}>
            {t('stopList.export')}
          </button>
        </div>
      </section>
      <NoticeLine notice={notice.notice} />

      <form
        class="toolbar"
        role="search"
        aria-label={t('stopList.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
          setPage(1);
        }}
      >
        <TextField
          label={t('stopList.findNumber')}
          value={draft.number}
          onValue={(number) => setDraft({ ...draft, number })}
        />
        <SelectField
          label={t('stopList.findChannel')}
          value={draft.channelType}
          onValue={(channelType) => setDraft({ ...draft, channelType })}
          options={codeOptions('channel', CHANNELS, 'messages.anyChannel')}
        />
        <TextField
          label={t('stopList.findName')}
          value={draft.senderName}
          onValue={(senderName) => setDraft({ ...draft, senderName })}
        />
        <SelectField
          label={t('col.source')}
          value={draft.source}
          onValue={(source) => setDraft({ ...draft, source })}
          options={codeOptions('stopSource', SOURCES, 'stopList.anySource')}
        />
        <button type="submit">{t('messages.search')}</button>
      </form>
      <AsyncState state={list} what={t('stopList.theList')} />
      {list.data && (
        <>
          <ListTable
            label={t('app.nav.stopList')}
            columns={[
              ...texts('col.number', 'stopList.appliesTo', 'col.source', 'senderNames.comment', 'stopList.addedAt'),
              { label: t('ui.actions'), hidden: true },
            ]}
            rows={list.data.items}
            empty={t('stopList.none')}
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.number}</th>
                <td>{scopeOf(item)}</td>
                <td>{codeWord('stopSource', item.source)}</td>
                <td>{item.comment ?? '—'}</td>
                <td>{formatTime(item.createdTime)}</td>
                <td>
                  <ConfirmButton
                    label={t('ui.delete')}
                    name={item.number}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label={t('stopList.pages')} />
        </>
      )}
    </Page>
  );
}
