// Copies non-TypeScript assets (SQL migrations) next to the compiled code in dist/. The folder is replaced, not
// merged: a migration left there from another checkout (a branch, a commit taken back) would be run by the built
// server.
import { cpSync, rmSync } from 'node:fs';

rmSync('dist/db/migrations', { recursive: true, force: true });
cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
