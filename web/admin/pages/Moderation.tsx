import { useId, useState } from 'preact/hooks';
import { formatTime, localInputToIso } from '../../shared/format.js';
import { AsyncState, ListTable, NoticeLine, Page, Pager, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { admin } from '../session.js';

const PER_PAGE = 50;

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
      return `${what} ${decision === 'approve' ? 'approved' : 'rejected'}.`;
    });

  return (
    <Page title="Moderation">
      <NoticeLine notice={notice.notice} />
      <h2>Sender names</h2>
      <AsyncState state={names} what="sender names" />
      {names.data && (
        <>
          <ListTable
            label="Sender names waiting for moderation"
            columns={['Name', 'Account', 'Channel', "Client's comment", 'Requested', 'Bot token', 'Decision']}
            rows={names.data.items}
            empty="No sender names wait for moderation."
            row={(n) => (
              <tr key={n.id} data-testid="moderation-row">
                <th scope="row">{n.name}</th>
                <td>{n.accountId}</td>
                <td>{n.channelType}</td>
                <td>{n.comment ?? '—'}</td>
                <td>{formatTime(n.createdAt)}</td>
                <td>{n.channelType === 'TELEGRAM' ? (n.botToken ?? 'None') : '—'}</td>
                <td>
                  <Decision
                    what={`sender name ${n.name}`}
                    withStartDate
                    busy={action.busy}
                    onApprove={(startDate) =>
                      void decide(`Sender name ${n.name}`, 'approve', names, () =>
                        admin.post('/admin/v1/sender-names/{id}/approve', {
                          params: { id: n.id },
                          body: startDate ? { startDate } : {},
                        }),
                      )
                    }
                    onReject={(comment) =>
                      void decide(`Sender name ${n.name}`, 'reject', names, () =>
                        admin.post('/admin/v1/sender-names/{id}/reject', { params: { id: n.id }, body: { comment } }),
                      )
                    }
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={names.data} onPage={setNamesPage} label="Sender name pages" />
        </>
      )}

      <TelegramBots />

      <h2>Templates</h2>
      <AsyncState state={templates} what="templates" />
      {templates.data && (
        <>
          <ListTable
            label="Templates waiting for moderation"
            columns={['Id', 'Account', 'Channel', 'Type', 'Sender name', 'Pattern', 'Valid from', 'Decision']}
            rows={templates.data.items}
            empty="No templates wait for moderation."
            row={(t) => (
              <tr key={t.id} data-testid="moderation-row">
                <th scope="row">{t.id}</th>
                <td>{t.accountId}</td>
                <td>{t.channelType}</td>
                <td>{t.templateType}</td>
                <td>{t.senderName}</td>
                <td class="pre clip">{t.pattern}</td>
                <td>{formatTime(t.dateFrom)}</td>
                <td>
                  <Decision
                    what={`template ${t.id}`}
                    busy={action.busy}
                    onApprove={() =>
                      void decide(`Template ${t.id}`, 'approve', templates, () =>
                        admin.post('/admin/v1/templates/{id}/approve', { params: { id: t.id }, body: {} }),
                      )
                    }
                    onReject={(comment) =>
                      void decide(`Template ${t.id}`, 'reject', templates, () =>
                        admin.post('/admin/v1/templates/{id}/reject', { params: { id: t.id }, body: { comment } }),
                      )
                    }
                  />
                </td>
              </tr>
            )}
          />
          <Pager list={templates.data} onPage={setTemplatesPage} label="Template pages" />
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
          <label for={`${id}-start`}>Start date</label>
          <input
            id={`${id}-start`}
            type="datetime-local"
            value={startDate}
            onInput={(e) => setStartDate(e.currentTarget.value)}
            aria-describedby={`${id}-start-hint`}
          />
          <small id={`${id}-start-hint`} class="hint">
            Optional; now when empty.
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
        Approve
      </button>
      <div class="field">
        <label for={`${id}-comment`}>Rejection comment</label>
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
            setProblem('Write a comment to reject.');
            return;
          }
          setProblem('');
          onReject(comment.trim());
        }}
      >
        Reject
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
      return `Bot token of ${name} attached: ${changed.botToken ?? ''}`;
    });
    return attached;
  };

  return (
    <>
      <h2>Telegram bots</h2>
      <p class="hint">
        A TELEGRAM sender name is a bot’s username; it sends once it is approved and has the bot’s token from
        @BotFather.
      </p>
      <NoticeLine notice={notice.notice} />
      <AsyncState state={bots} what="Telegram bots" />
      {bots.data && (
        <>
          <ListTable
            label="Telegram bots"
            columns={['Bot', 'Account', 'Status', 'Bot token', 'Attach a token']}
            rows={bots.data.items}
            empty="No TELEGRAM sender names."
            row={(n) => (
              <tr key={n.id} data-testid="bot-row">
                <th scope="row">{n.name}</th>
                <td>{n.accountId}</td>
                <td>{n.status}</td>
                <td class="mono">{n.botToken ?? 'None'}</td>
                <td>
                  <BotTokenForm name={n.name} busy={action.busy} onAttach={(token) => attach(n.id, n.name, token)} />
                </td>
              </tr>
            )}
          />
          <Pager list={bots.data} onPage={setPage} label="Telegram bot pages" />
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
        <label for={id}>Bot token of {name}</label>
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
        Attach token
      </button>
    </form>
  );
}
