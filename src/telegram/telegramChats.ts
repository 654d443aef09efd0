import type { Db } from '../db/db.js';
import type { TelegramChats } from '../connectors/index.js';
import { senderNameBotToken } from '../senderNames/index.js';
import { type Clock, nowMs } from '../util/clock.js';
import { telegramLinkChat, telegramLinkDelete } from './telegramLinkSql.js';

/** How long a bot's token and a number's chat are trusted without reading them again. */
const CACHE_MS = 30_000;
/** Entries kept at most per cache: a bounded memory whatever the traffic. */
const CACHE_ENTRIES = 100_000;

/**
 * The telegram-bot connector's view of Herald's records: bots' tokens (senderNames/) and subscribers' chats
 * (telegram_links), each read once per 30 s at most for a busy bot or number. A missing link is read every time, so
 * that a subscriber who has just linked is reached at once; a link this process removes is forgotten at once. A
 * token the operator replaced, or a link replaced in another process, is seen within 30 s.
 */
export class TelegramChatDirectory implements TelegramChats {
  private readonly tokens = new Map<string, { value: string | undefined; until: number }>();
  private readonly chats = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async botToken(accountId: number, bot: string): Promise<string | undefined> {
    const key = `${accountId}\u0000${bot}`;
    const now = nowMs(this.clock);
    const cached = this.tokens.get(key);
    if (cached && cached.until > now) return cached.value;
    const value = (await senderNameBotToken(this.db, accountId, bot))?.token;
    remember(this.tokens, key, { value, until: now + CACHE_MS });
    return value;
  }

  async chatOf(accountId: number, bot: string, phone: string): Promise<string | undefined> {
    const key = `${accountId}\u0000${bot}\u0000${phone}`;
    const now = nowMs(this.clock);
    const cached = this.chats.get(key);
    if (cached && cached.until > now) return cached.value;
    const value = await telegramLinkChat(this.db, accountId, bot, phone);
    if (value === undefined) this.chats.delete(key);
    else remember(this.chats, key, { value, until: now + CACHE_MS });
    return value;
  }

  async unlink(accountId: number, bot: string, phone: string): Promise<void> {
    this.chats.delete(`${accountId}\u0000${bot}\u0000${phone}`);
    await telegramLinkDelete(this.db, accountId, bot, phone);
  }
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  // Maps keep insertion order: the oldest entry goes first.
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}
