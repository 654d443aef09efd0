import { writeFileSync } from 'node:fs';
import { renderErrorsDoc } from '../src/errors/errorsDoc.js';

writeFileSync('docs/errors.md', renderErrorsDoc());
