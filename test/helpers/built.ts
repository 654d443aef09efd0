import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What `npm run build` reads: when none changed since its last output, the build in dist/ is this checkout's. */
const BUILD_INPUTS = [
  'src',
  'web',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
/** The last file `npm run build` writes (vite empties dist/public first): its time is the build's. */
const BUILT_MARK = 'dist/public/app/index.html';

/**
 * Whether dist/ was built after every input (file or folder: a folder's time changes when a file is added or
 * removed) last changed: a fresh clone's `npm ci` builds it in `prepare`, and fails if it cannot.
 */
export function builtIsFresh(): boolean {
  if (!existsSync(BUILT_MARK)) return false;
  const built = statSync(BUILT_MARK).mtimeMs;
  const inputs = BUILD_INPUTS.filter((input) => existsSync(input)).flatMap((input) =>
    statSync(input).isDirectory()
      ? [input, ...readdirSync(input, { recursive: true, encoding: 'utf8' }).map((name) => path.join(input, name))]
      : [input],
  );
  return inputs.every((file) => statSync(file).mtimeMs <= built);
}
