import { request } from 'undici';

/** An answer of the simulated Bot API or Gateway API: the HTTP status and the JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** POSTs a JSON body; resolves with the status it was answered, or null when no answer came. */
export async function postJson(url: string, headers: Record<string, string>, body: string): Promise<number | null> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    await response.body.dump();
    return response.statusCode;
  } catch {
    return null;
  }
}
