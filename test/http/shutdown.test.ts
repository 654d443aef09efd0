import { once } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestHerald } from '../helpers/testHerald.js';

describe('stopping the API server', () => {
  it('answers a request in progress with Connection: close and does not wait for the keep-alive timeout', async () => {
    const t = await startTestHerald('pglite');
    const account = await t.createAccount();
    const port = Number(new URL(t.url).port);
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    // A keep-alive request whose body is still coming when the stop begins.
    const body = JSON.stringify({ name: 'late' });
    socket.write(
      `POST /api/v1/traffic-centers HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n` +
        `Authorization: Basic ${account.system}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(body.slice(5));
    await closing;
    const took = Date.now() - started;
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    expect(answer.toLowerCase()).toContain('connection: close');
    // Far below the 72-second keep-alive timeout that held the stop before.
    expect(took).toBeLessThan(10_000);
  });
});
