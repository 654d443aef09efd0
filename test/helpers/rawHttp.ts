import { connect } from 'node:net';

export interface RawReply {
  readonly status: number;
  readonly body: any;
  readonly text: string;
}

/** The final response in raw bytes (after any 100 Continue), once its Content-Length has arrived. */
function parseRaw(bytes: Buffer): RawReply & { complete: boolean } {
  const text = bytes.toString('latin1').replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n)+/, '');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const raw = end < 0 ? '' : text.slice(end + 4);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  let body: unknown = Buffer.from(raw, 'latin1').toString('utf8');
  try {
    body = JSON.parse(body as string);
  } catch {
    // not JSON: kept as text for the assertion to show
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  return {
    status,
    body,
    text: text.slice(0, 500),
    complete: end >= 0 && length !== null && raw.length >= Number(length[1]),
  };
}

/** Raw bytes on a fresh connection, for what fetch will not send; resolves with Herald's answer. */
export function rawRequest(url: string, data: string | Buffer): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let received = Buffer.alloc(0);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRaw(received));
    };
    const timer = setTimeout(finish, 5000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseRaw(received).complete) finish();
    });
    // A reset after the answer (the server closes on what it refuses): the answer is what counts.
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(data);
  });
}
