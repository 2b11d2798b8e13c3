/** Where the CLI writes; injectable so the program can run inside a test process too. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

export function paint(enabled: boolean, code: number, text: string): string {
  return enabled ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** One line, no stack: the message of the error, with newlines folded. */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

/**
 * Reads a password from stdin: the whole input when piped (one trailing newline dropped), or one line
 * after a prompt on a terminal.
 */
export async function readPassword(io: CliIO, prompt: string): Promise<string> {
  if (!io.stdin.isTTY) return readStdin(io.stdin);
  const { createInterface } = await import('node:readline/promises');
  const lines = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    return await lines.question(prompt);
  } finally {
    lines.close();
  }
}

/** Reads stdin to the end; one trailing newline is dropped. */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Rows as aligned columns (tab-separated when not a terminal, so scripts can `cut -f`). */
export function table(rows: string[][], aligned: boolean): string {
  if (rows.length === 0) return '';
  if (!aligned) return rows.map((row) => row.join('\t')).join('\n') + '\n';
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}
