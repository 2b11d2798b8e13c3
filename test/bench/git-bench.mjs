// Git benchmark: repohost's smart HTTP and file listing against plain git, and repohost's git over SSH against
// OpenSSH's sshd, on the same machine, same run. Run with `npm run bench:git` (builds first). Options: BENCH_COMMITS
// (default 20000), BENCH_RUNS (default 5), BENCH_SSH=0 to leave SSH out, BENCH_SSHD (default /usr/sbin/sshd),
// BENCH_SSH_OPTIONS (more ssh client options, for both sides).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createRepoHost } from '../../dist/index.js';
import { makeKeyPair, openSshMissing, openSshVersion, sshCommand, startOpenSshServer } from './openssh-server.mjs';
import { buildSyntheticRepository, env, FILES, git, median, ms, timed } from './synthetic-repo.mjs';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SSH = process.env.BENCH_SSH !== '0';
async function waitFor(path, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (!existsSync(path) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return existsSync(path);
}

async function main() {
  const temp = await mkdtemp(join(tmpdir(), 'repohost-bench-'));
  const source = join(temp, 'source.git');
  const hosts = [];
  let sshd;
  try {
    console.log(`building a synthetic repository: ${COMMITS} commits, ${FILES} files in nested folders ...`);
    const built = await timed(() => buildSyntheticRepository(source, COMMITS));
    const count = (await new Promise((resolve) => {
      const child = spawn('git', ['--git-dir', source, 'rev-list', '--count', 'main'], { env });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('close', () => resolve(out.trim()));
    }));
    console.log(`  built in ${ms(built)}; main has ${count} commits`);

    const host = await createRepoHost({ port: 0, ...(SSH ? { sshPort: 0 } : {}), dbPath: ':memory:', bcryptCost: 4, allowLocalImport: true });
    hosts.push(host);
    await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
    const token = await host.admin.createToken('bench');
    const authed = (name) => {
      const url = new URL(`${host.url}/bench/${name}.git`);
      url.username = 'bench';
      url.password = token;
      return url.toString();
    };

    // Push: the same history to a fresh local bare repository vs a fresh repohost repository.
    const pushLocal = [];
    const pushHost = [];
    for (let run = 0; run < RUNS; run++) {
      const local = join(temp, `push-${run}.git`);
      await git(['init', '-q', '--bare', local]);
      await host.admin.createRepo({ owner: 'bench', name: `push-${run}` });
      const pushes = [
        async () => pushLocal.push(await timed(() => git(['--git-dir', source, 'push', '-q', local, 'main']))),
        async () => pushHost.push(await timed(() => git(['--git-dir', source, 'push', '-q', authed(`push-${run}`), 'main']))),
      ];
      // Alternate which goes first, and let the host's background commit-graph job finish before the next
      // measurement so neither side pays for it.
      for (const push of run % 2 ? pushes.reverse() : pushes) await push();
      await waitFor(join(host.options.dataDir, 'repositories', 'bench', `push-${run}.git`, 'objects', 'info', 'commit-graph'), 120_000);
    }

    // Clone: the same bare repository with --no-local vs through repohost (both --bare: transport, not checkout).
    const repoDir = join(host.options.dataDir, 'repositories', 'bench', 'push-0.git');
    await waitFor(join(repoDir, 'objects', 'info', 'commit-graph'), 120_000);
    const cloneLocal = [];
    const cloneHost = [];
    for (let run = 0; run < RUNS; run++) {
      const a = join(temp, `clone-local-${run}.git`);
      const b = join(temp, `clone-host-${run}.git`);
      const clones = [
        async () => cloneLocal.push(await timed(() => git(['clone', '-q', '--bare', '--no-local', repoDir, a]))),
        async () => cloneHost.push(await timed(() => git(['clone', '-q', '--bare', `${host.url}/bench/push-0.git`, b]))),
      ];
      for (const clone of run % 2 ? clones.reverse() : clones) await clone();
      await rm(a, { recursive: true, force: true });
      await rm(b, { recursive: true, force: true });
    }

    // Listing vs one `git log --name-only` walk of the branch.
    const walks = [];
    for (let run = 0; run < RUNS; run++) walks.push(await timed(() => git(['--git-dir', repoDir, 'log', '--name-only', '--format=%H %s', 'main'])));
    const repo = await (await fetch(`${host.url}/api/v1/repos/bench/push-0`)).json();
    const list = async (branch, path) => {
      const query = new URLSearchParams({ branch, ...(path ? { path } : {}) });
      const response = await fetch(`${host.url}/api/v1/repos/${repo.id}/tree/files?${query}`);
      const body = await response.json();
      if (!body.success) throw new Error(`listing failed: ${JSON.stringify(body)}`);
      return body.result;
    };
    // Cold listings: each branch points to a different commit, so nothing is cached yet.
    const coldTop = [];
    const coldSub = [];
    for (let run = 0; run < RUNS; run++) {
      const branch = `cold-${run}`;
      // Through the host, as every ref change is (it caches refs until it changes them itself).
      await git(['--git-dir', source, 'push', '-q', authed('push-0'), `main~${run * 7}:refs/heads/${branch}`]);
      coldTop.push(await timed(() => list(branch, '')));
      coldSub.push(await timed(() => list(branch, 'src/m07/s3')));
    }
    const entries = await list('main', '');
    const warm = [];
    for (let run = 0; run < 20; run++) warm.push(await timed(() => list('main', '')));
    const warmSub = [];
    await list('main', 'src/m07/s3');
    for (let run = 0; run < 20; run++) warmSub.push(await timed(() => list('main', 'src/m07/s3')));

    // Counts (spec endpoints 14 and 15), warm: refs and counts are cached until a ref changes.
    const counted = async (path) => {
      const response = await fetch(`${host.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.json();
      if (!body.success) throw new Error(`count failed: ${JSON.stringify(body)}`);
    };
    await counted('/api/v1/bench/push-0/branches/count');
    await counted('/api/v1/bench/push-0/main/commits/count');
    const warmBranches = [];
    for (let run = 0; run < 50; run++) warmBranches.push(await timed(() => counted('/api/v1/bench/push-0/branches/count')));
    const warmCommits = [];
    for (let run = 0; run < 50; run++) warmCommits.push(await timed(() => counted('/api/v1/bench/push-0/main/commits/count')));
    const warmList = [];
    for (let run = 0; run < 50; run++) warmList.push(await timed(() => list('main', '')));

    // Git over SSH: repohost's server against OpenSSH's sshd running git in the same repository, for the same client
    // (the same ssh command and key). Clone: push-0 as above, which sshd serves from the host's own folder. Push: one
    // commit from an existing clone to a repository of the whole history on either side.
    let sshSkipped = SSH ? openSshMissing() : 'BENCH_SSH=0';
    const ssh = { cloneSshd: [], cloneHost: [], pushSshd: [], pushHost: [] };
    const key = sshSkipped ? undefined : await makeKeyPair(join(temp, 'client_ed25519'));
    if (key) sshd = await startOpenSshServer(join(temp, 'sshd'), `${key}.pub`).catch((error) => void (sshSkipped = error.message));
    if (sshd) {
      const dir = join(temp, 'ssh');
      await host.admin.addSshKey('bench', await readFile(`${key}.pub`, 'utf8'));
      const viaSshd = (path) => `ssh://${userInfo().username}@127.0.0.1:${sshd.port}${path}`;
      const viaHost = (name) => `ssh://git@127.0.0.1:${host.sshPort}/bench/${name}.git`;
      const overSsh = { env: { GIT_SSH_COMMAND: sshCommand(key) } };

      for (let run = 0; run < RUNS; run++) {
        const a = join(dir, `clone-sshd-${run}.git`);
        const b = join(dir, `clone-host-${run}.git`);
        const clones = [
          async () => ssh.cloneSshd.push(await timed(() => git(['clone', '-q', '--bare', viaSshd(repoDir), a], overSsh))),
          async () => ssh.cloneHost.push(await timed(() => git(['clone', '-q', '--bare', viaHost('push-0'), b], overSsh))),
        ];
        for (const clone of run % 2 ? clones.reverse() : clones) await clone();
        await rm(a, { recursive: true, force: true });
        await rm(b, { recursive: true, force: true });
      }

      const work = join(dir, 'work');
      await git(['clone', '-q', source, work]);
      const sshdRepo = join(dir, 'ssh-push.git');
      await git(['init', '-q', '--bare', sshdRepo]);
      await host.admin.createRepo({ owner: 'bench', name: 'ssh-push' });
      const remotes = { sshd: viaSshd(sshdRepo), host: viaHost('ssh-push') };
      for (const remote of Object.values(remotes)) await git(['-C', work, 'push', '-q', remote, 'main'], overSsh);
      // The same upkeep on both: the host writes a commit-graph after a push.
      await git(['--git-dir', sshdRepo, 'commit-graph', 'write', '--reachable', '--changed-paths', '--no-progress']);
      await host.idle();
      for (let run = 0; run < RUNS; run++) {
        await writeFile(join(work, 'README.md'), `# bench\nssh push ${run}\n`);
        await git(['-C', work, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-a', '-m', `ssh push ${run}`]);
        const pushes = [
          async () => ssh.pushSshd.push(await timed(() => git(['-C', work, 'push', '-q', remotes.sshd, 'main'], overSsh))),
          async () => ssh.pushHost.push(await timed(() => git(['-C', work, 'push', '-q', remotes.host, 'main'], overSsh))),
        ];
        for (const push of run % 2 ? pushes.reverse() : pushes) await push();
        await host.idle();
      }
    }

    const min = (values) => Math.min(...values);
    const row = (label, values, bases, target) => {
      const value = median(values);
      const ratio = bases ? ` = ${(value / median(bases)).toFixed(2)}x` : '';
      const best = bases ? `  [best of ${values.length}: ${(min(values) / min(bases)).toFixed(2)}x]` : `  [best ${ms(min(values))}]`;
      console.log(`  ${label.padEnd(46)} ${ms(value).padStart(11)}${ratio}${target ? `   (target ${target})` : ''}${best}`);
    };
    console.log(`\nresults (median of ${RUNS} runs; git ${(await new Promise((r) => { const c = spawn('git', ['--version'], { env }); let o = ''; c.stdout.on('data', (d) => (o += d)); c.on('close', () => r(o.trim())); }))}, node ${process.version})`);
    row('push: git push to a local bare repository', pushLocal);
    row('push: git push through repohost', pushHost, pushLocal, '<= 1.1x');
    row('clone: git clone --bare --no-local', cloneLocal);
    row('clone: git clone --bare through repohost', cloneHost, cloneLocal, '<= 1.1x');
    row('walk: git log --name-only main', walks);
    row(`listing cold, top level (${entries.length} entries)`, coldTop, walks, '<= 2x');
    row('listing cold, src/m07/s3 (10 entries)', coldSub, walks);
    row('listing warm, top level (HTTP round trip)', warm, undefined, '<= 50 ms');
    row('listing warm, src/m07/s3 (HTTP round trip)', warmSub, undefined, '<= 50 ms');
    row('listing warm, top level (50 runs)', warmList, undefined, '<= 3 ms');
    row('branch count warm (HTTP round trip, 50 runs)', warmBranches, undefined, '<= 3 ms');
    row('commit count warm (HTTP round trip, 50 runs)', warmCommits, undefined, '<= 3 ms');
    if (sshSkipped) console.log(`  git over SSH: skipped (${sshSkipped})`);
    else {
      const options = process.env.BENCH_SSH_OPTIONS ? `, ${process.env.BENCH_SSH_OPTIONS}` : '';
      console.log(`  git over SSH (${(await openSshVersion()).split(',')[0]} sshd; the same ssh client, key and options on both sides${options}):`);
      row('ssh clone: git clone --bare through sshd', ssh.cloneSshd);
      row('ssh clone: git clone --bare through repohost', ssh.cloneHost, ssh.cloneSshd, '<= 1.2x');
      row('ssh push: one commit through sshd', ssh.pushSshd);
      row('ssh push: one commit through repohost', ssh.pushHost, ssh.pushSshd, '<= 1.2x');
    }
  } finally {
    await sshd?.stop();
    for (const host of hosts) await host.close();
    if (process.env.BENCH_KEEP) console.log(`kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

await main();
