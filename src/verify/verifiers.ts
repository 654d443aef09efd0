import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.js';
import { validateCascade, type ValidCascade } from '../cascades/index.js';
import { herald } from '../errors/catalogue.js';
import { validationContext } from '../sending/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isoUtc } from '../util/time.js';
import {
  VERIFIER_DEFAULTS,
  type VerifierCreateJson,
  type VerifierJson,
  type VerifierUpdateJson,
} from './verifierSchemas.js';
import type { VerifierRow, VerifierSettings } from './verifierSql.js';

/** A FLASHCALL carries a 4-digit code as the caller's last digits (spec 2.2); longer codes need the carrier's help. */
export const FLASHCALL_CODE_LENGTH = 4;

const GATEWAY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** 10 characters of 36: 51 bits, so that a gateway id is short to type and never guessed or met twice. */
const GATEWAY_ID_LENGTH = 10;

/** A new gateway id: a short random string. */
export function newGatewayId(): string {
  return Array.from({ length: GATEWAY_ID_LENGTH }, () => GATEWAY_ALPHABET[randomInt(GATEWAY_ALPHABET.length)]).join('');
}

/** A new code of `length` digits from the operating system's CSPRNG, every code equally likely. */
export function newCode(length: number): string {
  return String(randomInt(10 ** length)).padStart(length, '0');
}

/**
 * A code's content on a channel: `<brand>: <code>`, the spec's VOICECODE template, the code itself (FLASHCALL), or a
 * TELEGRAM code, which the Gateway API sends in Telegram's own verification message (DESIGN 18).
 */
export function codeContent(channel: Channel, brand: string, code: string): unknown {
  switch (channel) {
    case 'FLASHCALL':
      return code;
    case 'TELEGRAM':
      return { contentType: 'code', code };
    case 'VOICECODE':
      return { contentType: 'text', text: `Код авторизации от ${brand}: ${code}.` };
    case 'VIBER':
    case 'WHATSAPP':
      return { contentType: 'text', text: `${brand}: ${code}` };
    default:
      return `${brand}: ${code}`;
  }
}

/**
 * The cascade object that sends `code` to `destination` through the verifier's workflow, as a client would post it
 * (so that each step is validated exactly as a message of its channel): AUTHORIZE traffic; each step but the last
 * moves on when it is not delivered; a step's message lives as long as the code (FLASHCALL takes no ttl).
 */
export function workflowCascade(verifier: VerifierSettings, destination: string, code: string): unknown {
  const last = verifier.workflow.length - 1;
  return {
    destination,
    trafficType: 'AUTHORIZE',
    cascade: verifier.workflow.map((step, i) => ({
      channelType: step.channelType,
      senderName: step.senderName,
      content: codeContent(step.channelType, verifier.brand, code),
      ...(step.channelType === 'FLASHCALL' ? {} : { ttl: verifier.codeTtl }),
      ...(i < last ? { condition: 'not_delivered' } : {}),
    })),
  };
}

/** A destination that any channel takes, to validate a workflow before any code is sent. */
const SAMPLE_DESTINATION = '79161234567';

/**
 * Validates a verifier's workflow as the codes it will send: every step's channel enabled for the account, and each
 * step a valid message of its channel (an active sender name, `voicecode` for VOICECODE, a 4-digit code for
 * FLASHCALL). Errors carry `step`, the 0-based place of the step at fault.
 */
export async function validateWorkflow(
  ctx: AppContext,
  principal: { accountId: number; accountChannels: Partial<Record<Channel, boolean>> },
  settings: VerifierSettings,
  now: Date,
): Promise<void> {
  const channels = enabledChannels(principal.accountChannels);
  settings.workflow.forEach((step, i) => {
    if (step.channelType === 'FLASHCALL' && settings.codeLength !== FLASHCALL_CODE_LENGTH) {
      throw herald('invalidField', {
        field: 'codeLength',
        value: `${settings.codeLength} (a FLASHCALL step sends ${FLASHCALL_CODE_LENGTH}-digit codes)`,
      }).with({ step: i });
    }
    if (!channels[step.channelType])
      throw herald('channelNotEnabled', { channelType: step.channelType }).with({ step: i });
  });
  await cascadeOf(ctx, principal.accountId, settings, SAMPLE_DESTINATION, '0'.repeat(settings.codeLength), now);
}

/** The workflow as a validated cascade for this destination and code (422 with `step` when a step is invalid). */
export async function cascadeOf(
  ctx: AppContext,
  accountId: number,
  settings: VerifierSettings,
  destination: string,
  code: string,
  now: Date,
): Promise<ValidCascade> {
  const cascade = workflowCascade(settings, destination, code) as { cascade: unknown[] };
  const validation = await validationContext(ctx, accountId, cascade.cascade, now);
  return validateCascade(cascade, validation);
}

/** A new verifier's settings, with the defaults of DESIGN 16. */
export function settingsOfCreate(body: VerifierCreateJson): VerifierSettings {
  return {
    name: body.name,
    brand: body.brand,
    codeLength: body.codeLength ?? VERIFIER_DEFAULTS.codeLength,
    codeTtl: body.codeTtl ?? VERIFIER_DEFAULTS.codeTtl,
    maxChecks: body.maxChecks ?? VERIFIER_DEFAULTS.maxChecks,
    workflow: body.workflow,
  };
}

/** A verifier's settings after an update that names the fields it changes. */
export function settingsOfUpdate(row: VerifierRow, body: VerifierUpdateJson): VerifierSettings {
  return {
    name: body.name ?? row.name,
    brand: body.brand ?? row.brand,
    codeLength: body.codeLength ?? row.code_length,
    codeTtl: body.codeTtl ?? row.code_ttl,
    maxChecks: body.maxChecks ?? row.max_checks,
    workflow: body.workflow ?? row.workflow,
  };
}

export function settingsOfRow(row: VerifierRow): VerifierSettings {
  return settingsOfUpdate(row, {});
}

export function verifierToApi(row: VerifierRow): VerifierJson {
  return {
    gatewayId: row.gateway_id,
    name: row.name,
    brand: row.brand,
    codeLength: row.code_length,
    codeTtl: row.code_ttl,
    maxChecks: row.max_checks,
    workflow: row.workflow,
    createdAt: isoUtc(row.created_at)!,
    updatedAt: isoUtc(row.updated_at)!,
  };
}
