import { randomBytes } from 'node:crypto';
import { accountUpdate, createAccount, ledgerAppend } from '../accounts/index.js';
import { inboundNumberAssign } from '../inbound/index.js';
import type { Config } from '../config/index.js';
import type { Db } from '../db/db.js';
import { senderNameBotToken, senderNameInsert, senderNameSetBotToken } from '../senderNames/index.js';
import { templateInsertDemo } from '../templates/index.js';
import type { Clock } from '../util/clock.js';

export const DEMO_SENDER_NAME = 'Herald';
/**
 * The demo account's bot (a TELEGRAM sender name), known to the embedded Telegram simulator by this token: the token
 * is a secret between Herald and its own simulator only, so it may be written here.
 */
export const DEMO_BOT = { name: 'herald_demo_bot', token: '1000000001:HeraldDemoBotOfTheEmbeddedSimulator0' } as const;
/** The short code the demo account receives SMS on: `POST /sim/v1/inbound` `{"channelType":"SMS","to":"4242",...}`. */
export const DEMO_INBOUND_NUMBER = '4242';
export const DEMO_BALANCE = 1000;
const DEMO_LOCK_KEY = 7_311_400_524;

/** What demo mode prints; kept in the settings table so that every start can print it again. */
export interface DemoCredentials {
  readonly accountId: number;
  readonly trafficToken: string;
  readonly systemToken: string;
  /** Generated when HERALD_ADMIN_TOKEN is unset. */
  readonly adminToken: string | undefined;
  /**
   * The number the demo account receives SMS on; absent for a demo account made before it had one, or when another
   * account of the database had the number already.
   */
  readonly inboundNumber?: string;
}

/**
 * On the first start in demo mode, creates the demo account: WHATSAPP and inbound enabled, an approved sender name
 * `Herald` for SMS and WHATSAPP, the inbound number {@link DEMO_INBOUND_NUMBER} (SMS written to it are the account's),
 * a balance, its two tokens and, without HERALD_ADMIN_TOKEN, an operator token.
 * Later starts return the same credentials. Demo credentials are stored in clear: demo mode is for a laptop.
 */
export async function ensureDemo(db: Db, config: Config, clock: Clock): Promise<DemoCredentials> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
    const [existing] = await tx.query<{ value: DemoCredentials }>("SELECT value FROM settings WHERE key = 'demo'");
    if (existing) return existing.value;

    const now = clock.now();
    const { account, tokens } = await createAccount(tx, { name: 'Demo', currency: config.currency }, now);
    await accountUpdate(tx, account.id, { channels: { WHATSAPP: true }, inboundEnabled: true }, now);
    for (const channelType of ['SMS', 'WHATSAPP'] as const) {
      await senderNameInsert(tx, {
        accountId: account.id,
        channelType,
        name: DEMO_SENDER_NAME,
        status: 'Approved',
        startDate: now,
        comment: 'demo',
        now,
      });
    }
    // Outside a chat window WhatsApp takes only approved templates: the demo has one that matches any text.
    await templateInsertDemo(tx, account.id, DEMO_SENDER_NAME, now);
    await ledgerAppend(tx, {
      accountId: account.id,
      currency: config.currency,
      amount: DEMO_BALANCE,
      kind: 'adjustment',
      comment: 'demo balance',
      now,
    });
    const inbound = await inboundNumberAssign(tx, {
      channelType: 'SMS',
      number: DEMO_INBOUND_NUMBER,
      accountId: account.id,
      at: now,
    });
    const credentials: DemoCredentials = {
      accountId: account.id,
      trafficToken: tokens.traffic,
      systemToken: tokens.system,
      adminToken: config.adminToken ? undefined : randomBytes(24).toString('base64url'),
      ...(Number(inbound.account_id) === account.id ? { inboundNumber: DEMO_INBOUND_NUMBER } : {}),
    };
    await tx.query("INSERT INTO settings (key, value) VALUES ('demo', $1)", [JSON.stringify(credentials)]);
    return credentials;
  });
}

