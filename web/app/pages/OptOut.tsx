import { useEffect, useState } from 'preact/hooks';
import { AsyncState, NoticeLine, Page, TextArea, useAction, useAsync, useNotice } from '../../shared/ui.js';
import { system } from '../session.js';

/**
 * Opt-out (docs/compliance.md): the keywords that list a subscriber who writes one, and the free confirmation reply.
 * Keywords are edited one a line; saving replaces them all.
 */
export function OptOut() {
  const [keywords, setKeywords] = useState('');
  const [reply, setReply] = useState('');
  const notice = useNotice();
  const action = useAction(notice);
  const settings = useAsync((signal) => system.get('/api/v1/opt-out', { signal }), []);

  useEffect(() => {
    if (!settings.data) return;
    setKeywords(settings.data.keywords.join('\n'));
    setReply(settings.data.reply ?? '');
  }, [settings.data]);

  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const saved = await system.put('/api/v1/opt-out', {
        body: {
          keywords: keywords
            .split('\n')
            .map((k) => k.trim())
            .filter((k) => k !== ''),
          reply: reply.trim() === '' ? null : reply,
        },
      });
      setKeywords(saved.keywords.join('\n'));
      setReply(saved.reply ?? '');
      return 'Opt-out settings saved.';
    });
  };

  return (
    <Page title="Opt-out">
      <AsyncState state={settings} what="opt-out settings" />
      <form class="card" onSubmit={save} aria-labelledby="opt-out-settings">
        <h2 id="opt-out-settings">Keywords and reply</h2>
        <p>
          A subscriber whose whole message (SMS to your inbound number, WhatsApp, Telegram) is one of these words, in
          any case, is put on your stop list for promotions and service messages; codes and transaction notices still
          go. Write <code>{'{unsubscribe}'}</code> in a text to give each message its own unsubscribe link.
        </p>
        <div class="grid">
          <TextArea
            label="Keywords"
            value={keywords}
            onValue={setKeywords}
            rows={5}
            required
            hint="One a line: 1 to 20 keywords of at most 40 characters."
          />
          <TextArea
            label="Reply"
            value={reply}
            onValue={setReply}
            rows={3}
            hint="Optional, at most 160 characters: sent free from the sender name written to. Empty: no reply."
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy || !settings.data}>
            Save
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />
    </Page>
  );
}
