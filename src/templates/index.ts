/** What other parts of Herald may use of templates/; everything else in the folder is its own. */
export { templateInsertDemo } from './templateSql.js';
export { TemplateMatcher } from './templates.js';
