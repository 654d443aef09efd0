import { t } from '../../shared/i18n/index.js';
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
      return t('optOut.saved');
    });
  };

  return (
    <Page title={t('app.nav.optOut')}>
      <AsyncState state={settings} what={t('optOut.theSettings')} />
      <form class="card" onSubmit={save} aria-labelledby="opt-out-settings">
        <h2 id="opt-out-settings">{t('optOut.title')}</h2>
        <p>
          {t('optOut.lead')} {t('optOut.write')} <code>{'{unsubscribe}'}</code> {t('optOut.link')}
        </p>
        <div class="grid">
          <TextArea
            label={t('optOut.keywords')}
            value={keywords}
            onValue={setKeywords}
            rows={5}
            required
            hint={t('optOut.keywordsHint')}
          />
          <TextArea label={t('optOut.reply')} value={reply} onValue={setReply} rows={3} hint={t('optOut.replyHint')} />
        </div>
        <div class="actions">
          <button type="submit" disabled={action.busy || !settings.data}>
            {t('optOut.save')}
          </button>
        </div>
      </form>
      <NoticeLine notice={notice.notice} />
    </Page>
  );
}
