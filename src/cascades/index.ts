/** What other parts of Herald may use of cascades/; everything else in the folder is its own. */
export { CascadeProgress, startCascade } from './cascades.js';
export type { DispatchStatuses } from './dispatchStatuses.js';
export { cascadeInsertBatch, cascadesRunningOfDispatches, cascadesStop, cascadesStopOfDispatch } from './cascadeSql.js';
export type { StoredStep } from './cascadeSql.js';
export { type ValidCascade, type ValidStep, validateCascade } from './validateCascade.js';
export { cascadeJobs } from './jobs.js';
