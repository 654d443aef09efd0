// Runs npm scripts at the same time, each one's output kept together and printed when it ends; exits with the first
// failure's code. `npm test` runs the type check and the lint this way: each is one process on one core (three tsc,
// then eslint, prettier and dependency-cruiser), so on two cores both take the time of the longer.
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
const codes = await Promise.all(
  scripts.map(
    (script) =>
      new Promise<number>((resolve) => {
        const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        const output: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
        child.on('close', (code, signal) => {
          process.stdout.write(Buffer.concat(output));
          if (code !== 0) process.stdout.write(`npm run ${script} failed (${signal ?? `exit code ${code}`})\n`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
