import type { Db } from './interface.js';

/**
 * Triggers that keep `list_counts` (per repository, kind and status) in step with `table`, then the counts of the
 * rows already there. Triggers fire on log replay too, so the counts replay with the rows. Version 9 drops them: the
 * write functions keep the counts since (queries/list-counts.ts).
 */
function countTriggers(table: string, kind: string): string[] {
  const add = `INSERT INTO list_counts (repo_id, kind, status, n) VALUES (NEW.repo_id, '${kind}', NEW.status, 1)
        ON CONFLICT (repo_id, kind, status) DO UPDATE SET n = n + 1;`;
  const remove = `UPDATE list_counts SET n = n - 1 WHERE repo_id = OLD.repo_id AND kind = '${kind}' AND status = OLD.status;`;
  return [
    `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN
        ${add}
      END`,
    `CREATE TRIGGER ${table}_count_status AFTER UPDATE OF status ON ${table} WHEN OLD.status != NEW.status BEGIN
        ${remove}
        ${add}
      END`,
    `CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN
        ${remove}
      END`,
    `INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, '${kind}', status, COUNT(*) FROM ${table} GROUP BY repo_id, status`,
  ];
}

/**
 * Numbered schema migrations. Each runs once, in order, in its own logged transaction; never edit a
 * released migration, add a new one. SQL stays in the subset shared by SQLite and PostgreSQL where that is free.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; statements: readonly string[] }> = [
  {
    version: 1,
    statements: [
      `CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL,
        username_lower TEXT NOT NULL UNIQUE,
        email TEXT NOT NULL,
        full_name TEXT NOT NULL DEFAULT '',
        password_hash TEXT NOT NULL,
        is_admin INTEGER NOT NULL DEFAULT 0,
        avatar_file TEXT,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      )`,
      `CREATE TABLE api_tokens (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        last_eight TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (user_id, name)
      )`,
      `CREATE TABLE repositories (
        id INTEGER PRIMARY KEY,
        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_lower TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        is_private INTEGER NOT NULL DEFAULT 0,
        default_branch TEXT NOT NULL DEFAULT 'main',
        next_number INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (owner_id, name_lower)
      )`,
      `CREATE TABLE branches (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        commit_sha TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (repo_id, name)
      )`,
      `CREATE TABLE issues (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        author_id INTEGER NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'open',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, number)
      )`,
      `CREATE TABLE pull_requests (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        author_id INTEGER NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'open',
        head_branch TEXT NOT NULL,
        base_branch TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, number)
      )`,
      `CREATE TABLE pull_comments (
        id INTEGER PRIMARY KEY,
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        author_id INTEGER NOT NULL REFERENCES users(id),
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE stars (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, repo_id)
      )`,
      `CREATE TABLE watches (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, repo_id)
      )`,
      `CREATE TABLE ci_runs (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        run_id TEXT NOT NULL,
        commit_hash TEXT NOT NULL,
        branch TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, run_id)
      )`,
      `CREATE TABLE ci_run_events (
        id INTEGER PRIMARY KEY,
        ci_run_id INTEGER NOT NULL REFERENCES ci_runs(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        commit_hash TEXT NOT NULL,
        branch TEXT NOT NULL,
        received_at TEXT NOT NULL
      )`,
      'CREATE INDEX issues_by_repo ON issues (repo_id, number)',
      'CREATE INDEX pulls_by_repo ON pull_requests (repo_id, number)',
      'CREATE INDEX comments_by_pull ON pull_comments (pull_id, id)',
      'CREATE INDEX repositories_by_owner ON repositories (owner_id, name_lower)',
      'CREATE INDEX sessions_by_user ON sessions (user_id)',
      'CREATE INDEX tokens_by_user ON api_tokens (user_id)',
    ],
  },
  {
    // Collaboration: collaborators, issue state and comments, labels; pull request comments become editable.
    version: 2,
    statements: [
      `CREATE TABLE collaborators (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        permission TEXT NOT NULL CHECK (permission IN ('read', 'write', 'admin')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (repo_id, user_id)
      )`,
      'CREATE INDEX collaborators_by_user ON collaborators (user_id, repo_id)',
      'ALTER TABLE issues ADD COLUMN closed_at TEXT',
      'ALTER TABLE issues ADD COLUMN closed_by INTEGER REFERENCES users(id)',
      'ALTER TABLE issues ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0',
      `CREATE TABLE issue_comments (
        id INTEGER PRIMARY KEY,
        issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        author_id INTEGER NOT NULL REFERENCES users(id),
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX issue_comments_by_issue ON issue_comments (issue_id, id)',
      `CREATE TABLE labels (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_lower TEXT NOT NULL,
        color TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        UNIQUE (repo_id, name_lower)
      )`,
      `CREATE TABLE issue_labels (
        issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        PRIMARY KEY (issue_id, label_id)
      )`,
      'CREATE INDEX issue_labels_by_label ON issue_labels (label_id, issue_id)',
      "ALTER TABLE pull_comments ADD COLUMN updated_at TEXT NOT NULL DEFAULT ''",
      'UPDATE pull_comments SET updated_at = created_at',
      // Pull requests remember the commits they joined (frozen once merged or closed) and how they were merged.
      "ALTER TABLE pull_requests ADD COLUMN head_sha TEXT NOT NULL DEFAULT ''",
      "ALTER TABLE pull_requests ADD COLUMN base_sha TEXT NOT NULL DEFAULT ''",
      'ALTER TABLE pull_requests ADD COLUMN merged_by INTEGER REFERENCES users(id)',
      'ALTER TABLE pull_requests ADD COLUMN merged_at TEXT',
      'ALTER TABLE pull_requests ADD COLUMN merge_commit_sha TEXT',
      'ALTER TABLE pull_requests ADD COLUMN closed_at TEXT',
      'ALTER TABLE pull_requests ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0',
      'UPDATE pull_requests SET comment_count = (SELECT COUNT(*) FROM pull_comments c WHERE c.pull_id = pull_requests.id)',
      `UPDATE pull_requests SET head_sha = COALESCE((SELECT commit_sha FROM branches b WHERE b.repo_id = pull_requests.repo_id AND b.name = pull_requests.head_branch), ''),
        base_sha = COALESCE((SELECT commit_sha FROM branches b WHERE b.repo_id = pull_requests.repo_id AND b.name = pull_requests.base_branch), '')`,
      "CREATE INDEX pulls_by_branch ON pull_requests (repo_id, status, head_branch, base_branch)",
    ],
  },
  {
    // Commit statuses reported by CI systems (and by the spec's CI callback).
    version: 3,
    statements: [
      `CREATE TABLE commit_statuses (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'success', 'error', 'failure')),
        context TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        target_url TEXT,
        creator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX commit_statuses_by_sha ON commit_statuses (repo_id, sha, context, id)',
      'CREATE INDEX commit_statuses_newest ON commit_statuses (repo_id, sha, id)',
    ],
  },
  {
    // Lists that page in O(limit): indexes in each list's order, and per-status counts of issues and pull requests
    // kept by triggers (they fire on log replay too), so X-Total-Count costs no scan.
    version: 4,
    statements: [
      'CREATE INDEX issues_by_status ON issues (repo_id, status, number)',
      'CREATE INDEX issues_by_update ON issues (repo_id, updated_at, id)',
      'CREATE INDEX issues_by_status_update ON issues (repo_id, status, updated_at, id)',
      'CREATE INDEX pulls_by_status ON pull_requests (repo_id, status, number)',
      'CREATE INDEX ci_runs_by_repo ON ci_runs (repo_id, id)',
      'CREATE INDEX ci_run_events_by_run ON ci_run_events (ci_run_id, id)',
      `CREATE TABLE list_counts (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (repo_id, kind, status)
      )`,
      ...countTriggers('issues', 'issue'),
      ...countTriggers('pull_requests', 'pull'),
    ],
  },
  {
    // Protected branches: rules per branch name or glob.
    version: 5,
    statements: [
      `CREATE TABLE branch_protections (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        pattern TEXT NOT NULL,
        allow_force_push INTEGER NOT NULL DEFAULT 0,
        allow_deletion INTEGER NOT NULL DEFAULT 0,
        require_pull_request INTEGER NOT NULL DEFAULT 0,
        required_status_contexts TEXT NOT NULL DEFAULT '[]',
        push_allowlist TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, pattern)
      )`,
    ],
  },
  {
    // Webhooks and their deliveries: a delivery row is the outbox entry, written in the same transaction as the change
    // that caused it, and keeps the history of its attempts.
    version: 6,
    statements: [
      `CREATE TABLE webhooks (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        content_type TEXT NOT NULL,
        secret TEXT NOT NULL DEFAULT '',
        events TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX webhooks_by_repo ON webhooks (repo_id, id)',
      `CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY,
        hook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        guid TEXT NOT NULL,
        event TEXT NOT NULL,
        action TEXT,
        redelivery INTEGER NOT NULL DEFAULT 0,
        payload TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        status_code INTEGER,
        duration_ms INTEGER,
        request_headers TEXT,
        response_headers TEXT,
        response_body TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        delivered_at TEXT
      )`,
      'CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (hook_id, id)',
      'CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (state, hook_id, id)',
    ],
  },
  {
    // Why an issue was closed or reopened (GitHub's state_reason: completed, not_planned, reopened); null before.
    version: 7,
    statements: ['ALTER TABLE issues ADD COLUMN state_reason TEXT'],
  },
  {
    // Exact git state: refs other than branches (tags, ...) are recorded too, so the database can be compared with
    // `git for-each-ref`; an intent is written before git moves refs and cleared in the write that records them, so
    // after a crash only repositories with an intent left are compared (see services/ref-journal.ts). Repositories
    // made before this version have their other refs read once at the next start (ref_backfills).
    version: 8,
    statements: [
      `CREATE TABLE other_refs (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        sha TEXT NOT NULL,
        PRIMARY KEY (repo_id, ref)
      )`,
      `CREATE TABLE ref_intents (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX ref_intents_by_repo ON ref_intents (repo_id)',
      `CREATE TABLE ref_backfills (
        repo_id INTEGER PRIMARY KEY REFERENCES repositories(id) ON DELETE CASCADE
      )`,
      'INSERT INTO ref_backfills (repo_id) SELECT id FROM repositories',
    ],
  },
  {
    // Portable SQL (issue 18), so a PostgreSQL engine can run the same statements:
    // - the per-status counts of issues and pull requests are kept by the write functions (queries/list-counts.ts) in
    //   the same transaction, no longer by the triggers of version 4 (SQLite's trigger syntax is not PostgreSQL's);
    //   the counts are taken again from the rows;
    // - issue and pull request comments take their shared ids from a row of `id_sequences` (UPDATE … RETURNING), not
    //   from MAX(id) + 1 inside the INSERT, which two concurrent PostgreSQL transactions would both compute alike; it
    //   starts where MAX(id) + 1 was (see queries/id-sequences.ts).
    version: 9,
    statements: [
      'DROP TRIGGER IF EXISTS issues_count_insert',
      'DROP TRIGGER IF EXISTS issues_count_status',
      'DROP TRIGGER IF EXISTS issues_count_delete',
      'DROP TRIGGER IF EXISTS pull_requests_count_insert',
      'DROP TRIGGER IF EXISTS pull_requests_count_status',
      'DROP TRIGGER IF EXISTS pull_requests_count_delete',
      'DELETE FROM list_counts',
      "INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, 'issue', status, COUNT(*) FROM issues GROUP BY repo_id, status",
      "INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, 'pull', status, COUNT(*) FROM pull_requests GROUP BY repo_id, status",
      `CREATE TABLE id_sequences (
        name TEXT PRIMARY KEY,
        next_id INTEGER NOT NULL
      )`,
      `INSERT INTO id_sequences (name, next_id) SELECT 'comment', COALESCE(MAX(id), 0) + 1 FROM (
        SELECT MAX(id) AS id FROM issue_comments UNION ALL SELECT MAX(id) AS id FROM pull_comments) AS newest`,
    ],
  },
  {
    // Several instances on one database (issue 19): each ref intent names the instance that opened it, so that one
    // starting up reconciles only what an instance no longer alive left behind ('' for intents from before).
    version: 10,
    statements: ["ALTER TABLE ref_intents ADD COLUMN holder TEXT NOT NULL DEFAULT ''"],
  },
  {
    // Releases and their assets (issue 20). An asset's bytes are a file in the repository's folder (`file`), so they
    // move, go and are snapshotted with it; the row is written once the file is on disk. Branch protection gains
    // GitHub's `enforce_admins` (rules applied to admins too, as every rule was until now). Check runs (with their
    // annotations) in one check suite per commit. Pull request reviews, their comments on diff lines and requested
    // reviewers; protection may require approving reviews. Assignees and milestones of issues and pull requests (by
    // their number); labels of pull requests.
    version: 11,
    statements: [
      'ALTER TABLE branch_protections ADD COLUMN enforce_admins INTEGER NOT NULL DEFAULT 1',
      'ALTER TABLE branch_protections ADD COLUMN required_approvals INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE repositories ADD COLUMN next_milestone INTEGER NOT NULL DEFAULT 1',
      `CREATE TABLE releases (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        tag_name TEXT NOT NULL,
        target_commitish TEXT NOT NULL,
        name TEXT,
        body TEXT,
        draft INTEGER NOT NULL DEFAULT 0,
        prerelease INTEGER NOT NULL DEFAULT 0,
        author_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        published_at TEXT,
        UNIQUE (repo_id, tag_name)
      )`,
      'CREATE INDEX releases_by_repo ON releases (repo_id, id)',
      `CREATE TABLE release_assets (
        id INTEGER PRIMARY KEY,
        release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        label TEXT,
        content_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        digest TEXT,
        file TEXT NOT NULL,
        uploader_id INTEGER NOT NULL REFERENCES users(id),
        download_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (release_id, name)
      )`,
      `CREATE TABLE check_suites (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        head_sha TEXT NOT NULL,
        head_branch TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, head_sha)
      )`,
      `CREATE TABLE check_runs (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        suite_id INTEGER NOT NULL REFERENCES check_suites(id) ON DELETE CASCADE,
        head_sha TEXT NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        conclusion TEXT,
        external_id TEXT,
        details_url TEXT,
        started_at TEXT,
        completed_at TEXT,
        output_title TEXT,
        output_summary TEXT,
        output_text TEXT,
        annotations_count INTEGER NOT NULL DEFAULT 0,
        creator_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX check_runs_by_commit ON check_runs (repo_id, head_sha, name)',
      `CREATE TABLE check_annotations (
        id INTEGER PRIMARY KEY,
        check_run_id INTEGER NOT NULL REFERENCES check_runs(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        start_column INTEGER,
        end_column INTEGER,
        annotation_level TEXT NOT NULL,
        message TEXT NOT NULL,
        title TEXT,
        raw_details TEXT
      )`,
      'CREATE INDEX check_annotations_by_run ON check_annotations (check_run_id, id)',
      'CREATE INDEX check_runs_by_suite ON check_runs (suite_id, name, id)',
      `CREATE TABLE pull_reviews (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        state TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        commit_id TEXT NOT NULL,
        submitted_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX pull_reviews_by_pull ON pull_reviews (pull_id, id)',
      `CREATE TABLE pull_review_comments (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        review_id INTEGER NOT NULL REFERENCES pull_reviews(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        side TEXT NOT NULL,
        start_line INTEGER,
        start_side TEXT,
        commit_id TEXT NOT NULL,
        diff_hunk TEXT NOT NULL,
        position INTEGER NOT NULL,
        body TEXT NOT NULL,
        in_reply_to_id INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX pull_review_comments_by_pull ON pull_review_comments (pull_id, id)',
      'CREATE INDEX pull_review_comments_by_repo ON pull_review_comments (repo_id, id)',
      'CREATE INDEX pull_review_comments_by_review ON pull_review_comments (review_id, id)',
      'CREATE INDEX pull_review_comments_by_reply ON pull_review_comments (in_reply_to_id)',
      `CREATE TABLE pull_review_requests (
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        PRIMARY KEY (pull_id, user_id)
      )`,
      `CREATE TABLE assignees (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        PRIMARY KEY (repo_id, number, user_id)
      )`,
      `CREATE TABLE milestones (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        title TEXT NOT NULL,
        title_lower TEXT NOT NULL,
        description TEXT,
        state TEXT NOT NULL DEFAULT 'open',
        due_on TEXT,
        creator_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        closed_at TEXT,
        UNIQUE (repo_id, number),
        UNIQUE (repo_id, title_lower)
      )`,
      `CREATE TABLE conversation_milestones (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        milestone_id INTEGER NOT NULL REFERENCES milestones(id) ON DELETE CASCADE,
        PRIMARY KEY (repo_id, number)
      )`,
      'CREATE INDEX conversation_milestones_by_milestone ON conversation_milestones (milestone_id)',
      `CREATE TABLE pull_labels (
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        PRIMARY KEY (pull_id, label_id)
      )`,
      'CREATE INDEX pull_labels_by_label ON pull_labels (label_id)',
    ],
  },
  {
    // SSH keys (issue 22): a user's keys and each repository's deploy keys in one table, so that a key (by its
    // fingerprint) belongs to one account or one repository only, as on GitHub. A deploy key is read-only unless
    // `read_only` is 0.
    version: 12,
    statements: [
      `CREATE TABLE ssh_keys (
        id INTEGER PRIMARY KEY,
        user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
        repo_id INTEGER REFERENCES repositories(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL UNIQUE,
        read_only INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        CHECK ((user_id IS NULL) <> (repo_id IS NULL))
      )`,
      'CREATE INDEX ssh_keys_by_user ON ssh_keys (user_id, id)',
      'CREATE INDEX ssh_keys_by_repo ON ssh_keys (repo_id, id)',
    ],
  },
  {
    // Git LFS (issue 22): the objects each repository holds (their bytes are files in the repository's folder, named by
    // oid; the rows give the quota's sum and what the batch API may offer), and the locks of the locking API.
    version: 13,
    statements: [
      `CREATE TABLE lfs_objects (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        oid TEXT NOT NULL,
        size BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (repo_id, oid)
      )`,
      `CREATE TABLE lfs_locks (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        UNIQUE (repo_id, path)
      )`,
      'CREATE INDEX lfs_locks_by_repo ON lfs_locks (repo_id, id)',
    ],
  },
  {
    // Renamed repositories (issue 21): the old name keeps leading to the repository (pages, API, git) until the name
    // is taken again.
    version: 14,
    statements: [
      `CREATE TABLE repository_redirects (
        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name_lower TEXT NOT NULL,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (owner_id, name_lower)
      )`,
      'CREATE INDEX repository_redirects_by_repo ON repository_redirects (repo_id)',
    ],
  },
  {
    // What happened to issues and pull requests besides comments (issue 21's timeline, GitHub's issue events API):
    // labels, assignees, milestones, closing, reopening, merging, renaming and review requests, written in the write
    // that made the change. `subject_id` is the assignee or requested reviewer; a cross-reference names the issue or pull
    // request that mentioned this one (`source_*`). Review threads marked resolved, by their first comment.
    // Files of a pull request each account marked viewed, with a hash of the patch they saw.
    version: 15,
    statements: [
      `CREATE TABLE issue_events (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        event TEXT NOT NULL,
        actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        subject_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        label_name TEXT,
        label_color TEXT,
        milestone_title TEXT,
        rename_from TEXT,
        rename_to TEXT,
        commit_id TEXT,
        state_reason TEXT,
        source_repo_id INTEGER REFERENCES repositories(id) ON DELETE CASCADE,
        source_number INTEGER,
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX issue_events_by_number ON issue_events (repo_id, number, id)',
      'CREATE INDEX issue_events_by_source ON issue_events (source_repo_id)',
      `CREATE TABLE review_thread_resolutions (
        comment_id INTEGER PRIMARY KEY REFERENCES pull_review_comments(id) ON DELETE CASCADE,
        resolved_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
        resolved_at TEXT NOT NULL
      )`,
      `CREATE TABLE pull_file_views (
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        patch_hash TEXT NOT NULL,
        viewed_at TEXT NOT NULL,
        PRIMARY KEY (pull_id, user_id, path)
      )`,
      'CREATE INDEX pull_file_views_by_user ON pull_file_views (user_id)',
    ],
  },
  {
    // GitHub Apps (issue 20), and notifications (issue 21). An app keeps only its public key (the private key goes to whoever made it, once) and
    // acts through a bot account (`<slug>[bot]`); an installation gives it an account's repositories (all, or those
    // listed); installation tokens are stored as hashes with what they were narrowed to. An installation's webhook is
    // a hook row per repository it covers (`webhooks.installation_id`), so deliveries keep their per-hook order and
    // worker; repositories made later under an installation for all get theirs when they are made.
    version: 16,
    statements: [
      `CREATE TABLE apps (
        id INTEGER PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL DEFAULT '',
        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        bot_id INTEGER NOT NULL REFERENCES users(id),
        public_key TEXT NOT NULL,
        webhook_url TEXT NOT NULL DEFAULT '',
        webhook_secret TEXT NOT NULL DEFAULT '',
        permissions TEXT NOT NULL,
        events TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE app_installations (
        id INTEGER PRIMARY KEY,
        app_id INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
        account_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        repository_selection TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (app_id, account_id)
      )`,
      'CREATE INDEX app_installations_by_account ON app_installations (account_id)',
      `CREATE TABLE app_installation_repos (
        installation_id INTEGER NOT NULL REFERENCES app_installations(id) ON DELETE CASCADE,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        PRIMARY KEY (installation_id, repo_id)
      )`,
      'CREATE INDEX app_installation_repos_by_repo ON app_installation_repos (repo_id)',
      `CREATE TABLE installation_tokens (
        id INTEGER PRIMARY KEY,
        installation_id INTEGER NOT NULL REFERENCES app_installations(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        permissions TEXT NOT NULL,
        repository_ids TEXT,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX installation_tokens_by_installation ON installation_tokens (installation_id)',
      'ALTER TABLE webhooks ADD COLUMN installation_id INTEGER REFERENCES app_installations(id) ON DELETE CASCADE',
      'CREATE INDEX webhooks_by_installation ON webhooks (installation_id)',
      // Notifications (issue 21): one thread per account and issue or pull request, unread until read, with why it came;
      // a thread marked done leaves the inbox, and the account still hears of it (it comes back with news).
      `CREATE TABLE notifications (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        reason TEXT NOT NULL,
        unread INTEGER NOT NULL DEFAULT 1,
        done INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        last_read_at TEXT,
        UNIQUE (user_id, repo_id, number)
      )`,
      'CREATE INDEX notifications_by_user ON notifications (user_id, unread, updated_at)',
      'CREATE INDEX notifications_by_thread ON notifications (repo_id, number)',
      // Commits pushed to a pull request's head, on its timeline: where the head was and how many commits came.
      'ALTER TABLE issue_events ADD COLUMN before_commit TEXT',
      'ALTER TABLE issue_events ADD COLUMN commit_count INTEGER',
      // Check suites are one per app and commit (GitHub's), no longer one per commit: the table is made again with the
      // app in its key (0 for runs made with personal tokens), and with it the tables that reference it, in a way that
      // keeps every row under SQLite's foreign keys (new tables filled, old ones dropped children first, then renamed).
      `CREATE TABLE check_suites_by_app (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        head_sha TEXT NOT NULL,
        head_branch TEXT,
        app_id INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, head_sha, app_id)
      )`,
      'INSERT INTO check_suites_by_app (id, repo_id, head_sha, head_branch, app_id, created_at, updated_at) SELECT id, repo_id, head_sha, head_branch, 0, created_at, updated_at FROM check_suites',
      `CREATE TABLE check_runs_by_app (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        suite_id INTEGER NOT NULL REFERENCES check_suites_by_app(id) ON DELETE CASCADE,
        head_sha TEXT NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,
        conclusion TEXT,
        external_id TEXT,
        details_url TEXT,
        started_at TEXT,
        completed_at TEXT,
        output_title TEXT,
        output_summary TEXT,
        output_text TEXT,
        annotations_count INTEGER NOT NULL DEFAULT 0,
        creator_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'INSERT INTO check_runs_by_app SELECT * FROM check_runs',
      `CREATE TABLE check_annotations_by_app (
        id INTEGER PRIMARY KEY,
        check_run_id INTEGER NOT NULL REFERENCES check_runs_by_app(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        start_column INTEGER,
        end_column INTEGER,
        annotation_level TEXT NOT NULL,
        message TEXT NOT NULL,
        title TEXT,
        raw_details TEXT
      )`,
      'INSERT INTO check_annotations_by_app SELECT * FROM check_annotations',
      'DROP TABLE check_annotations',
      'DROP TABLE check_runs',
      'DROP TABLE check_suites',
      'ALTER TABLE check_suites_by_app RENAME TO check_suites',
      'ALTER TABLE check_runs_by_app RENAME TO check_runs',
      'ALTER TABLE check_annotations_by_app RENAME TO check_annotations',
      'CREATE INDEX check_runs_by_commit ON check_runs (repo_id, head_sha, name)',
      'CREATE INDEX check_runs_by_suite ON check_runs (suite_id, name, id)',
      'CREATE INDEX check_annotations_by_run ON check_annotations (check_run_id, id)',
    ],
  },
  {
    // A check suite asked for again (`…/rerequest` of the suite or of one of its runs) is queued with no conclusion,
    // as on GitHub, until one of its runs is created or updated (then its runs give its state again).
    version: 17,
    statements: ['ALTER TABLE check_suites ADD COLUMN requeued INTEGER NOT NULL DEFAULT 0'],
  },
  {
    // PostgreSQL's text columns compare by bytes, as SQLite's always have (postgres/migrations.ts): nothing changes here.
    version: 18,
    statements: [],
  },
  {
    // A dismissed review keeps its body, as on GitHub; the dismissal is an issue event of its own (`review_dismissed`)
    // with the review, its state before, the message and the pull request's head then.
    version: 19,
    statements: [
      'ALTER TABLE issue_events ADD COLUMN review_id INTEGER',
      'ALTER TABLE issue_events ADD COLUMN review_state TEXT',
      'ALTER TABLE issue_events ADD COLUMN dismissal_message TEXT',
      'ALTER TABLE issue_events ADD COLUMN dismissal_commit TEXT',
      // The release made latest (GitHub's `make_latest`); when none is, or it is a draft or pre-release now, the
      // newest full release is.
      'ALTER TABLE repositories ADD COLUMN latest_release_id INTEGER',
    ],
  },
  {
    // A review comment on a whole file (GitHub's `subject_type: "file"`), not on lines: kept with line and position 0,
    // which no line of a diff has (`line` stays NOT NULL: dropping that would rebuild the table), read back as null.
    version: 20,
    statements: ["ALTER TABLE pull_review_comments ADD COLUMN subject_type TEXT NOT NULL DEFAULT 'line'"],
  },
  {
    // Locked conversations (GitHub's `locked` and `active_lock_reason`), issues and pull requests alike, and the
    // reason a `locked` issue event gives.
    version: 21,
    statements: [
      'ALTER TABLE issues ADD COLUMN locked INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE issues ADD COLUMN lock_reason TEXT',
      'ALTER TABLE pull_requests ADD COLUMN locked INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE pull_requests ADD COLUMN lock_reason TEXT',
      'ALTER TABLE issue_events ADD COLUMN lock_reason TEXT',
    ],
  },
  {
    // Reactions (GitHub's eight emoji) to issues and pull requests (by number), their comments, review comments and
    // releases (queries/reactions.ts): one per account, object and content.
    version: 22,
    statements: [
      `CREATE TABLE reactions (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        subject_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (repo_id, subject, subject_id, user_id, content)
      )`,
    ],
  },
  {
    // Deployments and their statuses (GitHub's deployments API, queries/deployments.ts).
    version: 23,
    statements: [
      `CREATE TABLE deployments (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        sha TEXT NOT NULL,
        ref TEXT NOT NULL,
        task TEXT NOT NULL,
        payload TEXT NOT NULL,
        environment TEXT NOT NULL,
        original_environment TEXT NOT NULL,
        description TEXT,
        creator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        transient_environment INTEGER NOT NULL,
        production_environment INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE INDEX deployments_by_repo ON deployments (repo_id, id)`,
      `CREATE TABLE deployment_statuses (
        id INTEGER PRIMARY KEY,
        deployment_id INTEGER NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        creator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
        description TEXT NOT NULL,
        environment TEXT NOT NULL,
        target_url TEXT NOT NULL,
        log_url TEXT NOT NULL,
        environment_url TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE INDEX deployment_statuses_by_deployment ON deployment_statuses (deployment_id, id)`,
    ],
  },
  {
    // Comments on commits (GitHub's commit comments, queries/commit-comments.ts).
    version: 24,
    statements: [
      `CREATE TABLE commit_comments (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        commit_id TEXT NOT NULL,
        path TEXT,
        position INTEGER,
        line INTEGER,
        body TEXT NOT NULL,
        author_id INTEGER NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE INDEX commit_comments_by_commit ON commit_comments (repo_id, commit_id, id)`,
      `CREATE INDEX commit_comments_by_repo ON commit_comments (repo_id, id)`,
    ],
  },
  {
    // A repository's topics, in their order (GitHub's `topics`, queries/topics.ts).
    version: 25,
    statements: [
      `CREATE TABLE repository_topics (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (repo_id, position)
      )`,
    ],
  },
  {
    // Deployment environments (GitHub's environments API, queries/environments.ts).
    version: 26,
    statements: [
      `CREATE TABLE environments (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_lower TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, name_lower)
      )`,
      // Every environment a deployment already named, as GitHub makes one for a deployment.
      `INSERT INTO environments (repo_id, name, name_lower, created_at, updated_at)
        SELECT repo_id, MIN(environment), LOWER(environment), MIN(created_at), MAX(updated_at) FROM deployments GROUP BY repo_id, LOWER(environment)`,
    ],
  },
  {
    // Repositories, SSH keys and app installations take ids never given twice (queries/id-sequences.ts): LFS tokens and
    // apps name them by id.
    version: 27,
    statements: [
      `INSERT INTO id_sequences (name, next_id) SELECT 'repository', COALESCE(MAX(id), 0) + 1 FROM repositories`,
      `INSERT INTO id_sequences (name, next_id) SELECT 'ssh_key', COALESCE(MAX(id), 0) + 1 FROM ssh_keys`,
      `INSERT INTO id_sequences (name, next_id) SELECT 'installation', COALESCE(MAX(id), 0) + 1 FROM app_installations`,
    ],
  },
  {
    // GitHub's `pushed_at`: when a ref last moved; until now, the last branch move known, or the repository's creation.
    version: 28,
    statements: [
      'ALTER TABLE repositories ADD COLUMN pushed_at TEXT',
      'UPDATE repositories SET pushed_at = COALESCE((SELECT MAX(b.updated_at) FROM branches b WHERE b.repo_id = repositories.id), created_at)',
    ],
  },
  {
    // An account's address once confirmed (admin CLI, fixtures): commits by it are the account's, as GitHub links
    // commits by verified addresses (queries/users.ts: accountsOfAddresses).
    version: 29,
    statements: ['ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0', 'CREATE INDEX users_by_email ON users (lower(email))'],
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Brings the schema to the newest version; a database newer than this code is refused. */
export async function runMigrations(store: Db): Promise<void> {
  const exists = await store.get<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  let current = exists ? ((await store.get<{ version: number }>('SELECT version FROM schema_version'))?.version ?? 0) : 0;
  if (current > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${current}, newer than this repohost (${SCHEMA_VERSION}); upgrade repohost`);
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    await store.write(async (tx) => {
      if (current === 0) {
        await tx.run('CREATE TABLE schema_version (version INTEGER NOT NULL)');
        await tx.run('INSERT INTO schema_version (version) VALUES (0)');
      }
      for (const statement of migration.statements) await tx.run(statement);
      await tx.run('UPDATE schema_version SET version = ?', [migration.version]);
    });
    current = migration.version;
  }
}
