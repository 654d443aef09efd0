import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isPlainObject } from '../shared/text.js';
import type { EmbeddedSimulators } from './embeddedSimulators.js';
import { deliverSubscriberSms, SUBSCRIBER_SMS_SHAPE, SUBSCRIBER_SMS_TEXT_LENGTH } from './subscriberSms.js';

/** The number of the example SMS when no demo account names one: a short code. */
const EXAMPLE_SMS_NUMBER = '4242';

/**
 * The simulators' control endpoints: what a demo user calls to play the subscriber or the carrier. `smsNumber` is an
 * inbound number assigned to an account, which the SMS example writes to.
 */
export function simulatorControls(smsNumber: string) {
  return [
    {
      method: 'POST',
      path: '/sim/v1/inbound',
      example: '{"channelType":"WHATSAPP","from":"79161234567","senderName":"Herald","text":"Hi"}',
      what: 'a subscriber writes to a WhatsApp sender name',
    },
    {
      method: 'POST',
      path: '/sim/v1/inbound',
      example: '{"channelType":"TELEGRAM","from":"79161234561","senderName":"herald_demo_bot","text":"Hi"}',
      what: 'a subscriber writes to a Telegram bot (sharing their contact with it first, if they had not)',
    },
    {
      method: 'POST',
      path: '/sim/v1/inbound',
      example: `{"channelType":"SMS","from":"79161234567","to":"${smsNumber}","text":"Hi"}`,
      what:
        'a subscriber sends an SMS to an inbound number (an account owns it: ' +
        'POST /admin/v1/accounts/{id}/inbound-numbers); the SMSC simulator delivers it, in parts when long',
    },
  ] as const;
}

const WhatsappInbound = Type.Object(
  {
    channelType: Type.Literal('WHATSAPP'),
    from: Type.String({ maxLength: 32, description: 'the subscriber number', examples: ['79161234567'] }),
    senderName: Type.String({ maxLength: 64, description: 'the sender name written to', examples: ['Herald'] }),
    text: Type.String({ maxLength: 4096 }),
  },
  { additionalProperties: false },
);
const TelegramInbound = Type.Object(
  {
    channelType: Type.Literal('TELEGRAM'),
    from: Type.String({ maxLength: 32, description: 'the subscriber number', examples: ['79161234567'] }),
    senderName: Type.String({ maxLength: 64, description: 'the bot written to', examples: ['herald_demo_bot'] }),
    text: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
const SmsInbound = Type.Object(
  {
    channelType: Type.Literal('SMS'),
    from: Type.String({ maxLength: 21, description: 'the subscriber number', examples: ['79161234567'] }),
    to: Type.String({
      maxLength: 21,
      description: 'the number written to: an inbound number assigned to an account',
      examples: [EXAMPLE_SMS_NUMBER],
    }),
    text: Type.String({ maxLength: SUBSCRIBER_SMS_TEXT_LENGTH }),
  },
  { additionalProperties: false },
);
const InboundBody = Type.Union([WhatsappInbound, TelegramInbound, SmsInbound]);
const INBOUND_BODY_LIMIT = bodyLimitFor(InboundBody);
const EITHER =
  'Expected {channelType: "WHATSAPP", from, senderName, text}, {channelType: "TELEGRAM", from, senderName, text} ' +
  `or ${SUBSCRIBER_SMS_SHAPE}`;

/**
 * The simulators' control endpoints on Herald's own API port, with the body and answers they have on
 * the simulator's port, which a demo user cannot find. Registered only when Herald runs its simulators.
 */
export function simulatorRoutes(simulators: Pick<EmbeddedSimulators, 'providers' | 'smsc' | 'telegram'>): Routes {
  return (app) => {
    app.post(
      '/sim/v1/inbound',
      {
        bodyLimit: INBOUND_BODY_LIMIT,
        // The simulators check the body themselves, as on the WhatsApp simulator's own port.
        validatorCompiler: () => (value) => ({ value }),
        schema: {
          tags: ['Simulators'],
          summary:
            'Simulator: a subscriber writes to a WhatsApp sender name (an inbound webhook reaches Herald) or to a ' +
            'Telegram bot (an update reaches the bot webhook), or sends an SMS to an inbound number (the SMSC ' +
            'simulator delivers it as MO deliver_sm, in parts when long)',
          body: InboundBody,
          response: {
            200: Type.Union([
              Type.Object({ id: Type.String({ description: "WHATSAPP: the provider's message id" }) }),
              Type.Object({ parts: Type.Integer({ description: 'SMS: the deliver_sm parts Herald took' }) }),
              Type.Object({ updateId: Type.Integer({ description: "TELEGRAM: the update's id" }) }),
            ]),
            ...errorResponses(422, 503),
          },
        },
      },
      async (request) => {
        const body: unknown = request.body;
        const channel = isPlainObject(body) ? body.channelType : undefined;
        if (channel === 'SMS') {
          const answer = await deliverSubscriberSms(simulators.smsc, body);
          if ('problem' in answer) throw herald('unprocessable', { reason: answer.problem });
          if ('unavailable' in answer)
            throw herald('notReady', { reason: `the SMSC simulator: ${answer.unavailable}` });
          return answer;
        }
        if (channel === 'TELEGRAM' && isPlainObject(body)) return telegramInbound(simulators.telegram, body);
        if (channel !== 'WHATSAPP') throw herald('unprocessable', { reason: EITHER });
        const answer = simulators.providers.inbound(body);
        if ('problem' in answer) throw herald('unprocessable', { reason: answer.problem });
        return answer;
      },
    );
  };
}

/** The banner's lines naming the control endpoints at `baseUrl`; the SMS example writes to `smsNumber`. */
export function simulatorBanner(baseUrl: string, smsNumber = EXAMPLE_SMS_NUMBER): string[] {
  return [
    "  Simulators (the carriers of every channel; outcome by the destination's last digit):",
    ...simulatorControls(smsNumber).flatMap((c) => [
      `  ${c.method} ${baseUrl}${c.path}  (${c.what})`,
      `    curl -s ${baseUrl}${c.path} -H 'Content-Type: application/json' -d '${c.example}'`,
    ]),
  ];
}

/** A linked subscriber writes to a bot of the Telegram simulator: the update reaches Herald's webhook. */
async function telegramInbound(
  telegram: EmbeddedSimulators['telegram'],
  body: Record<string, unknown>,
): Promise<{ updateId: number }> {
  const { from, senderName, text } = body;
  if (typeof from !== 'string' || !/^\+?\d{6,15}$/.test(from) || typeof senderName !== 'string')
    throw herald('unprocessable', { reason: EITHER });
  if (typeof text !== 'string' || text.trim() === '' || text.length > 4096)
    throw herald('unprocessable', { reason: 'text must be 1 to 4096 characters' });
  const number = from.replace(/^\+/, '');
  if (number.endsWith('7')) throw herald('unprocessable', { reason: `${from} has no Telegram (numbers ending in 7)` });
  if (!telegram.bot.knows(senderName))
    throw herald('unprocessable', { reason: `the Telegram simulator has no bot ${senderName}` });
  if (!telegram.bot.webhookOf(senderName))
    throw herald('notReady', {
      reason: `the bot ${senderName} has no webhook: Herald registers it once it has its token`,
    });
  const delivery = await telegram.bot.writeAsLinked(senderName, number, text);
  if (delivery.status !== 200) {
    throw herald('notReady', {
      reason: `the bot webhook answered ${delivery.status ?? 'nothing'} (is the bot token attached and approved?)`,
    });
  }
  return { updateId: Number(delivery.update.update_id) };
}
