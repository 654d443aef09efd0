/** What other parts of Herald may use of config/; everything else in the folder is its own. */
export { ConfigError, loadConfig } from './config.js';
export type { Config, LogLevel } from './config.js';
export { loadConfigFile } from './configFile.js';
export type { ConfigFile } from './configFile.js';
