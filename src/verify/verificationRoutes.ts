import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { principalOf, requireToken } from '../accounts/index.js';
import { failureKeyOf } from '../http/clientAddress.js';
import { RateLimiter } from '../http/rateLimit.js';
import { errorResponses, IdempotencyHeaders } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { CHANNELS } from '../shared/channels.js';
import { UUID_PATTERN } from '../util/uuid7.js';
import { idempotencyKeyOf } from '../idempotency/index.js';
import { CHECK_STATUSES, checkCode, CodeHasher, SEND_WINDOW_MS, sendCode } from './verifications.js';

/** A destination as a client writes it (digits, +, spaces, dashes, brackets) is far shorter. */
const DESTINATION_MAX_LENGTH = 64;
/** Codes are 4-8 digits; a longer string is a wrong code all the same, but not one worth reading. */
const CODE_MAX_LENGTH = 32;

/** Sending and checking one-time codes (DESIGN 16), with TOKEN_3, Basic or Bearer. */
export const verificationRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['verify']);
  const security: Record<string, string[]>[] = [{ basicToken: [] }, { bearerToken: [] }];
  const tags = ['Verification'];
  const hasher = new CodeHasher(ctx);
  const perAddress = ctx.config.verifySendsPerAddress;
  // A token bucket of `perAddress` sends per account and client address, refilled over the send window, on Herald's
  // clock. Keyed by the account too: two clients of Herald behind one address (a NAT, a hosting provider's proxy)
  // never spend each other's sends.
  const addresses = new RateLimiter(perAddress / (SEND_WINDOW_MS / 1000), perAddress, () => ctx.clock.nowMs());

  app.post(
    '/api/v1/verifier/send',
    {
      onRequest,
      schema: {
        tags,
        summary: "Send a one-time code to a destination through a verifier's workflow; check it with the uuid",
        description:
          'The code goes as a cascade of AUTHORIZE messages (SMS `<brand>: <code>`, VOICECODE the spec template, ' +
          "FLASHCALL the caller's last digits); a step gives way to the next when it is not delivered or when its " +
          'timeout passes unconfirmed. A new send to the same destination through the same verifier replaces the ' +
          `older code. Limits: 5 sends per destination and verifier in 10 minutes, and ` +
          `HERALD_VERIFY_SENDS_PER_ADDRESS (${perAddress}) per account and client address in 10 minutes: ` +
          '429 4290 with Retry-After. The message of a step is an ordinary message (TOKEN_1 sees it), priced as one.',
        security,
        headers: IdempotencyHeaders,
        body: Type.Object(
          {
            gatewayId: Type.String({ minLength: 1, maxLength: 64 }),
            destination: Type.String({ minLength: 1, maxLength: DESTINATION_MAX_LENGTH }),
            channelType: Type.Optional(
              Type.Enum(CHANNELS, { description: "only the workflow's steps of this channel" }),
            ),
          },
          { additionalProperties: false, examples: [{ gatewayId: 'k3v9x2m7qa', destination: '+7 916 123-45-67' }] },
        ),
        response: {
          200: Type.Object({ uuid: Type.String({ description: 'what the code is checked with' }) }),
          ...errorResponses(401, 402, 403, 404, 409, 413, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const wait = addresses.take(`${principal.accountId} ${failureKeyOf(request.ip)}`);
      if (wait > 0) {
        ctx.metrics.rateLimited.inc({ kind: 'verify_sends' });
        throw herald('tooManyRequests', { retryAfter: wait });
      }
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const result = await sendCode(ctx, hasher, principal, request.body, key);
      if (result.replayed) void reply.header('idempotent-replayed', 'true');
      return reply.status(200).send(result.body);
    },
  );

  app.post(
    '/api/v1/verifier/check',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Check a code sent with /api/v1/verifier/send',
        description:
          'CONFIRMED: the right code (what is left of the workflow is stopped; the same code answers CONFIRMED again ' +
          "until the code expires). WRONG_CODE. EXPIRED: past the verifier's codeTtl, past its maxChecks checks, " +
          'or replaced by a newer send. NOT_FOUND: no code of this account has this uuid. A code sent as a JSON ' +
          'number is taken as its decimal digits: a code with a leading zero must be sent as a string.',
        security,
        body: Type.Object(
          {
            uuid: Type.String({ minLength: 1, maxLength: 64 }),
            code: Type.Union([
              Type.String({ minLength: 1, maxLength: CODE_MAX_LENGTH }),
              // Real clients send the digits as a number.
              Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
            ]),
          },
          { additionalProperties: false, examples: [{ uuid: '0b4c5d3e-8f1a-4c2b-9e6d-7a1f2b3c4d5e', code: '4821' }] },
        ),
        response: {
          200: Type.Object({ status: Type.Enum(CHECK_STATUSES) }),
          ...errorResponses(401, 403, 413, 422),
        },
      },
    },
    async (request) => {
      const { uuid, code } = request.body;
      if (!UUID_PATTERN.test(uuid)) return { status: 'NOT_FOUND' as const };
      const status = await checkCode(ctx, hasher, principalOf(request).accountId, {
        uuid: uuid.toLowerCase(),
        code: String(code),
      });
      return { status };
    },
  );
};
