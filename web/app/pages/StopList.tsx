import { t } from '../../shared/i18n/index.js';
import { request } from '../../shared/api.js';
import { StopListPage } from '../../shared/stopList.js';
import { session, system } from '../session.js';

/** The account's stop list (TOKEN_2): numbers its messages are not sent to. */
export function StopList() {
  return (
    <StopListPage
      intro={t('stopList.introClient')}
      api={{
        list: (query, signal) => system.get('/api/v1/stop-list', { query, signal }),
        add: (body) => system.post('/api/v1/stop-list', { body }),
        remove: async (id) => {
          await system.delete('/api/v1/stop-list/{id}', { params: { id } });
        },
        importCsv: (csv) => system.post('/api/v1/stop-list/import', { body: { csv } }),
        exportCsv: () => request<string>('GET', '/api/v1/stop-list/export', session.signedIn()),
      }}
    />
  );
}
