import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { bodyLimitFor } from '../http/bodyLimits.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import type { ProviderSimulator } from './providerSimulator.js';

/** The simulators' control endpoints: what a demo user calls to play the subscriber or the carrier. */
export const SIMULATOR_CONTROLS = [
  {
    method: 'POST',
    path: '/sim/v1/inbound',
    example: '{"channelType":"WHATSAPP","from":"79161234567","senderName":"Herald","text":"Hi"}',
    what: 'a subscriber writes to a WhatsApp sender name',
  },
] as const;

/** A subscriber's message: WhatsApp's longest text (4096 characters), a number and a sender name. */
const INBOUND_BODY_LIMIT = bodyLimitFor(
  Type.Object(
    {
      channelType: Type.Literal('WHATSAPP'),
      from: Type.String({ maxLength: 32 }),
      senderName: Type.String({ maxLength: 64 }),
      text: Type.String({ maxLength: 4096 }),
    },
    { additionalProperties: false },
  ),
);

/**
 * The simulators' control endpoints on Herald's own API port, with the body and answers they have on
 * the simulator's port, which a demo user cannot find. Registered only when Herald runs its simulators.
 */
export function simulatorRoutes(providers: ProviderSimulator): Routes {
  return (app) => {
    app.post(
      '/sim/v1/inbound',
      {
        bodyLimit: INBOUND_BODY_LIMIT,
        // The simulator checks the body itself, as on its own port.
        validatorCompiler: () => (value) => ({ value }),
        schema: {
          tags: ['Simulators'],
          summary: 'Simulator: a subscriber writes to a WhatsApp sender name (an inbound webhook reaches Herald)',
          body: Type.Object({
            channelType: Type.Literal('WHATSAPP'),
            from: Type.String({ description: 'the subscriber number', examples: ['79161234567'] }),
            senderName: Type.String({ description: 'the sender name written to', examples: ['Herald'] }),
            text: Type.String(),
          }),
          response: {
            200: Type.Object({ id: Type.String({ description: "the provider's message id" }) }),
            ...errorResponses(422),
          },
        },
      },
      async (request) => {
        const answer = providers.inbound(request.body);
        if ('problem' in answer) throw herald('unprocessable', { reason: answer.problem });
        return answer;
      },
    );
  };
}

/** The banner's lines naming the control endpoints at `baseUrl`. */
export function simulatorBanner(baseUrl: string): string[] {
  return [
    "  Simulators (the carriers of every channel; outcome by the destination's last digit):",
    ...SIMULATOR_CONTROLS.flatMap((c) => [
      `  ${c.method} ${baseUrl}${c.path}  (${c.what})`,
      `    curl -s ${baseUrl}${c.path} -H 'Content-Type: application/json' -d '${c.example}'`,
    ]),
  ];
}
