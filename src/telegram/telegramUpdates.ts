import type { AppContext } from '../context.js';
import { storeInbound } from '../inbound/index.js';
import { normaliseDestination } from '../numbering/index.js';
import { optOutCommitted } from '../optout/index.js';
import { isPlainObject } from '../shared/text.js';
import { telegramLinkPhone, telegramLinkPut } from './telegramLinkSql.js';

/** A bot as the updates' route knows it: an account's TELEGRAM sender name with its token. */
export interface Bot {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  readonly token: string;
}

/**
 * What the webhook answers Telegram: nothing, or one Bot API call made in the answer ("Making requests when getting
 * updates", https://core.telegram.org/bots/api): a reply to the subscriber costs Herald no request of its own.
 */
export type UpdateAnswer = Record<string, unknown>;

/** What an update was, for the tests and the log. */
export type UpdateKind = 'start' | 'linked' | 'foreign-contact' | 'inbound' | 'not-linked' | 'ignored';

const SHARE_BUTTON = { en: 'Share my phone number', ru: 'Поделиться номером телефона' };
const TEXTS = {
  start: {
    en: (bot: string) => `To receive messages from ${bot} here, share your phone number with the button below.`,
    ru: (bot: string) => `Чтобы получать здесь сообщения от ${bot}, поделитесь номером телефона кнопкой ниже.`,
  },
  linked: {
    en: (phone: string) => `Done: messages to +${phone} will come to this chat.`,
    ru: (phone: string) => `Готово: сообщения на номер +${phone} будут приходить в этот чат.`,
  },
  foreign: {
    en: () => 'Please share your own phone number: only your own contact can be linked.',
    ru: () => 'Поделитесь, пожалуйста, своим номером: привязать можно только собственный контакт.',
  },
} as const;

/**
 * One Bot API Update to an account's bot (DESIGN 18). `/start` (or anything from a subscriber not linked yet) is
 * answered with a `request_contact` button; a contact links its number to the chat only when it is the sender's own
 * (`contact.user_id` is `from.id`); every other message of a linked subscriber is an inbound message from the linked
 * number, routed by the account's inbound rules and called back. Updates of groups and channels, and edits, are not
 * the subscribers' messages: ignored.
 */
export async function receiveBotUpdate(
  ctx: AppContext,
  connectorId: string,
  bot: Bot,
  update: unknown,
): Promise<{ kind: UpdateKind; answer: UpdateAnswer }> {
  const message = isPlainObject(update) && isPlainObject(update.message) ? update.message : undefined;
  const chat = message && isPlainObject(message.chat) ? message.chat : undefined;
  const from = message && isPlainObject(message.from) ? message.from : undefined;
  if (!message || !chat || !from || chat.type !== 'private' || from.is_bot === true) return ignored();
  const chatId = String(chat.id);
  const lang = typeof from.language_code === 'string' && from.language_code.startsWith('ru') ? 'ru' : 'en';
  const botName = bot.name.toLowerCase();
  const reply = (text: string, markup: Record<string, unknown>): UpdateAnswer => ({
    method: 'sendMessage',
    chat_id: chat.id,
    text,
    reply_markup: markup,
  });
  const askForContact = (): UpdateAnswer =>
    reply(TEXTS.start[lang](`@${bot.name}`), {
      keyboard: [[{ text: SHARE_BUTTON[lang], request_contact: true }]],
      one_time_keyboard: true,
      resize_keyboard: true,
    });

  const contact = isPlainObject(message.contact) ? message.contact : undefined;
  if (contact) {
    const phone = normaliseDestination(String(contact.phone_number ?? ''))?.msisdn;
    if (contact.user_id === undefined || String(contact.user_id) !== String(from.id) || !phone) {
      return { kind: 'foreign-contact', answer: reply(TEXTS.foreign[lang](), { remove_keyboard: true }) };
    }
    await telegramLinkPut(ctx.db, {
      accountId: bot.accountId,
      bot: botName,
      phone,
      chatId,
      userId: String(from.id),
      at: ctx.clock.now(),
    });
    return { kind: 'linked', answer: reply(TEXTS.linked[lang](phone), { remove_keyboard: true }) };
  }

  const text =
    typeof message.text === 'string' ? message.text : typeof message.caption === 'string' ? message.caption : '';
  if (/^\/start(?:@\w+)?(?:\s|$)/.test(text)) return { kind: 'start', answer: askForContact() };
  const phone = await telegramLinkPhone(ctx.db, bot.accountId, botName, chatId);
  if (!phone) return { kind: 'not-linked', answer: askForContact() };
  if (text === '') return ignored();
  const at = ctx.clock.now();
  const stored = await ctx.db.transaction((tx) =>
    storeInbound(ctx, tx, {
      channel: 'TELEGRAM',
      accountId: bot.accountId,
      senderName: bot.name,
      subscriber: phone,
      country: normaliseDestination(phone)?.country ?? null,
      text,
      providerMessageId: `${connectorId}:${bot.id}:${chatId}:${String(message.message_id)}`,
      at,
    }),
  );
  optOutCommitted(ctx, stored?.optOut);
  return { kind: 'inbound', answer: {} };
}

function ignored(): { kind: UpdateKind; answer: UpdateAnswer } {
  return { kind: 'ignored', answer: {} };
}
