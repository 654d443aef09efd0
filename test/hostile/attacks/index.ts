import type { Attack } from '../harness.js';
import { uniqueCallbackUrls } from './callbackUrls.js';
import { inboundSettingsFlood } from './inboundSettings.js';
import { clickFlood } from './clickFlood.js';
import { longLinks } from './longLinks.js';
import { templateFlood } from './templateFlood.js';
import { templatePatterns } from './templatePatterns.js';
import { unencodableLinks } from './unencodableLinks.js';

/** What an attack may need of its surroundings: a local receiver for callbacks. */
export interface AttackSetting {
  readonly receiverUrl: string;
}

/** Every attack of test/hostile, for the hostile benchmark (bench/hostile.ts). */
export const ATTACKS: readonly ((setting: AttackSetting) => Attack<any>)[] = [
  (s) => uniqueCallbackUrls(s.receiverUrl),
  () => inboundSettingsFlood(),
  () => longLinks,
  () => templatePatterns,
  () => unencodableLinks,
  (s) => clickFlood(s.receiverUrl),
  () => templateFlood,
];
