import type { Attack, HeraldClient } from '../harness.js';

/** A link with characters Node refuses in a `Location` header (`€`, Cyrillic, DEL), as a text may hold them. */
export const UNENCODABLE_LINK = 'https://shop.example/€/каталог?q=\u007f';

/** Sends one SMS with `shortUrl: true`; returns the path of its short link on Herald (the base's path and the code). */
export async function sendShortLink(
  h: HeraldClient,
  token: string,
  senderName: string,
  content: string,
  extra: Record<string, unknown> = {},
) {
  const sent = await h.call('POST', '/api/v1/message', {
    token,
    body: [{ channelType: 'SMS', senderName, destination: '79165550000', content, shortUrl: true, ...extra }],
  });
  const id = sent.body.items[0].messageUuid as string;
  const object = (await h.call('GET', `/api/v1/message/${id}`, { token })).body;
  const shortUrl = (object.content as string).split(' ').find((word) => word.includes('://'))!;
  return { messageId: id, path: new URL(shortUrl).pathname };
}

/**
 * Finding 8a: a round sends a message whose link Node cannot put in a `Location` header, and follows its short link.
 */
export const unencodableLinks: Attack<{ token: string }> = {
  name: 'short links Node cannot put in a Location header',
  async setup(h) {
    const attacker = await h.createAccount({ senderNames: [['SMS', 'Attacker']] });
    return { token: attacker.traffic };
  },
  async round(h, state) {
    const { path } = await sendShortLink(h, state.token, 'Attacker', `Sale ${UNENCODABLE_LINK}`);
    return h.call('GET', path, { redirect: 'manual' });
  },
};
