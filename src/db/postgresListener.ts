import pg from 'pg';
import { wakeChannel, type WakeListener, type WakeTopic } from './wake.js';
import { CONNECT_TIMEOUT_MS, KEEP_ALIVE } from './connectionSettings.js';

/** The first wait before a lost listening connection is made again, doubled after each failure up to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * Listens for wake-ups on a connection of its own (not one of the pool's: LISTEN belongs to a session, and the pool
 * hands its connections to whoever asks). After a loss (the server restarted, the backend was terminated) the
 * connection is made again, with a growing pause while it fails, and `onListening` tells the caller to catch up on
 * what it may have missed. TCP keep-alive notices a connection that died without a word.
 */
export async function listenPostgres(
  options: { url: string; schema?: string },
  listener: WakeListener,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: options.url,
      ...KEEP_ALIVE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // Only a connection that was listening is made again here; a failed attempt is retried by schedule().
    const onLost = (error: Error): void => {
      if (client !== c) return;
      client = undefined;
      c.end().catch(() => undefined);
      if (stopped) return;
      listener.onLost?.(error);
      schedule();
    };
    c.on('error', onLost);
    c.on('end', () => onLost(new Error('the listening connection ended')));
    c.on('notification', (message) => listener.onWake(message.payload as WakeTopic));
    try {
      await c.connect();
      const { rows } = await c.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      await c.query(`LISTEN "${wakeChannel(rows[0]?.schema ?? 'public')}"`);
    } catch (error) {
      c.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await c.end();
      return;
    }
    client = c;
    retryMs = RETRY_FIRST_MS;
    listener.onListening();
  };
  const schedule = (): void => {
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((error: unknown) => {
        if (stopped) return;
        listener.onLost?.(error as Error);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
        schedule();
      });
    }, retryMs);
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end();
  };
}
