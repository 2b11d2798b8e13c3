import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { withAdmin } from './admin-run.js';
import type { AsyncAdminOperations } from '../admin/protocol.js';
import { errorLine, paint, readPassword, readStdin, table, UsageError, useColour, type CliIO } from './output.js';
import { MAX_DATABASE_POOL_SIZE } from '../options.js';
import { serve } from './serve.js';
import { VERSION } from '../version.js';


interface DbFlags {
  db: string;
  data?: string;
  databaseUrl?: string;
}

function dbOptions(command: Command): Command {
  return command
    .addOption(new Option('--db <file>', 'database file').env('REPOHOST_DB').default('./data.db'))
    .addOption(new Option('--data <dir>', 'folder for repositories and avatars (default: beside the database)').env('REPOHOST_DATA'))
    .addOption(new Option('--database-url <url>', 'a PostgreSQL database instead of --db (several instances may share it; --data is required then)').env('REPOHOST_DATABASE_URL'));
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`invalid port ${JSON.stringify(value)}: expected 0-65535`);
  return port;
}

/**
 * The token of `--harness` (given, from REPOHOST_HARNESS_TOKEN, or made now and printed once, for the harness to read),
 * or undefined without `--harness`: only the flag turns the endpoints on.
 */
function harnessToken(flags: { harness?: boolean; harnessToken?: string }, io: CliIO): string | undefined {
  if (!flags.harness) return undefined;
  if (flags.harnessToken !== undefined) {
    if (flags.harnessToken.length < 16) throw new UsageError('--harness-token must be at least 16 characters');
    return flags.harnessToken;
  }
  const token = randomBytes(24).toString('base64url');
  io.stdout.write(`repohost harness token: ${token}\n`);
  return token;
}

function parsePoolSize(value: string, databaseUrl: string | undefined): number {
  if (databaseUrl === undefined) throw new UsageError('--database-pool-size needs --database-url (the embedded database has no pool)');
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > MAX_DATABASE_POOL_SIZE) throw new UsageError(`invalid --database-pool-size ${JSON.stringify(value)}: expected 1-${MAX_DATABASE_POOL_SIZE}`);
  return size;
}

function parseRepoName(value: string): { owner: string; name: string } {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(value);
  if (!match) throw new UsageError(`expected <owner>/<name>, got ${JSON.stringify(value)}`);
  return { owner: match[1]!, name: match[2]!.replace(/\.git$/, '') };
}

