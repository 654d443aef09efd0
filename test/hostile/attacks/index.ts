import type { Attack } from '../harness.js';
import { accountLargeBodies } from './accountLargeBodies.js';
import { uniqueCallbackUrls } from './callbackUrls.js';
import { inboundSettingsFlood } from './inboundSettings.js';
import { clickFlood } from './clickFlood.js';
import { dispatchSubstitutions } from './dispatchSubstitutions.js';
import { longLinks } from './longLinks.js';
import { templateFlood } from './templateFlood.js';
import { templatePatterns } from './templatePatterns.js';
import { unencodableLinks } from './unencodableLinks.js';
import { heavyReads } from './heavyReads.js';
import { largeBodies } from './largeBodies.js';
import { deepJson } from './deepJson.js';
import { bigCascades } from './bigCascades.js';
import { lookalikeWhatsappName } from './lookalikeWhatsappName.js';
import { revokedKeys } from './revokedKeys.js';
import { signInGuessing } from './signInGuessing.js';

/** What an attack may need of its surroundings: a local receiver for callbacks, the simulators' control endpoints. */
export interface AttackSetting {
  readonly receiverUrl: string;
  /** Where `POST /sim/v1/inbound` is served: Herald's own port when it runs its simulators. */
  readonly simulatorUrl: string;
}

/** Every attack of test/hostile, for the hostile benchmark (bench/hostile.ts). */
export const ATTACKS: readonly ((setting: AttackSetting) => Attack<any, unknown>)[] = [
  (s) => uniqueCallbackUrls(s.receiverUrl),
  () => inboundSettingsFlood(),
  () => longLinks,
  () => templatePatterns,
  () => unencodableLinks,
  (s) => clickFlood(s.receiverUrl),
  () => templateFlood,
  (s) => lookalikeWhatsappName(s.simulatorUrl),
  () => signInGuessing(),
  () => largeBodies(),
  () => accountLargeBodies(),
  () => revokedKeys(),
  () => deepJson(),
  () => bigCascades(),
  () => dispatchSubstitutions,
  () => heavyReads(),
];
