// Runs the `signet` command as an operator would: a child process of the Node that runs
// the tests, with the given environment, its exit code and both streams captured.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const mainScript = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `input`, when given, is written to the command's standard input. */
export function runSignet(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainScript, ...args], {
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function describeRun(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}