/** Builds the commander program; actions report their exit code through `exit`. */
function buildProgram(io: CliIO, exit: (code: number) => void): Command {
  const colour = useColour(io.stderr, io.env);
  const admin = <T>(flags: DbFlags, work: (ops: AsyncAdminOperations) => Promise<T>) =>
    withAdmin({ dbPath: resolve(flags.db), dataDir: flags.data, databaseUrl: flags.databaseUrl }, work);
  const aligned = io.stdout.isTTY === true;

  const program = new Command('repohost')
    .description('A small git forge: serve it, and manage its users, tokens and repositories.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(paint(colour, 31, text.trimEnd().split('\n')[0]!) + '\n'),
    });

  const serveCommand = program
    .command('serve')
    .description('run the server (stop with Ctrl-C or SIGTERM)')
    .addOption(new Option('--port <port>', 'TCP port; busy is an error, 0 picks a free one').env('REPOHOST_PORT').default('3000'))
    .addOption(new Option('--host [host]', 'interface to bind; --host alone means all interfaces (0.0.0.0)').env('REPOHOST_HOST').default('127.0.0.1'))
    .addOption(new Option('--ssh-port <port>', 'serve git over SSH on this port too (0 picks a free one); off unless given').env('REPOHOST_SSH_PORT'))
    .addOption(new Option('--database-pool-size <n>', 'with --database-url: the most connections this instance opens to PostgreSQL, besides two of its own (default 10)').env('REPOHOST_DATABASE_POOL_SIZE'))
    .option('--allow-local-network', 'let imports and webhooks reach loopback and private addresses', false)
    .option('--allow-local-import', 'let imports (only) reach loopback and private addresses', false)
    .option('--fixtures <file>', 'load users, repositories, issues and pull requests from this JSON file first (see Fixtures)')
    .option('--harness', 'serve reset, snapshots, idle and the clock over HTTP under /-/harness (see README); deliveries are not retried')
    .addOption(new Option('--harness-token <token>', 'the bearer token /-/harness needs (printed when generated)').env('REPOHOST_HARNESS_TOKEN'))
    .option('--no-rate-limit', "count /api/v3 requests against GitHub's rate limits but refuse none (with --harness, never refused)")
    .option(
      '--accept-log-loss',
      'start even if the end of the write log is damaged and may have held acknowledged writes: keep the records before the damage, move the rest aside (use once, after deciding they cannot be restored)',
      false,
    );
  type ServeCommandFlags = DbFlags & { port: string; sshPort?: string; databasePoolSize?: string; host: string | true; allowLocalNetwork: boolean; allowLocalImport: boolean; fixtures?: string; acceptLogLoss: boolean; harness?: boolean; harnessToken?: string; rateLimit: boolean };
  dbOptions(serveCommand).action(async (flags: ServeCommandFlags) => {
    exit(
      await serve(
        {
          port: parsePort(flags.port),
          sshPort: flags.sshPort === undefined ? undefined : parsePort(flags.sshPort),
          host: flags.host === true ? '0.0.0.0' : flags.host,
          db: flags.db,
          data: flags.data,
          databaseUrl: flags.databaseUrl,
          databasePoolSize: flags.databasePoolSize === undefined ? undefined : parsePoolSize(flags.databasePoolSize, flags.databaseUrl),
          allowLocalNetwork: flags.allowLocalNetwork,
          allowLocalImport: flags.allowLocalImport || flags.allowLocalNetwork,
          fixtures: flags.fixtures === undefined ? undefined : resolve(flags.fixtures),
          acceptLogLoss: flags.acceptLogLoss,
          harnessToken: harnessToken(flags, io),
          rateLimit: flags.rateLimit,
        },
        io,
      ),
    );
  });

  const user = program.command('user').description('manage users');
  dbOptions(
    user
      .command('add <username>')
      .description('create a user')
      .requiredOption('--email <email>', 'e-mail address')
      .option('--password <password>', 'password (visible in the process list; prefer --password-stdin)')
      .option('--password-stdin', 'read the password from standard input')
      .option('--full-name <name>', 'full name')
      .option('--admin', 'make the user an administrator', false),
  ).action(async (username: string, flags: DbFlags & { email: string; password?: string; passwordStdin?: boolean; fullName?: string; admin: boolean }) => {
    if (flags.password !== undefined && flags.passwordStdin) throw new UsageError('give either --password or --password-stdin, not both');
    if (flags.password === undefined && !flags.passwordStdin) throw new UsageError('a password is required: --password <password> or --password-stdin');
    const password = flags.password ?? (await readPassword(io, 'Password: '));
    const created = await admin(flags, (ops) => ops.createUser({ username, email: flags.email, password, fullName: flags.fullName, admin: flags.admin }));
    io.stdout.write(`created user ${created.username}\n`);
  });
  dbOptions(user.command('list').description('list users').option('--json', 'print JSON')).action(async (flags: DbFlags & { json?: boolean }) => {
    const users = await admin(flags, (ops) => ops.listUsers());
    if (flags.json) return void io.stdout.write(`${JSON.stringify(users, null, 2)}\n`);
    const rows = users.map((u) => [u.username, u.email, u.full_name, u.admin ? 'admin' : '']);
    io.stdout.write(table(aligned ? [['USERNAME', 'EMAIL', 'FULL NAME', 'ROLE'], ...rows] : rows, aligned));
  });
  dbOptions(user.command('verify-email <username>').description("confirm a user's e-mail address: commits by it are theirs from then on")).action(async (username: string, flags: DbFlags) => {
    await admin(flags, (ops) => ops.verifyEmail(username));
    io.stdout.write(`e-mail address of ${username} verified\n`);
  });
  dbOptions(user.command('passwd <username>').description("set a user's password, read from standard input")).action(async (username: string, flags: DbFlags) => {
    const password = await readPassword(io, `New password for ${username}: `);
    await admin(flags, (ops) => ops.setPassword(username, password));
    io.stdout.write(`password of ${username} changed\n`);
  });

  const key = user.command('key').description("manage a user's SSH public keys");
  dbOptions(key.command('add <username> <file>').description("add an SSH public key from a file (- for standard input), e.g. ~/.ssh/id_ed25519.pub").option('--title <title>', 'title of the key (default: its comment)')).action(
    async (username: string, file: string, flags: DbFlags & { title?: string }) => {
      const text = file === '-' ? await readStdin(io.stdin) : await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      const added = await admin(flags, (ops) => ops.addSshKey(username, text, flags.title));
      io.stdout.write(`added key ${added.fingerprint} (${added.title}) to ${username}\n`);
    },
  );
  dbOptions(key.command('list <username>').description("list a user's SSH keys").option('--json', 'print JSON')).action(async (username: string, flags: DbFlags & { json?: boolean }) => {
    const keys = await admin(flags, (ops) => ops.listSshKeys(username));
    if (flags.json) return void io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
    const rows = keys.map((k) => [String(k.id), k.title, k.fingerprint, k.created_at]);
    io.stdout.write(table(aligned ? [['ID', 'TITLE', 'FINGERPRINT', 'ADDED'], ...rows] : rows, aligned));
  });

  const token = program.command('token').description('manage API tokens');
  dbOptions(token.command('create <username>').description('mint an API token; prints only the token').option('--name <label>', 'label of the token')).action(
    async (username: string, flags: DbFlags & { name?: string }) => {
      io.stdout.write(`${await admin(flags, (ops) => ops.createToken(username, flags.name))}\n`);
    },
  );
  dbOptions(token.command('list <username>').description("list a user's API tokens").option('--json', 'print JSON')).action(
    async (username: string, flags: DbFlags & { json?: boolean }) => {
      const tokens = await admin(flags, (ops) => ops.listTokens(username));
      if (flags.json) return void io.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
      const rows = tokens.map((t) => [String(t.id), t.name, `…${t.last_eight}`, t.created_at]);
      io.stdout.write(table(aligned ? [['ID', 'NAME', 'TOKEN', 'CREATED'], ...rows] : rows, aligned));
    },
  );
  dbOptions(token.command('revoke <username> <id-or-label>').description('revoke an API token by id or label')).action(
    async (username: string, idOrLabel: string, flags: DbFlags) => {
      await admin(flags, (ops) => ops.revokeToken(username, idOrLabel));
      io.stdout.write(`revoked token ${idOrLabel} of ${username}\n`);
    },
  );

  const githubApp = program.command('app').description('manage GitHub Apps');
  dbOptions(
    githubApp
      .command('create <owner> <name>')
      .description("make a GitHub App owned by <owner>; prints its id, slug and private key (shown only now)")
      .option('--webhook-url <url>', 'where its webhook deliveries go')
      .option('--webhook-secret <secret>', 'the secret its deliveries are signed with')
      .option('--permission <name=level...>', "a repository permission, e.g. issues=write (metadata=read is implied)")
      .option('--event <name...>', 'an event its webhook receives, e.g. issues')
      .option('--private-key <file>', 'use this RSA private key (PEM) instead of making one')
      .option('--json', 'print JSON'),
  ).action(async (owner: string, name: string, flags: DbFlags & { webhookUrl?: string; webhookSecret?: string; permission?: string[]; event?: string[]; privateKey?: string; json?: boolean }) => {
    const permissions = Object.fromEntries((flags.permission ?? []).map((entry) => entry.split('=', 2) as [string, string]));
    const privateKey = flags.privateKey === undefined ? undefined : await readFile(flags.privateKey, 'utf8');
    const made = await admin(flags, (ops) => ops.createApp({ owner, name, webhookUrl: flags.webhookUrl, webhookSecret: flags.webhookSecret, permissions, events: flags.event, privateKey }));
    if (flags.json) return void io.stdout.write(`${JSON.stringify(made, null, 2)}\n`);
    io.stdout.write(`app ${made.id} (${made.slug}), acting as ${made.bot}\n${made.privateKey}`);
  });
  dbOptions(
    githubApp
      .command('install <slug> <account>')
      .description("install an app on <account>'s repositories (all, or those given with --repo)")
      .option('--repo <name...>', 'only these repositories of the account'),
  ).action(async (slug: string, account: string, flags: DbFlags & { repo?: string[] }) => {
    const { id } = await admin(flags, (ops) => ops.installApp(slug, account, flags.repo));
    io.stdout.write(`installed ${slug} on ${account} (installation ${id})\n`);
  });

  const repo = program.command('repo').description('manage repositories');
  dbOptions(
    repo
      .command('create <owner/name>')
      .description('create an empty repository')
      .option('--private', 'visible only to its owner', false)
      .option('--description <text>', 'description'),
  ).action(async (fullName: string, flags: DbFlags & { private: boolean; description?: string }) => {
    const { owner, name } = parseRepoName(fullName);
    const created = await admin(flags, (ops) => ops.createRepo({ owner, name, private: flags.private, description: flags.description }));
    io.stdout.write(`created repository ${created.full_name}\n`);
  });
  dbOptions(
    repo
      .command('seed <owner/name>')
      .description('create the repository if missing and fill it: from a folder (one commit), a git URL or path (all branches and tags), or a README')
      .option('--from <dir|git-url>', 'folder or git repository to fill it from')
      .option('--private', 'visible only to its owner (when created)', false)
      .option('--description <text>', 'description (when created)'),
  ).action(async (fullName: string, flags: DbFlags & { from?: string; private: boolean; description?: string }) => {
    const { owner, name } = parseRepoName(fullName);
    // A folder is resolved here: a running server has its own working directory.
    const from = flags.from === undefined || /^[a-z][a-z0-9+.-]*:\/\/|^[^/\s]+@[^/\s]+:/i.test(flags.from) ? flags.from : resolve(flags.from);
    const result = await admin(flags, (ops) => ops.seedRepo({ owner, name, from, private: flags.private, description: flags.description }));
    const refs = result.refsUpdated.length ? result.refsUpdated.join(', ') : 'nothing new';
    io.stdout.write(`${result.created ? 'created and seeded' : 'seeded'} ${result.repository.full_name}: ${refs}\n`);
  });

  return program;
}

/** Runs the command line; resolves with the process exit code (0 success, 1 failure, 2 usage). */
export async function run(argv: readonly string[] = process.argv, io: CliIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (value) => {
    code = value;
  });
  const colour = useColour(io.stderr, io.env);
  try {
    await program.parseAsync(argv as string[]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // commander already printed it
    io.stderr.write(`${paint(colour, 31, 'error:')} ${errorLine(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