/**
 * The banner printed at start-up in demo mode. It shows the admin token only when Herald generated it: one that came
 * from HERALD_ADMIN_TOKEN is the operator's secret, and start-up output ends up in terminals, CI logs and journals.
 */
export function demoBanner(
  credentials: DemoCredentials,
  baseUrl: string,
  adminTokenFromEnv: boolean,
  /** The demo bot is there (the simulators run): the banner shows a VK -> TELEGRAM -> SMS cascade too. */
  withBot = false,
): string {
  const adminToken = adminTokenFromEnv
    ? 'set by HERALD_ADMIN_TOKEN (not shown)'
    : (credentials.adminToken ?? 'none: the operator API is off (HERALD_ADMIN_TOKEN)');
  return [
    '',
    '  Herald demo',
    `  API:            ${baseUrl}  (reference: ${baseUrl}/docs)`,
    `  Pages:          ${baseUrl}/app (personal account: sign in with TOKEN_2), ${baseUrl}/admin ` +
      `(operator console: admin token)`,
    `  TOKEN_1 (traffic): ${credentials.trafficToken}`,
    `  TOKEN_2 (system):  ${credentials.systemToken}`,
    `  Admin token:       ${adminToken}`,
    `  Sender name:       ${DEMO_SENDER_NAME} (SMS and WHATSAPP)`,
    ...(withBot ? [`  Telegram bot:      ${DEMO_BOT.name} (TELEGRAM, on the Telegram simulator)`] : []),
    ...(credentials.inboundNumber
      ? [
          `  Inbound number:    ${credentials.inboundNumber} (SMS to it are the demo account's: ` +
            `GET ${baseUrl}/api/v1/message?direction=inbound with TOKEN_1)`,
        ]
      : []),
    '',
    '  Send an SMS:',
    `  curl -s ${baseUrl}/api/v1/message -H 'Authorization: Basic ${credentials.trafficToken}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '[{"channelType":"SMS","senderName":"${DEMO_SENDER_NAME}",` +
      `"destination":"79161234567","content":"Hello from Herald"}]'`,
    ...(withBot
      ? [
          '',
          '  Send a cascade VK -> TELEGRAM -> SMS (each step when the one before is not delivered):',
          `  curl -s ${baseUrl}/api/v1/message/cascade -H 'Authorization: Basic ${credentials.trafficToken}' \\`,
          `    -H 'Content-Type: application/json' \\`,
          `    -d '[{"destination":"79161234568","cascade":[` +
            `{"channelType":"VK","senderName":"${DEMO_SENDER_NAME}","content":"Hello from Herald",` +
            `"condition":"not_delivered"},` +
            `{"channelType":"TELEGRAM","senderName":"${DEMO_BOT.name}",` +
            `"content":{"contentType":"text","text":"Hello from Herald"},` +
            `"condition":"not_delivered","ttl":600},` +
            `{"channelType":"SMS","senderName":"${DEMO_SENDER_NAME}","content":"Hello from Herald"}]}]'`,
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * With the simulators on, the demo account has an approved bot with its token (DESIGN 18), so that a TELEGRAM message
 * and a VK -> TELEGRAM -> SMS cascade can be sent at once; added on a later start too, for a demo made before bots.
 */
export async function ensureDemoBot(db: Db, accountId: number, clock: Clock): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
    if (await senderNameBotToken(tx, accountId, DEMO_BOT.name)) return;
    const now = clock.now();
    const row = await senderNameInsert(tx, {
      accountId,
      channelType: 'TELEGRAM',
      name: DEMO_BOT.name,
      status: 'Approved',
      startDate: now,
      comment: 'demo bot of the embedded Telegram simulator',
      now,
    });
    if (row) await senderNameSetBotToken(tx, Number(row.id), DEMO_BOT.token, now);
  });
}
