import { codeWord, t, texts } from '../../shared/i18n/index.js';
import { useId, useState } from 'preact/hooks';
import { formatTime, localInputToIso } from '../../shared/format.js';
import {
  AsyncState,
  ListTable,
  NoticeLine,
  Page,
  Pager,
  useAction,
  useAsync,
  useLiveReload,
  useNotice,
} from '../../shared/ui.js';
import { AccountLink, accountSortKey } from '../accountNames.js';
import { admin } from '../session.js';

const PER_PAGE = 50;

/** The column headers of the two queues (keys of the catalogues). */
const NAME_COLUMNS = ['col.name', 'col.account', 'col.channel', 'col.clientComment', 'col.requested'] as const;
const TEMPLATE_COLUMNS = ['col.id', 'col.account', 'col.channel', 'col.type', 'col.senderName'] as const;

/**
 * The moderation queues: Pending sender names and templates in INTERNAL_REVIEW, approve or reject each; and the
 * TELEGRAM sender names (bots), each with the token the operator attaches (DESIGN 18).
 */
export function Moderation() {
  const notice = useNotice();
  const action = useAction(notice);
  const [namesPage, setNamesPage] = useState(1);
  const [templatesPage, setTemplatesPage] = useState(1);
  const names = useAsync(
    (signal) =>
      admin.get('/admin/v1/sender-names', {
        signal,
        query: { status: 'Pending', page: namesPage, per_page: PER_PAGE },
      }),
    [namesPage],
  );
  const templates = useAsync(
    (signal) =>
      admin.get('/admin/v1/templates', {
        signal,
        query: { status: 'INTERNAL_REVIEW', page: templatesPage, per_page: PER_PAGE },
      }),
    [templatesPage],
  );
  // Clients ask for moderation at any time: both queues are read again while the tab is shown.
  useLiveReload(names, true);
  useLiveReload(templates, true);

  /** Sends one decision, then reloads its queue. */
  const decide = (
    what: string,
    decision: 'approve' | 'reject',
    queue: { reload(): void },
    send: () => Promise<unknown>,
  ) =>
    action.run(async () => {
      await send();
      queue.reload();
      return t(decision === 'approve' ? 'moderation.approved' : 'moderation.rejected', { what });
    });

  return (
    <Page
      title={t('admin.nav.moderation')}
      actions={
        <button
          type="button"
          class="secondary"
          onClick={() => {
            names.reload();
            templates.reload();
          }}
        >
          {t('ui.refresh')}
        </button>
      }
    >
      <NoticeLine notice={notice.notice} />
      <h2>{t('app.nav.senderNames')}</h2>
      <AsyncState state={names} what={t('senderNames.theNames')} />
      {names.data && (
        <>
          <ListTable
            label={t('moderation.namesTable')}
            columns={texts(...NAME_COLUMNS, 'col.botToken', 'col.decision')}
            sorts={[
              (n) => n.name,
              (n) => accountSortKey(n.accountId),
              (n) => codeWord('channel', n.channelType),
              (n) => n.comment ?? undefined,
              (n) => n.createdAt,
              undefined,
              undefined,
            ]}
            rows={names.data.items}
            empty={t('moderation.noNames')}
            row={(n) => (
              <tr key={n.id} data-testid="moderation-row">
                <th scope="row">{n.name}</th>
                <td>
                  <AccountLink id={n.accountId} />
                </td>
                <td>{codeWord('channel', n.channelType)}</td>
                <td>{n.comment ?? '—'}</td>
                <td>{formatTime(n.createdAt)}</td>
                <td>{n.channelType === 'TELEGRAM' ? (n.botToken ?? t('ui.none')) : '—'}</td>
                <td>
                  <Decision
                    what={t('moderation.senderName', { name: n.name })}
                    withStartDate
                    busy={action.busy}
                    onApprove={(startDate) =>
                      void decide(t('moderation.senderNameCap', { name: n.name }), 'approve', names, () =>
                        admin.post('/admin/v1/sender-names/{id}/approve', {
                          params: { id: n.id },
                          body: startDate ? { startDate } : {},
                        }),
                      )
                    }
                    onReject={(comment) =>
                      void decide(t('moderation.senderNameCap', { name: n.name }), 'reject', names, () =>
                        admin.post('/admin/v1/sender-names/{id}/reject', { params: { id: n.id }, body: { comment } }),
                      )
                    }
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={names.data} onPage={setNamesPage} label={t('senderNames.pages')} />
        </>
      )}

      <TelegramBots />

      <h2>{t('app.nav.templates')}</h2>
      <AsyncState state={templates} what={t('moderation.theTemplates')} />
      {templates.data && (
        <>
          <ListTable
            label={t('moderation.templatesTable')}
            columns={texts(...TEMPLATE_COLUMNS, 'templates.pattern', 'templates.validFrom', 'col.decision')}
            sorts={[
              (tpl) => tpl.id,
              (tpl) => accountSortKey(tpl.accountId),
              (tpl) => codeWord('channel', tpl.channelType),
              (tpl) => codeWord('templateType', tpl.templateType),
              (tpl) => tpl.senderName,
              undefined,
              (tpl) => tpl.dateFrom ?? undefined,
              undefined,
            ]}
            rows={templates.data.items}
            empty={t('moderation.noTemplates')}
            row={(tpl) => (
              <tr key={tpl.id} data-testid="moderation-row">
                <th scope="row">{tpl.id}</th>
                <td>
                  <AccountLink id={tpl.accountId} />
                </td>
                <td>{codeWord('channel', tpl.channelType)}</td>
                <td>{codeWord('templateType', tpl.templateType)}</td>
                <td>{tpl.senderName}</td>
                <td class="pre clip">{tpl.pattern}</td>
                <td>{formatTime(tpl.dateFrom)}</td>
                <td>
                  <Decision
                    what={t('templates.name', { id: tpl.id })}
                    busy={action.busy}
                    onApprove={() =>
                      void decide(t('moderation.templateCap', { id: tpl.id }), 'approve', templates, () =>
                        admin.post('/admin/v1/templates/{id}/approve', { params: { id: tpl.id }, body: {} }),
                      )
                    }
                    onReject={(comment) =>
                      void decide(t('moderation.templateCap', { id: tpl.id }), 'reject', templates, () =>
                        admin.post('/admin/v1/templates/{id}/reject', { params: { id: tpl.id }, body: { comment } }),
                      )
                    }
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={templates.data} onPage={setTemplatesPage} label={t('templates.pages')} />
        </>
      )}
    </Page>
  );
}

/** Approve (with an optional start date) or reject (with a required comment) one entry of a queue. */
function Decision({
  what,
  withStartDate,
  busy,
  onApprove,
  onReject,
}: {
  what: string;
  withStartDate?: boolean;
  busy: boolean;
  onApprove: (startDate: string | undefined) => void;
  onReject: (comment: string) => void;
}) {
  const id = useId();
  const [startDate, setStartDate] = useState('');
  const [comment, setComment] = useState('');
  const [problem, setProblem] = useState('');
  return (
    <div class="decision">
      {withStartDate && (
        <div class="field">
          <label for={`${id}-start`}>{t('col.startDate')}</label>
          <input
            id={`${id}-start`}
            type="datetime-local"
            value={startDate}
            onInput={(e) => setStartDate(e.currentTarget.value)}
            aria-describedby={`${id}-start-hint`}
          />
          <small id={`${id}-start-hint`} class="hint">
            {t('moderation.startHint')}
          </small>
        </div>
      )}
      <button
        type="button"
        class="small"
        disabled={busy}
        onClick={() => onApprove(localInputToIso(startDate))}
        aria-describedby={`${id}-what`}
      >
        {t('moderation.approve')}
      </button>
      <div class="field">
        <label for={`${id}-comment`}>{t('moderation.comment')}</label>
        <input
          id={`${id}-comment`}
          value={comment}
          onInput={(e) => setComment(e.currentTarget.value)}
          maxLength={1000}
        />
      </div>
      <button
        type="button"
        class="danger small"
        disabled={busy}
        aria-describedby={`${id}-what`}
        onClick={() => {
          if (!comment.trim()) {
            setProblem(t('moderation.commentNeeded'));
            return;
          }
          setProblem('');
          onReject(comment.trim());
        }}
      >
        {t('moderation.reject')}
      </button>
      <span id={`${id}-what`} class="visually-hidden">
        {what}
      </span>
      <span class="notice error" role="status" aria-live="polite">
        {problem}
      </span>
    </div>
  );
}

/**
 * The TELEGRAM sender names of every account: each is a bot, which sends only once the operator has attached its
 * token. The token is written once and never shown again: the list shows the bot id and an ellipsis.
 */
function TelegramBots() {
  const notice = useNotice();
  const action = useAction(notice);
  const [page, setPage] = useState(1);
  const bots = useAsync(
    (signal) =>
      admin.get('/admin/v1/sender-names', {
        signal,
        query: { channelType: 'TELEGRAM', page, per_page: PER_PAGE },
      }),
    [page],
  );
  /** Attaches the token; whether it was. */
  const attach = async (id: number, name: string, botToken: string): Promise<boolean> => {
    let attached = false;
    await action.run(async () => {
      const changed = await admin.patch('/admin/v1/sender-names/{id}', { params: { id }, body: { botToken } });
      attached = true;
      bots.reload();
      return t('moderation.attached', { name, token: changed.botToken ?? '' });
    });
    return attached;
  };

  return (
    <>
      <h2>{t('moderation.bots')}</h2>
      <p class="hint">{t('moderation.botsHint')}</p>
      <NoticeLine notice={notice.notice} />
      <AsyncState state={bots} what={t('moderation.bots')} />
      {bots.data && (
        <>
          <ListTable
            label={t('moderation.bots')}
            columns={texts('col.bot', 'col.account', 'col.status', 'col.botToken', 'moderation.attach')}
            rows={bots.data.items}
            empty={t('moderation.noBots')}
            row={(n) => (
              <tr key={n.id} data-testid="bot-row">
                <th scope="row">{n.name}</th>
                <td>
                  <AccountLink id={n.accountId} />
                </td>
                <td>{codeWord('senderStatus', n.status)}</td>
                <td class="mono">{n.botToken ?? t('ui.none')}</td>
                <td>
                  <BotTokenForm name={n.name} busy={action.busy} onAttach={(token) => attach(n.id, n.name, token)} />
                </td>
              </tr>
            )}
          />
          <Pager list={bots.data} onPage={setPage} label={t('moderation.botPages')} />
        </>
      )}
    </>
  );
}

/** A password input for one bot's token, emptied once the token is attached. */
function BotTokenForm({
  name,
  busy,
  onAttach,
}: {
  name: string;
  busy: boolean;
  onAttach: (token: string) => Promise<boolean>;
}) {
  const id = useId();
  const [token, setToken] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void onAttach(token.trim()).then((attached) => attached && setToken(''));
  };
  return (
    <form class="decision" onSubmit={submit}>
      <div class="field">
        <label for={id}>{t('moderation.tokenOf', { name })}</label>
        <input
          id={id}
          type="password"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          autoComplete="off"
          required
          maxLength={200}
        />
      </div>
      <button type="submit" class="small" disabled={busy}>
        {t('moderation.attachButton')}
      </button>
    </form>
  );
}
