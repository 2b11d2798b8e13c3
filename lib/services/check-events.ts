import type { EventRecorder } from '../events/recorder.js';
import type { CheckRunEvent, CheckSuiteEvent } from '../events/types.js';
import type { CommitObject } from '../git/objects.js';
import type { PushedCommit } from '../git/push-commits.js';
import type { AppShapes } from '../github/app-shapes.js';
import type { CheckShapes, GitHubCheckRun, GitHubHeadCommit } from '../github/check-shapes.js';
import type { ReadTx, WriteTx } from '../store/interface.js';
import { appById, installationById, installationOfRepository } from '../store/queries/apps.js';
import { latestRunsOfSuites, openPullsAt, suiteById, suiteOf, type CheckRunRow, type CheckSuite, type CheckSuiteRow } from '../store/queries/checks.js';
import type { HookRow } from '../store/queries/webhooks.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';

/** A suite with the state its runs give it. */

/** A suite concludes with the worst conclusion of its runs, in this order. */
const WORST_FIRST = ['action_required', 'cancelled', 'timed_out', 'failure', 'stale', 'neutral', 'skipped', 'success'];

/** The state each suite's newest runs give it (one query for all of them). */
export async function withStates(db: ReadTx, suites: readonly CheckSuiteRow[]): Promise<CheckSuite[]> {
  const runs = await latestRunsOfSuites(db, suites.map((suite) => suite.id));
  return suites.map((suite) => {
    const latest = runs.get(suite.id) ?? [];
    // Asked for again: queued, its conclusion cleared, until a run changes (GitHub's rerequest).
    if (suite.requeued) return { ...suite, status: 'queued', conclusion: null, runs: latest.length };
    const completed = latest.length > 0 && latest.every((run) => run.status === 'completed');
    const status = completed ? 'completed' : latest.some((run) => run.status === 'in_progress') ? 'in_progress' : 'queued';
    const conclusion = completed ? (WORST_FIRST.find((candidate) => latest.some((run) => run.conclusion === candidate)) ?? null) : null;
    return { ...suite, status, conclusion, runs: latest.length };
  });
}

/** A commit as `check_suite` payloads name their head, from git (read before the write) or from a push's commits. */
export function headCommitOf(commit: CommitObject | PushedCommit): GitHubHeadCommit {
  const person = (who: { name: string; email: string }) => ({ name: who.name, email: who.email });
  const id = 'sha' in commit ? commit.sha : commit.id;
  const timestamp = 'sha' in commit ? commit.author.date : commit.author.iso;
  return { id, tree_id: commit.tree, message: commit.message, timestamp, author: person(commit.author), committer: person(commit.committer) };
}

/**
 * The webhook events of the Checks API, recorded in the writes that cause them: `check_run` (created and completed to
 * every subscriber; rerequested to the run's app only) and `check_suite` (requested by a push and rerequested to the
 * suite's app only; completed to the repository's own hooks and the suite's app), as GitHub sends them.
 */
export class CheckEvents {
  constructor(
    private readonly events: EventRecorder,
    private readonly shapes: CheckShapes,
    private readonly apps: AppShapes,
    private readonly now: () => string,
  ) {}

  /** GitHub's check run objects, with the app that made each (if an app's bot did) and the open pull requests at its commit. */
  async shapeRuns(db: ReadTx, repo: RepositoryRow, runs: readonly CheckRunRow[]): Promise<GitHubCheckRun[]> {
    const pulls = await openPullsAt(db, repo.id, runs.map((run) => run.head_sha));
    const apps = await this.apps.appsOfCreators(db, runs.map((run) => run.creator_id));
    return runs.map((run) => this.shapes.run(repo, run, pulls, apps.get(run.creator_id) ?? null));
  }

