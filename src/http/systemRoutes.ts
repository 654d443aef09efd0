import { Type } from 'typebox';
import type { Routes } from './server.js';

/** GET /api/v1/ping: the connection check, without authentication (spec section 4). */
export const systemRoutes: Routes = (app) => {
  app.get(
    '/api/v1/ping',
    {
      schema: {
        tags: ['System'],
        summary: 'Connection check',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
};
