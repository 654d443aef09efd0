import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where profiles of declarative connectors are: the repository's `profiles/`, from src/ and from dist/ alike. */
export const PROFILES_DIR = fileURLToPath(new URL('../../../../profiles/', import.meta.url));

const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A profile that cannot be read; `key` is the connector's key at fault (`profile`). */
export class ProfileError extends Error {}

/**
 * A declarative connector that names a `profile` gets the profile's description (profiles/<name>.json: its
 * channel, request, response and status) under its own keys: the operator's secrets, addresses and flow, and any key
 * it sets itself, win. Its `name`, `documentation` and `notes` (what the provider's documentation leaves open) are
 * for readers, not settings. Other connectors are returned as they are.
 */
export function withProfile(connector: unknown, profilesDir = PROFILES_DIR): unknown {
  const c = connector as { type?: unknown; profile?: unknown };
  if (c?.type !== 'http' || c.profile === undefined) return connector;
  if (typeof c.profile !== 'string' || !PROFILE_NAME.test(c.profile)) throw new ProfileError('not a profile name');
  let profile: unknown;
  try {
    profile = JSON.parse(readFileSync(path.join(profilesDir, `${c.profile}.json`), 'utf8'));
  } catch {
    throw new ProfileError(`no profile ${c.profile} in ${profilesDir}`);
  }
  const { name: _n, documentation: _d, notes: _notes, ...description } = profile as Record<string, unknown>;
  return { ...description, ...(connector as object) };
}