  /** `check_run` events of a run; `rerequested` goes to the app that made it, and nowhere for a run no app made. */
  async run(tx: WriteTx, repo: RepositoryRow, sender: UserRow | undefined, run: CheckRunRow, actions: ReadonlyArray<CheckRunEvent['action']>): Promise<void> {
    for (const action of actions) {
      let to: (hook: HookRow) => boolean;
      if (action === 'rerequested') {
        const [shaped] = await this.shapeRuns(tx, repo, [run]);
        if (!shaped?.app) continue;
        to = await this.hooksOfApp(tx, repo, shaped.app.id, false);
      } else {
        // Apps hear of check runs only with the Checks permission (GitHub's rule to subscribe).
        const allowed = await this.installationsWithChecks(tx, repo, 'check_run', 'read');
        to = (hook) => hook.installation_id === null || allowed.has(hook.installation_id);
      }
      await this.events.record(
        tx,
        repo,
        sender,
        'check_run',
        async (current) => {
          const shaped = (await this.shapeRuns(tx, current, [run]))[0]!;
          // Webhooks carry the run's suite whole (the API names only its id), as it stands after this write.
          const suite = (await withStates(tx, [(await suiteById(tx, repo.id, run.suite_id))!]))[0]!;
          const pulls = await openPullsAt(tx, repo.id, [run.head_sha]);
          return { action, check_run: { ...shaped, check_suite: this.shapes.simpleSuite(current, suite, pulls, shaped.app) } };
        },
        to,
      );
    }
  }

  /**
   * A `check_suite` event of an app's suite (suites of runs made with personal tokens have none, as on GitHub where
   * every suite is an app's). `completed` only once all its newest runs are.
   */
  async suite(tx: WriteTx, repo: RepositoryRow, sender: UserRow | undefined, suiteId: number, action: CheckSuiteEvent['action'], headCommit: GitHubHeadCommit, moved?: { before: string; after: string }): Promise<void> {
    const suite = (await withStates(tx, [(await suiteById(tx, repo.id, suiteId))!]))[0]!;
    if (suite.app_id === 0 || (action === 'completed' && suite.status !== 'completed')) return;
    const to = await this.hooksOfApp(tx, repo, suite.app_id, action === 'completed');
    await this.events.record(
      tx,
      repo,
      sender,
      'check_suite',
      async (current) => {
        const app = (await this.apps.appsByIds(tx, [suite.app_id])).get(suite.app_id) ?? null;
        const pulls = await openPullsAt(tx, repo.id, [suite.head_sha]);
        return { action, check_suite: this.shapes.webhookSuite(current, suite, pulls, app, headCommit, moved) };
      },
      to,
    );
  }

  /**
   * A push moved branch heads: each installed app with the Checks permission whose webhook hears `check_suite` gets a
   * suite for each new head commit, and a `requested` event for it (GitHub's automatic suites).
   */
  async requestSuites(tx: WriteTx, repo: RepositoryRow, sender: UserRow, heads: ReadonlyArray<{ branch: string; before: string; commit: PushedCommit }>): Promise<void> {
    for (const appId of (await this.installationsWithChecks(tx, repo, 'check_suite', 'write')).values()) {
      for (const head of heads) {
        const suite = await suiteOf(tx, repo.id, head.commit.sha, head.branch, appId, this.now());
        if (suite.created) await this.suite(tx, repo, sender, suite.id, 'requested', headCommitOf(head.commit), { before: head.before, after: head.commit.sha });
      }
    }
  }

  /**
   * The installations (id → app id) whose app's hook on the repository hears `event` and whose app has the Checks
   * permission at `level` at least: automatic suites are for apps that may write checks (GitHub's rule).
   */
  async installationsWithChecks(db: ReadTx, repo: RepositoryRow, event: 'check_run' | 'check_suite', level: 'read' | 'write'): Promise<Map<number, number>> {
    const found = new Map<number, number>();
    for (const installationId of new Set(await this.events.installationsHearing(db, repo.id, event))) {
      const installation = await installationById(db, installationId);
      const app = installation && (await appById(db, installation.app_id));
      const checks = app && (JSON.parse(app.permissions) as Record<string, string>).checks;
      if (checks === 'write' || (checks === 'read' && level === 'read')) found.set(installationId, app!.id);
    }
    return found;
  }

  /** Which hooks hear an app's event: its own installation's hook on the repository (and the repository's own hooks too). */
  private async hooksOfApp(tx: ReadTx, repo: RepositoryRow, appId: number, withRepositoryHooks: boolean): Promise<(hook: HookRow) => boolean> {
    const installation = await installationOfRepository(tx, appId, repo);
    return (hook) => (hook.installation_id === null ? withRepositoryHooks : hook.installation_id === installation?.id);
  }
}
