import type { Socket } from 'node:net';

const corked = new WeakSet<Socket>();

/**
 * Gathers the PDUs written to a socket during this turn of the event loop into one write: a burst of submit_sm
 * (or of deliver_sm_resp) costs one system call instead of one each.
 */
export function corkUntilNextTick(socket: Socket): void {
  if (corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  process.nextTick(() => {
    corked.delete(socket);
    socket.uncork();
  });
}
