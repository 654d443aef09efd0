import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, MSISDN, openChatWindow, SENDER } from '../messages/messageFixtures.js';

const REFUSED = { code: 4221, msg: 'No active template for content' };

// Outside the chat window (DESIGN 10) only content matching an approved template goes out: the rule of
// docs/entities.md, Templates, over the whole content (text, media, header, footer, buttons), not the text alone.
describe.each(ENGINES)('WhatsApp content matched against templates outside the chat window (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const ids: Record<string, number> = {};
  const send = async (content: Record<string, unknown>, destination = MSISDN) => {
    const body = [message('WHATSAPP', { content, destination })];
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
    expect(reply.status).toBe(200);
    const item = reply.body.items[0];
    if (item.code !== 201) return item;
    const stored = await t.call('GET', `/api/v1/message/${item.messageUuid}`, { token: account.traffic });
    return { code: 201, templateId: stored.body.templateId };
  };
  const accepted = (name: string) => ({ code: 201, templateId: ids[name] });
  const approved = async (name: string, body: Record<string, unknown>) => {
    const created = await t.call('POST', '/api/v1/templates', {
      token: account.system,
      body: { channelType: 'WHATSAPP', templateType: 'SERVICE', senderName: SENDER, ...body },
    });
    expect(created.status).toBe(201);
    await t.admin('POST', `/admin/v1/templates/${created.body.id}/approve`, {});
    ids[name] = created.body.id;
  };

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [['WHATSAPP', SENDER]],
      openWhatsapp: false,
    });
    await approved('plain', { pattern: 'Your order %d is ready' });
    await approved('decorated', {
      pattern: 'Sale: %d% off',
      content: {
        contentType: 'text',
        text: 'Sale: %d% off',
        header: { imageUrl: 'https://shop.example/banners/%w.png' },
        footer: { text: 'Reply STOP to unsubscribe' },
        buttons: [{ text: 'Shop now', url: 'https://shop.example/%w' }],
      },
    });
    await approved('image', {
      pattern: 'catalogue-%d.png',
      content: { contentType: 'image', imageUrl: 'https://cdn.shop.example/%s', imageName: 'catalogue-%d.png' },
    });
  });
  afterAll(async () => t?.close());

  const saleText = { contentType: 'text', text: 'Sale: 30% off' };
  const sale = {
    ...saleText,
    header: { imageUrl: 'https://shop.example/banners/spring.png' },
    footer: { text: 'Reply STOP to unsubscribe' },
    buttons: [{ text: 'Shop now', url: 'https://shop.example/spring' }],
  };
  const catalogue = { contentType: 'image', imageUrl: 'https://cdn.shop.example/c.png', imageName: 'catalogue-7.png' };
  const documentOf = (image: typeof catalogue) => ({ documentUrl: image.imageUrl, documentName: image.imageName });

  it('takes plain text matching a template without content', async () => {
    expect(await send({ contentType: 'text', text: 'Your order 4711 is ready' })).toEqual(accepted('plain'));
    expect(await send({ contentType: 'text', text: 'Your order soon is ready' })).toEqual(REFUSED);
  });

  it.each([
    ['buttons', { buttons: [{ text: 'Track', url: 'https://shop.example/t' }] }],
    ['a header', { header: { text: 'News' } }],
    ['an image header', { header: { imageUrl: 'https://evil.example/x.png' } }],
    ['a footer', { footer: { text: 'Bye' } }],
  ])('refuses text matching a template without content when it adds %s', async (_, extra) => {
    expect(await send({ contentType: 'text', text: 'Your order 4711 is ready', ...extra })).toEqual(REFUSED);
  });

  it('refuses media whose name matches a template without content', async () => {
    const image = { contentType: 'image', imageUrl: 'https://evil.example/a.png', imageName: 'Your order 47 is ready' };
    expect(await send(image)).toEqual(REFUSED);
  });

  it('takes content of the shape of a template with content, every string matching its pattern', async () => {
    expect(await send(sale)).toEqual(accepted('decorated'));
    expect(await send(catalogue)).toEqual(accepted('image'));
  });

  it.each([
    ['text alone', saleText],
    ['the header from another host', { ...sale, header: { imageUrl: 'https://evil.example/banners/spring.png' } }],
    ['a text header instead of an image', { ...sale, header: { text: 'Sale' } }],
    ['no footer', { ...sale, footer: undefined }],
    ['another footer', { ...sale, footer: { text: 'Reply STOP' } }],
    ['a second button', { ...sale, buttons: [...sale.buttons, { text: 'Call us', phone: '79161234567' }] }],
    ['a phone button instead of a link', { ...sale, buttons: [{ text: 'Shop now', phone: '79161234567' }] }],
    ['a text button instead of a link', { ...sale, buttons: [{ text: 'Shop now', payload: 'spring' }] }],
    ['another button text', { ...sale, buttons: [{ text: 'Buy', url: 'https://shop.example/spring' }] }],
    ['a button link elsewhere', { ...sale, buttons: [{ text: 'Shop now', url: 'https://evil.example/spring' }] }],
    ['the image from another host', { ...catalogue, imageUrl: 'https://evil.example/c.png' }],
    ['a document of that name', { contentType: 'document', ...documentOf(catalogue) }],
    ['the image with a caption header', { ...catalogue, header: { text: 'New!' } }],
  ])('refuses content that differs from a template with content: %s', async (_, content) => {
    expect(await send(content)).toEqual(REFUSED);
  });

  it('takes any content inside the chat window, with no template id when none matches', async () => {
    const subscriber = '79161234569';
    const order = { contentType: 'text', text: 'Your order 4711 is ready' };
    const buttons = { ...order, buttons: [{ text: 'Track', url: 'https://a.example/t' }] };
    expect(await send(buttons, subscriber)).toEqual(REFUSED);
    await openChatWindow(t, account.id, SENDER, subscriber);
    expect(await send(buttons, subscriber)).toEqual({ code: 201, templateId: null });
    expect(await send(sale, subscriber)).toEqual(accepted('decorated'));
  });
});
