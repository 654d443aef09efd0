import { useId, useState } from 'preact/hooks';
import type { Answer, Item, RequestBody } from './apiClient.js';
import { downloadText } from './csv.js';
import { CHANNELS, formatTime, formatNumber } from './format.js';
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
  [e.channelType ?? 'every channel', e.senderName ?? 'every sender name', e.trafficTypes?.join(', ') ?? 'every type']
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
      return `Number ${added.number} is on the stop list.`;
    });
  };
  const remove = (item: StopEntry) =>
    action.run(async () => {
      await api.remove(item.id);
      list.reload();
      return `Entry of ${item.number} deleted.`;
    });
  const importFile = (file: File | undefined) => {
    setImported(undefined);
    if (!file) return;
    void action.run(async () => {
      const csv = await file.text();
      if (csv.length > IMPORT_MAX_CHARS)
        throw new Error(`${file.name} is too big: at most ${formatNumber(IMPORT_MAX_CHARS)} characters a file.`);
      const result = await api.importCsv(csv);
      setImported(result);
      list.reload();
      return `${result.added} added, ${result.existing} already listed, ${result.errorCount} refused.`;
    });
  };
  const exportAll = () =>
    action.run(async () => {
      downloadText('stop-list.csv', await api.exportCsv(), 'text/csv');
      return 'Stop list exported.';
    });

  return (
    <Page title="Stop list">
      <p class="hint">{intro}</p>
      <form class="card" onSubmit={add} aria-labelledby="add-stop-entry">
        <h2 id="add-stop-entry">Add a number</h2>
        <div class="grid">
          <TextField
            label="Number"
            value={entry.number}
            onValue={(number) => setEntry({ ...entry, number })}
            required
            maxLength={64}
          />
          <SelectField
            label="Channel"
            value={entry.channelType}
            onValue={(channelType) => setEntry({ ...entry, channelType })}
            options={[{ value: '', label: 'Every channel' }, ...CHANNELS]}
          />
          <TextField
            label="Sender name"
            value={entry.senderName}
            onValue={(senderName) => setEntry({ ...entry, senderName })}
            maxLength={64}
            hint="Empty: every sender name."
          />
          <SelectField
            label="Traffic type"
            value={entry.trafficType}
            onValue={(trafficType) => setEntry({ ...entry, trafficType })}
            options={[{ value: '', label: 'Every type' }, ...TRAFFIC_TYPES]}
          />
          <TextField
            label="Comment"
            value={entry.comment}
            onValue={(comment) => setEntry({ ...entry, comment })}
            maxLength={1000}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Add number
          </button>
        </div>
      </form>

      <section class="card" aria-labelledby="import-export">
        <h2 id="import-export">Import and export</h2>
        <div class="field">
          <label for={fileId}>CSV file to import</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            aria-describedby={`${fileId}-hint`}
            disabled={action.busy}
            onChange={(e) => importFile(e.currentTarget.files?.[0])}
          />
          <small id={`${fileId}-hint`} class="hint">
            A header row naming the columns: number (required), channelType, senderName, trafficTypes (separated by ;),
            comment. At most 10,000 rows; an exported file imports as it is.
          </small>
        </div>
        {imported && imported.errors.length > 0 && (
          <ListTable
            label="Refused rows"
            columns={['Line', 'Why']}
            rows={imported.errors}
            empty=""
            row={(e) => (
              <tr key={e.line}>
                <td>{e.line}</td>
                <td data-testid="row-problem">{e.msg}</td>
              </tr>
            )}
          />
        )}
        <div class="actions">
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void exportAll()}>
            Export CSV
          </button>
        </div>
      </section>
      <NoticeLine notice={notice.notice} />

      <form
        class="toolbar"
        role="search"
        aria-label="Stop list filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
          setPage(1);
        }}
      >
        <TextField label="Find number" value={draft.number} onValue={(number) => setDraft({ ...draft, number })} />
        <SelectField
          label="Find channel"
          value={draft.channelType}
          onValue={(channelType) => setDraft({ ...draft, channelType })}
          options={[{ value: '', label: 'Any channel' }, ...CHANNELS]}
        />
        <TextField
          label="Find sender name"
          value={draft.senderName}
          onValue={(senderName) => setDraft({ ...draft, senderName })}
        />
        <SelectField
          label="Source"
          value={draft.source}
          onValue={(source) => setDraft({ ...draft, source })}
          options={[{ value: '', label: 'Any source' }, ...SOURCES]}
        />
        <button type="submit">Search</button>
      </form>
      <AsyncState state={list} what="the stop list" />
      {list.data && (
        <>
          <ListTable
            label="Stop list"
            columns={['Number', 'Applies to', 'Source', 'Comment', 'Added', { label: 'Actions', hidden: true }]}
            rows={list.data.items}
            empty="No numbers on the stop list."
            row={(item) => (
              <tr key={item.id}>
                <th scope="row">{item.number}</th>
                <td>{scopeOf(item)}</td>
                <td>{item.source}</td>
                <td>{item.comment ?? '—'}</td>
                <td>{formatTime(item.createdTime)}</td>
                <td>
                  <ConfirmButton
                    label="Delete"
                    name={item.number}
                    disabled={action.busy}
                    onConfirm={() => void remove(item)}
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={list.data} onPage={setPage} label="Stop list pages" />
        </>
      )}
    </Page>
  );
}
