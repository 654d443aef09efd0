import { codeOptions, codeWord, t, texts } from '../../shared/i18n/index.js';
import { useState } from 'preact/hooks';
import { formatTime } from '../../shared/format.js';
import {
  AsyncState,
  CheckField,
  ConfirmButton,
  ListTable,
  NoticeLine,
  Page,
  SelectField,
  TextField,
  useAction,
  useAsync,
  useNotice,
} from '../../shared/ui.js';
import { system } from '../session.js';
import type { InboundRule, TrafficCenter } from '../types.js';

/** The channels whose inbound messages rules route here: WhatsApp chats and Telegram bots (DESIGN 18). */
const RULE_CHANNELS = ['WHATSAPP', 'TELEGRAM'] as const;
type RuleChannel = (typeof RULE_CHANNELS)[number];

/**
 * Settings / Inbounds (spec 6.5): traffic partitioning centers (one is the default, where inbounds matching no
 * rule go) and inbound rules: a center, a callback URL, and optionally the sender names the rule is limited to.
 */
export function Inbounds() {
  const notice = useNotice();
  const action = useAction(notice);
  const centers = useAsync((signal) => system.get('/api/v1/traffic-centers', { signal }), []);
  const rules = useAsync((signal) => system.get('/api/v1/inbound-rules', { signal }), []);
  const [ruleChannel, setRuleChannel] = useState<RuleChannel>('WHATSAPP');
  const names = useAsync(
    (signal) =>
      system.get('/api/v1/sender-names', {
        signal,
        query: { channelType: ruleChannel, status: 'Approved', per_page: 1000 },
      }),
    [ruleChannel],
  );

  const [centerName, setCenterName] = useState('');
  const [ruleCenter, setRuleCenter] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [limit, setLimit] = useState(false);
  const [chosenNames, setChosenNames] = useState<string[]>([]);

  const centerList = centers.data?.items ?? [];
  const centerId = ruleCenter || String(centerList[0]?.id ?? '');
  const centerNameOf = (id: number) => centerList.find((c) => c.id === id)?.name ?? `#${id}`;

  const createCenter = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await system.post('/api/v1/traffic-centers', { body: { name: centerName.trim() } });
      setCenterName('');
      centers.reload();
      return t('inbounds.centerCreated', { name: created.name });
    });
  };
  const makeDefault = (center: TrafficCenter) =>
    action.run(async () => {
      await system.patch('/api/v1/traffic-centers/{id}', { params: { id: center.id }, body: { isDefault: true } });
      centers.reload();
      return `${center.name} is now the default center.`;
    });
  const deleteCenter = (center: TrafficCenter) =>
    action.run(async () => {
      await system.delete('/api/v1/traffic-centers/{id}', { params: { id: center.id } });
      centers.reload();
      return t('inbounds.centerDeleted', { name: center.name });
    });
  const createRule = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await system.post('/api/v1/inbound-rules', {
        body: {
          trafficCenterId: Number(centerId),
          channelType: ruleChannel,
          callbackUrl: callbackUrl.trim() || null,
          senderNames: limit && chosenNames.length ? chosenNames : null,
        },
      });
      setCallbackUrl('');
      setChosenNames([]);
      setLimit(false);
      rules.reload();
      return t('inbounds.ruleAdded');
    });
  };
  const deleteRule = (rule: InboundRule) =>
    action.run(async () => {
      await system.delete('/api/v1/inbound-rules/{id}', { params: { id: rule.id } });
      rules.reload();
      return t('inbounds.ruleDeleted');
    });

  return (
    <Page title={t('app.nav.inbounds')}>
      <p class="lead">{t('inbounds.lead')}</p>
      <NoticeLine notice={notice.notice} />

      <h2>{t('inbounds.centers')}</h2>
      <AsyncState state={centers} what={t('inbounds.theCenters')} />
      {centers.data && (
        <ListTable
          label={t('inbounds.centers')}
          columns={[...texts('col.name', 'inbounds.default', 'col.created'), { label: t('ui.actions'), hidden: true }]}
          rows={centerList}
          row={(center) => (
            <tr key={center.id}>
              <th scope="row">{center.name}</th>
              <td>{center.isDefault ? t('inbounds.default') : '—'}</td>
              <td>{formatTime(center.createdAt)}</td>
              <td class="row-actions">
                {!center.isDefault && (
                  <>
                    <button
                      type="button"
                      class="secondary small"
                      disabled={action.busy}
                      onClick={() => void makeDefault(center)}
                      aria-label={t('inbounds.makeDefaultOf', { name: center.name })}
                    >
                      {t('inbounds.makeDefault')}
                    </button>
                    <ConfirmButton
                      label={t('ui.delete')}
                      name={`center ${center.name}`}
                      disabled={action.busy}
                      onConfirm={() => void deleteCenter(center)}
                    />
                  </>
                )}
              </td>
            </tr>
          )}
        />
      )}
      <form class="card inline-form" onSubmit={createCenter} aria-labelledby="new-center">
        <h3 id="new-center">{t('inbounds.addCenter')}</h3>
        <TextField label={t('inbounds.center')} value={centerName} onValue={setCenterName} required maxLength={200} />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('inbounds.addCenterButton')}
          </button>
        </div>
      </form>

      <h2>{t('inbounds.rules')}</h2>
      <AsyncState state={rules} what={t('inbounds.theRules')} />
      {rules.data && (
        <ListTable
          label={t('inbounds.rules')}
          columns={[
            ...texts('col.channel', 'col.center', 'message.callbackUrl', 'app.nav.senderNames', 'col.created'),
            { label: t('ui.actions'), hidden: true },
          ]}
          rows={rules.data.items}
          empty={t('inbounds.noRules')}
          row={(rule) => (
            <tr key={rule.id}>
              <td>{codeWord('channel', rule.channelType)}</td>
              <th scope="row">{centerNameOf(rule.trafficCenterId)}</th>
              <td class="mono clip">{rule.callbackUrl ?? '—'}</td>
              <td>{rule.senderNames?.join(', ') ?? t('inbounds.all')}</td>
              <td>{formatTime(rule.createdAt)}</td>
              <td>
                <ConfirmButton
                  label={t('ui.delete')}
                  name={t('inbounds.rule', { id: rule.id })}
                  disabled={action.busy}
                  onConfirm={() => void deleteRule(rule)}
                />
              </td>
            </tr>
          )}
        />
      )}
      <form class="card" onSubmit={createRule} aria-labelledby="new-rule">
        <h3 id="new-rule">{t('inbounds.addRule')}</h3>
        <div class="grid">
          <SelectField
            label={t('col.channel')}
            value={ruleChannel}
            onValue={(channel) => {
              setRuleChannel(channel);
              setChosenNames([]);
            }}
            options={codeOptions('channel', RULE_CHANNELS)}
          />
          <SelectField
            label={t('apiKeys.center')}
            value={centerId}
            onValue={setRuleCenter}
            options={
              centerList.length
                ? centerList.map((c) => ({ value: String(c.id), label: c.name }))
                : [{ value: '', label: t('inbounds.noCenters') }]
            }
            required
          />
          <TextField
            label={t('message.callbackUrl')}
            type="url"
            value={callbackUrl}
            onValue={setCallbackUrl}
            hint={t('inbounds.callbackHint')}
          />
        </div>
        <CheckField label={t('inbounds.includeNames')} checked={limit} onChecked={setLimit} />
        {limit && (
          <fieldset class="names">
            <legend>{t('inbounds.namesLegend')}</legend>
            {(names.data?.items ?? []).length === 0 && (
              <p class="hint">{t(ruleChannel === 'TELEGRAM' ? 'inbounds.noBots' : 'inbounds.noWhatsApp')}</p>
            )}
            {(names.data?.items ?? []).map((n) => (
              <CheckField
                key={n.id}
                label={n.name}
                checked={chosenNames.includes(n.name)}
                onChecked={(on) =>
                  setChosenNames(on ? [...chosenNames, n.name] : chosenNames.filter((x) => x !== n.name))
                }
              />
            ))}
          </fieldset>
        )}
        <div class="actions">
          <button type="submit" disabled={action.busy || !centerId}>
            {t('inbounds.addRuleButton')}
          </button>
        </div>
      </form>
    </Page>
  );
}
