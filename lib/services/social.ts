import { writeToRepository } from './repository-write.js';
import type { Db } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { repositoriesWithIds, type RepositoryRow } from '../store/queries/repositories.js';
import { countToggles, isToggled, setToggle, toggledAt, toggledBy, togglersOf, type ToggleTable } from '../store/queries/toggles.js';
import { usersByNames, type UserRow } from '../store/queries/users.js';
import type { EventRecorder } from '../events/index.js';
import { githubTime } from '../github/time.js';

/** How a list of starred (or watched) repositories is ordered: by when starred (GitHub's default) or by the repository's last change. */
export interface StarredOrder {
  sort: 'created' | 'updated';
  direction: 'asc' | 'desc';
}

/** Stars and watches: per-user toggles on a repository. */
export class SocialService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  /** Flips the star and returns whether the repository is now starred. */
  async toggleStar(user: UserRow, repo: RepositoryRow): Promise<boolean> {
    return await this.change('stars', user, repo, 'flip');
  }

  /** Flips the watch and returns whether the repository is now watched. */
  async toggleWatch(user: UserRow, repo: RepositoryRow): Promise<boolean> {
    return await this.change('watches', user, repo, 'flip');
  }

  /** Stars the repository or takes the star back (nothing changes, and nothing is told, when it is so already). */
  async setStar(user: UserRow, repo: RepositoryRow, on: boolean): Promise<void> {
    await this.change('stars', user, repo, on);
  }

  async stars(repo: RepositoryRow): Promise<number> {
    return await countToggles(this.store, 'stars', repo.id);
  }

  async watchers(repo: RepositoryRow): Promise<number> {
    return await countToggles(this.store, 'watches', repo.id);
  }

  /** Whether the user has starred and is watching the repository (false, false for anonymous viewers). */
  async stateOf(user: UserRow | undefined, repo: RepositoryRow): Promise<{ starred: boolean; watching: boolean }> {
    if (!user) return { starred: false, watching: false };
    return { starred: await isToggled(this.store, 'stars', user.id, repo.id), watching: await isToggled(this.store, 'watches', user.id, repo.id) };
  }

  /** Watches the repository or stops watching it (nothing changes, and nothing is told, when it is so already). */
  async setWatch(user: UserRow, repo: RepositoryRow, on: boolean): Promise<void> {
    await this.change('watches', user, repo, on);
  }

  /** When the user started watching the repository; undefined when not watching. */
  async watchingSince(user: UserRow, repo: RepositoryRow): Promise<string | undefined> {
    return await toggledAt(this.store, 'watches', user.id, repo.id);
  }

  /** Who starred (`stars`) or watches (`watches`) the repository, first first, with when: a fixed three statements. */
  async accountsOf(table: ToggleTable, repo: RepositoryRow, page: PageWindow): Promise<{ items: Array<{ user: UserRow; since: string }>; total: number }> {
    return await this.store.read(async (tx) => {
      const rows = await togglersOf(tx, table, repo.id, page);
      const users = await usersByNames(tx, rows.map((row) => row.username));
      return { items: rows.flatMap((row) => { const user = users.get(row.username.toLowerCase()); return user ? [{ user, since: row.toggled_at }] : []; }), total: await countToggles(tx, table, repo.id) };
    });
  }

  /** The repositories `user` starred or watches that `viewer` may see, with since when. */
  async repositoriesOf(table: ToggleTable, user: UserRow, viewer: UserRow | undefined, order: StarredOrder, page: PageWindow): Promise<{ items: Array<{ repo: RepositoryRow; since: string }>; total: number }> {
    return await this.store.read(async (tx) => {
      const { rows, total } = await toggledBy(tx, table, user.id, viewer?.id, order, page);
      const repos = new Map((await repositoriesWithIds(tx, rows.map((row) => row.repo_id))).map((repo) => [repo.id, repo]));
      return { items: rows.flatMap((row) => { const repo = repos.get(row.repo_id); return repo ? [{ repo, since: row.toggled_at }] : []; }), total };
    });
  }

  /**
   * Sets the toggle (or flips it) with its event when it changes: `star` created/deleted, `watch` started (GitHub has
   * no event for unwatching). Whether it is on after.
   */
  private async change(table: ToggleTable, user: UserRow, repo: RepositoryRow, wanted: boolean | 'flip'): Promise<boolean> {
    const now = this.now();
    return await writeToRepository(this.store, repo, async (tx) => {
      const was = await isToggled(tx, table, user.id, repo.id);
      const on = wanted === 'flip' ? !was : wanted;
      if (on === was) return on;
      await setToggle(tx, table, user.id, repo.id, on, now);
      if (table === 'stars') await this.events.record(tx, repo, user, 'star', { action: on ? 'created' : 'deleted', starred_at: on ? githubTime(now) : null });
      else if (on) await this.events.record(tx, repo, user, 'watch', { action: 'started' });
      return on;
    });
  }
}
