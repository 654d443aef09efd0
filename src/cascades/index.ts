/** What other parts of Herald may use of cascades/; everything else in the folder is its own. */
export { CascadeProgress, startCascade } from './cascades.js';
export { cascadesStop } from './cascadeSql.js';
export type { StoredStep } from './cascadeSql.js';
export { cascadeJobs } from './jobs.js';
export { validateCascade } from './validateCascade.js';
export type { ValidCascade } from './validateCascade.js';
