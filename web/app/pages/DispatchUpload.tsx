import { ExplainedError } from '../../shared/explained.js';
import { explainApiError } from '../../shared/errorWords.js';
import { t } from '../../shared/i18n/index.js';
import { useId, useRef, useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { parseCsv } from '../../shared/parseCsv.js';
import { contentText, formatNumber } from '../../shared/format.js';
import { ListTable, NoticeLine, useAction, useAsync, useNotice, Uuid } from '../../shared/ui.js';
import { type EstimateItem, isPriced, MAX_ESTIMATE, partsText, totalPriceText } from '../estimate.js';
import {
  type AddAnswer,
  chunksOf,
  type DestinationFile,
  type DestinationRow,
  destinationsOf,
  type Dispatch,
  entryOf,
  MAX_ADD,
  placeholdersOf,
  retryable,
  substituted,
} from '../dispatches.js';
import { traffic } from '../session.js';

/** Tables show the first rows and then only those with a problem or a refusal, up to this many in all. */
const FIRST_ROWS = 50;
const MAX_SHOWN = 500;

interface Answered {
  readonly row: DestinationRow;
  readonly answer: AddAnswer;
}

/** The first rows, then only the bad ones: a file of 100 000 rows is not drawn whole. */
function excerpt<T>(items: readonly T[], bad: (item: T) => boolean): T[] {
  return items.filter((item, i) => i < FIRST_ROWS || bad(item)).slice(0, MAX_SHOWN);
}

const refused = (a: Answered) => a.answer.messageUuid === undefined;

/**
 * Destinations of an initiated dispatch from a CSV file: a header row naming the columns, then the destination in
 * the first column and the substitutions in the others. The page reads the file, previews it with what is wrong
 * with each row, then adds the rows without problems in calls of up to 1000 and shows the API's answer to each.
 */
export function DispatchUpload({ dispatch, onAdded }: { dispatch: Dispatch; onAdded: () => void }) {
  const placeholders = placeholdersOf(contentText(dispatch.message));
  const [file, setFile] = useState<{ name: string; data: DestinationFile } | undefined>(undefined);
  const [answers, setAnswers] = useState<readonly Answered[] | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const notice = useNotice();
  const action = useAction(notice);
  const id = useId();
  const sendable = file?.data.rows.filter((r) => r.problems.length === 0) ?? [];

  const read = async (chosen: File | undefined) => {
    setFile(undefined);
    setAnswers(undefined);
    if (!chosen) return notice.clear();
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await chosen.arrayBuffer());
    } catch {
      return notice.error(new Error(`${chosen.name} is not UTF-8 text: save it as CSV UTF-8.`));
    }
    const data = destinationsOf(parseCsv(text), placeholders);
    const bad = data.rows.length - data.rows.filter((r) => r.problems.length === 0).length;
    setFile({ name: chosen.name, data });
    notice.info(
      t('upload.read', { file: chosen.name, count: data.rows.length }) +
        (bad ? t('upload.withProblems', { bad }) : t('upload.noProblems')),
    );
  };

  const estimate = useRowsEstimate(dispatch, file?.data);

  /** Adds rows in calls of up to 1000; the answers replace those of the same rows from an earlier try. */
  const add = (rows: readonly DestinationRow[], skipped: number) =>
    action.run(async () => {
      const done: Answered[] = [];
      try {
        for (const [i, chunk] of chunksOf(rows, MAX_ADD).entries()) {
          if (i > 0) notice.info(t('upload.adding', { done: done.length, total: rows.length }));
          const reply = await traffic.post('/api/v1/dispatch/{id}/messages', {
            params: { id: dispatch.dispatchId },
            body: chunk.map(entryOf),
          });
          reply.forEach((answer, j) => done.push({ row: chunk[j]!, answer }));
        }
      } catch (error) {
        if (!done.length) throw error;
        const stopped = { done: done.length, total: rows.length, error: errorText(error) };
        throw new Error(t('upload.stopped', stopped), { cause: error });
      } finally {
        // Rows once sent are not offered again: a second click would add them twice.
        if (done.length) {
          const again = new Map(done.map((a) => [a.row.row, a]));
          setAnswers((before) => [
            ...(before ?? []).map((a) => again.get(a.row.row) ?? a),
            ...done.filter((a) => !before?.some((b) => b.row.row === a.row.row)),
          ]);
          setFile(undefined);
          if (input.current) input.current.value = '';
          onAdded();
        }
      }
      const no = done.filter(refused);
      const added =
        t('upload.added', { count: done.length - no.length, refused: no.length }) +
        (skipped ? t('upload.skipped', { count: skipped }) : '.');
      // Refusals are a failure, said in words per code (with what to do), never a success line.
      if (no.length) throw new Error(`${added} ${refusalSummary(no)}`);
      return added;
    });
  const upload = () => {
    if (!file) return;
    setAnswers(undefined);
    void add(sendable, file.data.rows.length - sendable.length);
  };
  const retry = () =>
    void add(
      (answers ?? []).filter((a) => retryable(a.answer)).map((a) => a.row),
      0,
    );
  const toRetry = answers?.filter((a) => retryable(a.answer)).length ?? 0;

  const shownRows = file ? excerpt(file.data.rows, (r) => r.problems.length > 0) : [];
  const shownAnswers = answers ? excerpt(answers, refused) : [];

  return (
    <section aria-labelledby="destinations">
      <h2 id="destinations">{t('upload.title')}</h2>
      <div class="card">
        <div class="field">
          <label for={id}>{t('upload.file')}</label>
          <input
            id={id}
            ref={input}
            type="file"
            accept=".csv,text/csv"
            aria-describedby={`${id}-hint`}
            disabled={action.busy}
            onChange={(e) => void read(e.currentTarget.files?.[0])}
          />
          <small id={`${id}-hint`} class="hint">
            {t('upload.hint')}
            {placeholders.length ? ` (${placeholders.join(', ')})` : ''}. {t('upload.hintEnd')}
          </small>
        </div>
        {file && file.data.problems.length > 0 && (
          <ul class="problems" aria-label={t('upload.fileProblems')}>
            {file.data.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        {file && sendable.length > 0 && <EstimateSummary estimate={estimate} count={sendable.length} />}
        {file && (
          <div class="actions">
            <button type="button" disabled={action.busy || sendable.length === 0} onClick={upload}>
              {t('upload.add', { count: sendable.length })}
            </button>
          </div>
        )}
        {toRetry > 0 && (
          <div class="actions">
            <button type="button" disabled={action.busy} onClick={retry}>
              {t('upload.retry', { count: toRetry })}
            </button>
          </div>
        )}
        <NoticeLine notice={notice.notice} />
      </div>

      {file && file.data.rows.length > 0 && (
        <>
          <h3>{t('upload.preview', { file: file.name })}</h3>
          <ListTable
            label={t('upload.previewTable')}
            columns={[
              { label: t('upload.row'), class: 'num' },
              t('message.destination'),
              ...file.data.columns,
              t('upload.problems'),
              t('col.parts'),
              t('message.price'),
            ]}
            rows={shownRows}
            row={(r) => (
              <tr key={r.row} class={r.problems.length ? 'problem' : undefined}>
                <td class="num">{r.row}</td>
                <td>{r.destination || '—'}</td>
                {file.data.columns.map((c, i) => (
                  <td key={i} class="clip">
                    {r.substitutions[c] ?? '—'}
                  </td>
                ))}
                <td data-testid={r.problems.length ? 'row-problem' : undefined}>{r.problems.join('; ') || '—'}</td>
                <RowEstimate item={estimate.data?.get(r.row)} />
              </tr>
            )}
          />
          {shownRows.length < file.data.rows.length && (
            <p class="hint">
              {t('upload.showingRows', { shown: shownRows.length, total: file.data.rows.length, first: FIRST_ROWS })}
            </p>
          )}
        </>
      )}

      {answers && (
        <>
          <h3>{t('upload.results')}</h3>
          <ListTable
            label={t('upload.results')}
            columns={[{ label: t('upload.row'), class: 'num' }, t('message.destination'), t('upload.result')]}
            rows={shownAnswers}
            row={({ row, answer }) => (
              <tr key={row.row} class={answer.messageUuid ? undefined : 'problem'}>
                <td class="num">{row.row}</td>
                <td>{row.destination}</td>
                {answer.messageUuid ? (
                  <td>
                    {t('upload.addedRow')}{' '}
                    <a
                      href={`/app/messages/${answer.messageUuid}`}
                      class="mono"
                      aria-label={t('messages.messageLabel', { uuid: answer.messageUuid })}
                    >
                      <Uuid value={answer.messageUuid} />
                    </a>
                  </td>
                ) : (
                  <td data-testid="row-answer-error">
                    <ExplainedError explained={explainApiError(answer.errorCode ?? undefined, answer.msg ?? '')} />
                  </td>
                )}
              </tr>
            )}
          />
          {shownAnswers.length < answers.length && (
            <p class="hint">
              {t('upload.showingAnswers', { shown: shownAnswers.length, total: answers.length, first: FIRST_ROWS })}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The refusals of an add in words, per code, most frequent first: "Insufficient funds (4020): 1,929 rows. Top up the
 * balance, then send again."
 */
function refusalSummary(no: readonly Answered[]): string {
  const byCode = new Map<string, Answered[]>();
  for (const a of no) {
    const key = `${a.answer.errorCode ?? '?'}`;
    byCode.set(key, [...(byCode.get(key) ?? []), a]);
  }
  return [...byCode.values()]
    .sort((a, b) => b.length - a.length)
    .map((group) => {
      const first = group[0]!.answer;
      const words = explainApiError(first.errorCode ?? undefined, first.msg ?? '');
      const line = t('upload.refusedCode', { words: words.text, code: first.errorCode ?? '?', count: group.length });
      return words.advice ? `${line} ${words.advice}` : line;
    })
    .join(' ');
}

/**
 * The parts and price of each row without problems, by its text after its substitutions (POST
 * /api/v1/message/estimate, 1000 rows a call), by row number. None for a dispatch of cascades: which steps go
 * depends on the earlier ones' outcomes.
 */
function useRowsEstimate(dispatch: Dispatch, data: DestinationFile | undefined) {
  return useAsync(
    async (signal) => {
      const channelType = dispatch.channelType;
      const rows = data?.rows.filter((r) => r.problems.length === 0) ?? [];
      if (!channelType || dispatch.cascade || rows.length === 0) return undefined;
      const text = contentText(dispatch.message);
      const byRow = new Map<number, EstimateItem>();
      const total = { parts: 0, price: {} as Record<string, number>, unpriced: 0, refused: 0 };
      for (const chunk of chunksOf(rows, MAX_ESTIMATE)) {
        const reply = await traffic.post('/api/v1/message/estimate', {
          body: {
            channelType,
            items: chunk.map((r) => ({
              destination: r.destination,
              ...(channelType === 'SMS' ? { text: substituted(text, r.substitutions) } : {}),
            })),
          },
          signal,
        });
        reply.items.forEach((item, i) => byRow.set(chunk[i]!.row, item));
        total.parts += reply.total.parts;
        total.unpriced += reply.total.unpriced;
        total.refused += reply.total.refused;
        for (const [currency, amount] of Object.entries(reply.total.price))
          total.price[currency] = Math.round(((total.price[currency] ?? 0) + amount) * 1e6) / 1e6;
      }
      return Object.assign(byRow, { total });
    },
    [dispatch.dispatchId, data],
  );
}

type RowsEstimate = ReturnType<typeof useRowsEstimate>;

/** A preview row's parts and price, or why it would be refused. */
function RowEstimate({ item }: { item: EstimateItem | undefined }) {
  if (!item) return <td colSpan={2}>—</td>;
  if (!isPriced(item))
    return (
      <td colSpan={2} class="problem" data-testid="row-estimate-error">
        {explainApiError(item.errorCode, item.msg).text}
      </td>
    );
  return (
    <>
      <td class="num" title={partsText(item)}>
        {formatNumber(item.parts)}
      </td>
      <td class="num">
        {item.price === null ? t('upload.noPrice') : totalPriceText({ [item.currency!]: item.price })}
      </td>
    </>
  );
}

/** Before the rows are added: how many messages and parts, and what they should cost. */
function EstimateSummary({ estimate, count }: { estimate: RowsEstimate; count: number }) {
  const total = estimate.data?.total;
  return (
    <p class="estimate" data-testid="upload-estimate">
      {total
        ? t('upload.estimate', { count, parts: total.parts, price: totalPriceText(total.price) }) +
          (total.unpriced ? t('upload.unpriced', { count: total.unpriced }) : '') +
          (total.refused ? t('upload.estimateRefused', { count: total.refused }) : '')
        : estimate.loading
          ? t('upload.estimating')
          : ''}
    </p>
  );
}
