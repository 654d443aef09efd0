import { t } from '../../shared/i18n/index.js';
import { request } from '../../shared/api.js';
import { StopListPage } from '../../shared/stopList.js';
import { admin, session } from '../session.js';

/** The operator's stop list: numbers no account's messages are sent to. */
export function StopList() {
  return (
    <StopListPage
      intro={t('stopList.introOperator')}
      api={{
        list: (query, signal) => admin.get('/admin/v1/stop-list', { query, signal }),
        add: (body) => admin.post('/admin/v1/stop-list', { body }),
        remove: async (id) => {
          await admin.delete('/admin/v1/stop-list/{id}', { params: { id } });
        },
        importCsv: (csv) => admin.post('/admin/v1/stop-list/import', { body: { csv } }),
        exportCsv: () => request<string>('GET', '/admin/v1/stop-list/export', session.signedIn()),
      }}
    />
  );
}
