import { writeToRepository } from './repository-write.js';
import type { Db } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { countToggles, flipToggle, isToggled, type ToggleTable } from '../store/queries/toggles.js';
import type { UserRow } from '../store/queries/users.js';
import type { EventRecorder } from '../events/index.js';
import { githubTime } from '../github/time.js';

/** Stars and watches: per-user toggles on a repository. */
export class SocialService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  /** Flips the star and returns whether the repository is now starred. */
  async toggleStar(user: UserRow, repo: RepositoryRow): Promise<boolean> {
    return await this.toggle('stars', user, repo);
  }

  /** Flips the watch and returns whether the repository is now watched. */
  async toggleWatch(user: UserRow, repo: RepositoryRow): Promise<boolean> {
    return await this.toggle('watches', user, repo);
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

  /** Flips the toggle with its event: `star` created/deleted, `watch` started (GitHub has no event for unwatching). */
  private async toggle(table: ToggleTable, user: UserRow, repo: RepositoryRow): Promise<boolean> {
    const now = this.now();
    return await writeToRepository(this.store, repo, async (tx) => {
      const on = await flipToggle(tx, table, user.id, repo.id, now);
      if (table === 'stars') await this.events.record(tx, repo, user, 'star', { action: on ? 'created' : 'deleted', starred_at: on ? githubTime(now) : null });
      else if (on) await this.events.record(tx, repo, user, 'watch', { action: 'started' });
      return on;
    });
  }
}
