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
      return `Center ${created.name} created.`;
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
      return `Center ${center.name} deleted.`;
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
      return 'Inbound rule added.';
    });
  };
  const deleteRule = (rule: InboundRule) =>
    action.run(async () => {
      await system.delete('/api/v1/inbound-rules/{id}', { params: { id: rule.id } });
      rules.reload();
      return 'Inbound rule deleted.';
    });

  return (
    <Page title="Inbounds">
      <p class="lead">
        Inbound messages (WhatsApp, and Telegram bots’ chats) go to the center of the first rule that matches them;
        those matching no rule go to the default center.
      </p>
      <NoticeLine notice={notice.notice} />

      <h2>Traffic partitioning centers</h2>
      <AsyncState state={centers} what="centers" />
      {centers.data && (
        <ListTable
          label="Traffic partitioning centers"
          columns={['Name', 'Default', 'Created', { label: 'Actions', hidden: true }]}
          rows={centerList}
          row={(center) => (
            <tr key={center.id}>
              <th scope="row">{center.name}</th>
              <td>{center.isDefault ? 'Default' : '—'}</td>
              <td>{formatTime(center.createdAt)}</td>
              <td class="row-actions">
                {!center.isDefault && (
                  <>
                    <button
                      type="button"
                      class="secondary small"
                      disabled={action.busy}
                      onClick={() => void makeDefault(center)}
                      aria-label={`Make ${center.name} the default`}
                    >
                      Make default
                    </button>
                    <ConfirmButton
                      label="Delete"
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
        <h3 id="new-center">Add a center</h3>
        <TextField label="Center name" value={centerName} onValue={setCenterName} required maxLength={200} />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Add center
          </button>
        </div>
      </form>

      <h2>Inbound rules</h2>
      <AsyncState state={rules} what="rules" />
      {rules.data && (
        <ListTable
          label="Inbound rules"
          columns={['Channel', 'Center', 'Callback URL', 'Sender names', 'Created', { label: 'Actions', hidden: true }]}
          rows={rules.data.items}
          empty="No rules: every inbound goes to the default center."
          row={(rule) => (
            <tr key={rule.id}>
              <td>{rule.channelType}</td>
              <th scope="row">{centerNameOf(rule.trafficCenterId)}</th>
              <td class="mono clip">{rule.callbackUrl ?? '—'}</td>
              <td>{rule.senderNames?.join(', ') ?? 'All'}</td>
              <td>{formatTime(rule.createdAt)}</td>
              <td>
                <ConfirmButton
                  label="Delete"
                  name={`rule ${rule.id}`}
                  disabled={action.busy}
                  onConfirm={() => void deleteRule(rule)}
                />
              </td>
            </tr>
          )}
        />
      )}
      <form class="card" onSubmit={createRule} aria-labelledby="new-rule">
        <h3 id="new-rule">Add a rule</h3>
        <div class="grid">
          <SelectField
            label="Channel"
            value={ruleChannel}
            onValue={(channel) => {
              setRuleChannel(channel);
              setChosenNames([]);
            }}
            options={RULE_CHANNELS}
          />
          <SelectField
            label="Traffic partitioning center"
            value={centerId}
            onValue={setRuleCenter}
            options={
              centerList.length
                ? centerList.map((c) => ({ value: String(c.id), label: c.name }))
                : [{ value: '', label: 'No centers yet' }]
            }
            required
          />
          <TextField
            label="Callback URL"
            type="url"
            value={callbackUrl}
            onValue={setCallbackUrl}
            hint="Where inbound callbacks are sent."
          />
        </div>
        <CheckField label="Include sender names" checked={limit} onChecked={setLimit} />
        {limit && (
          <fieldset class="names">
            <legend>Sender names the rule applies to</legend>
            {(names.data?.items ?? []).length === 0 && (
              <p class="hint">No approved {ruleChannel === 'TELEGRAM' ? 'Telegram bots' : 'WhatsApp sender names'}.</p>
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
            Add rule
          </button>
        </div>
      </form>
    </Page>
  );
}
