import { ExplainedError } from '../../shared/explained.js';
import { explainApiError } from '../../shared/errorWords.js';
import { t } from '../../shared/i18n/index.js';
import { useId, useRef, useState } from 'preact/hooks';
import { errorText } from '../../shared/api.js';
import { contentText } from '../../shared/format.js';
import { parseCsv } from '../../shared/parseCsv.js';
import { ListTable, NoticeLine, useAction, useNotice, Uuid } from '../../shared/ui.js';
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

  const upload = () =>
    action.run(async () => {
      if (!file) return;
      const done: Answered[] = [];
      try {
        for (const [i, chunk] of chunksOf(sendable, MAX_ADD).entries()) {
          if (i > 0) notice.info(t('upload.adding', { done: done.length, total: sendable.length }));
          const reply = await traffic.post('/api/v1/dispatch/{id}/messages', {
            params: { id: dispatch.dispatchId },
            body: chunk.map(entryOf),
          });
          reply.forEach((answer, j) => done.push({ row: chunk[j]!, answer }));
        }
      } catch (error) {
        if (!done.length) throw error;
        const stopped = { done: done.length, total: sendable.length, error: errorText(error) };
        throw new Error(t('upload.stopped', stopped), { cause: error });
      } finally {
        // Rows once sent are not offered again: a second click would add them twice.
        if (done.length) {
          setAnswers(done);
          setFile(undefined);
          if (input.current) input.current.value = '';
          onAdded();
        }
      }
      const no = done.filter(refused);
      const codes = [...new Set(no.map((a) => a.answer.errorCode))].join(', ');
      const skipped = file.data.rows.length - sendable.length;
      return (
        t('upload.added', { count: done.length - no.length, refused: no.length }) +
        (no.length ? t('upload.codes', { codes }) : '') +
        (skipped ? t('upload.skipped', { count: skipped }) : '.')
      );
    });

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
        {file && (
          <div class="actions">
            <button type="button" disabled={action.busy || sendable.length === 0} onClick={() => void upload()}>
              {t('upload.add', { count: sendable.length })}
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
                    {answer.errorCode}{' '}
                    <ExplainedError
                      explained={{
                        ...explainApiError(answer.errorCode ?? undefined, answer.msg ?? ''),
                        code: undefined,
                      }}
                    />
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
