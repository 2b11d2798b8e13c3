import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { githubDescription, servedOperations } from './description.js';
import { EXCEPTIONS } from './exceptions.js';

/** Where each test file's checked answers are summed up (record-answers.ts), for the report after the run. */
export const ANSWERS_DIR = fileURLToPath(new URL('../../../.test-results/openapi-answers/', import.meta.url));

/** The run's report as JSON, for a reader that wants more than the printed lines. */
const REPORT_FILE = fileURLToPath(new URL('../../../.test-results/openapi-report.json', import.meta.url));

interface FileSummary {
  file: string;
  operations: Record<string, { answers: number; conforming: boolean }>;
  unserved: string[];
  exceptions: number[];
  mismatches: Array<{ operation: string; status: number; field: string; rule: string; message: string }>;
}

/** Whether this vitest run is the whole suite of its config: no file filter, no test name pattern. */
function isWholeRun(): boolean {
  const args = process.argv.slice(2);
  return !args.some((arg) => /\.test\.|^test\/|^-t$|^--testNamePattern/.test(arg));
}

/** vitest globalSetup: every run starts with no summaries. */
export function setup(): void {
  rmSync(ANSWERS_DIR, { recursive: true, force: true });
  mkdirSync(ANSWERS_DIR, { recursive: true });
}

/** After the run: the coverage of GitHub's description by the answers the suite's tests received (issue 41). */
export function teardown(): void {
  const summaries = readdirSync(ANSWERS_DIR).map((name) => JSON.parse(readFileSync(`${ANSWERS_DIR}${name}`, 'utf8')) as FileSummary);
  if (summaries.length === 0) return;
  const description = githubDescription();
  const { served, unknown } = servedOperations(description);
  const validated = new Map<string, { answers: number; conforming: boolean }>();
  for (const summary of summaries) {
    for (const [key, entry] of Object.entries(summary.operations)) {
      const total = validated.get(key) ?? { answers: 0, conforming: true };
      validated.set(key, { answers: total.answers + entry.answers, conforming: total.conforming && entry.conforming });
    }
  }
  const exceptionsUsed = new Set(summaries.flatMap((summary) => summary.exceptions));
  const notValidated = served.filter((operation) => !validated.has(operation.key)).map((operation) => operation.key);
  const conforming = served.filter((operation) => validated.get(operation.key)?.conforming).length;
  const lines = [
    `GitHub's OpenAPI description (api.github.com): ${description.operations.length} operations`,
    `  served by repohost (docs/github-api.md): ${served.length}`,
    `  validated by at least one answer of this run: ${served.length - notValidated.length}`,
    `  conforming (every answer valid): ${conforming}`,
    `  answers checked: ${[...validated.values()].reduce((sum, entry) => sum + entry.answers, 0)} in ${summaries.length} files`,
    `  exceptions used: ${exceptionsUsed.size} of ${EXCEPTIONS.length}`,
  ];
  if (unknown.length > 0) lines.push(`  listed but not GitHub's: ${unknown.join(', ')}`);
  if (notValidated.length > 0) lines.push(`  served, no answer seen: ${notValidated.length}${notValidated.length > 20 ? ' (a part of the suite ran)' : `: ${notValidated.join(', ')}`}`);
  // A whole run must see every served operation answered at least once: one that no test reaches is unchecked.
  if (notValidated.length > 0 && isWholeRun()) {
    lines.push('  FAILED: every operation repohost serves must be validated by an answer of the suite (add a test that calls it)');
    process.exitCode = 1;
  }
  const mismatches = new Map(summaries.flatMap((summary) => summary.mismatches.map((m) => [`${m.operation} ${m.status} ${m.field} ${m.rule}`, m] as const)));
  if (mismatches.size > 0) lines.push(`  mismatches (${mismatches.size}):`, ...[...mismatches.values()].map((m) => `    ${m.operation} → ${m.status}: ${m.field || '(answer)'} [${m.rule}] ${m.message}`));
  writeFileSync(REPORT_FILE, JSON.stringify({ served: served.length, validated: served.length - notValidated.length, conforming, notValidated, mismatches: [...mismatches.values()] }, null, 1));
  console.log(`\n${lines.join('\n')}\n`);
}
