import pino, { type Logger } from 'pino';
import type { LogLevel } from './config/index.js';

/**
 * Herald's structured logger. Credentials never reach a log line: authorization headers are redacted wherever they
 * appear, and callback URLs are masked by the code that logs them. Requests are logged by path: query strings carry
 * phone numbers and webhook verify tokens.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.authorization',
          'token',
          '*.token',
          'botToken',
          '*.botToken',
          'password',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: { method?: string; url?: string; ip?: string; socket?: { remotePort?: number } }) => ({
          method: request.method,
          path: request.url?.split('?')[0],
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    destination,
  );
}
