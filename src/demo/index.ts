/** What other parts of Herald may use of demo/; everything else in the folder is its own. */
export { DEMO_BOT, demoBanner, ensureDemo, ensureDemoBot } from './demo.js';
export type { DemoCredentials } from './demo.js';
