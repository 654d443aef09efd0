import type { Socket } from 'node:net';

const corked = new WeakSet<Socket>();

/**
 * Gathers the PDUs written to a socket until the event loop next checks for I/O into one write: a burst of
 * submit_sm (or of deliver_sm_resp), including those sent from promise callbacks, costs one system call.
 */
export function corkUntilNextTick(socket: Socket): void {
  if (corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  setImmediate(() => {
    corked.delete(socket);
    socket.uncork();
  });
}
