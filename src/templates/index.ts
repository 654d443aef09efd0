/** What other parts of Herald may use of templates/; everything else in the folder is its own. */
export { adminTemplateRoutes, templateRoutes } from './templateRoutes.js';
export { TemplateMatcher } from './templates.js';
