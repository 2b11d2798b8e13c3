/**
 * The schema a fresh database starts with (issue 23, made into an image by fresh-image.ts): what replaying every
 * step of `MIGRATIONS` on an empty database leaves, as SQLite lists it (`sqlite_master`, in its order), and the rows
 * those steps insert. Existing databases still migrate step by step. test/store/fresh-schema.test.ts checks that both
 * give the same schema and rows; after adding a migration, regenerate this list from a migrated database the way that
 * test says (until then fresh databases replay the steps: the image is made only while this version is the newest).
 */
export const FRESH_SCHEMA_VERSION = 29;

/** Table, index and trigger definitions first (`schema_version` among them), then the rows; the version row is added by `buildFreshImage`. */

export const FRESH_SCHEMA: readonly string[] = [
  `CREATE TABLE schema_version (version INTEGER NOT NULL)`,
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
      , email_verified INTEGER NOT NULL DEFAULT 0)`,
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
        updated_at TEXT NOT NULL, next_milestone INTEGER NOT NULL DEFAULT 1, latest_release_id INTEGER, pushed_at TEXT,
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
        updated_at TEXT NOT NULL, closed_at TEXT, closed_by INTEGER REFERENCES users(id), comment_count INTEGER NOT NULL DEFAULT 0, state_reason TEXT, locked INTEGER NOT NULL DEFAULT 0, lock_reason TEXT,
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
        updated_at TEXT NOT NULL, head_sha TEXT NOT NULL DEFAULT '', base_sha TEXT NOT NULL DEFAULT '', merged_by INTEGER REFERENCES users(id), merged_at TEXT, merge_commit_sha TEXT, closed_at TEXT, comment_count INTEGER NOT NULL DEFAULT 0, locked INTEGER NOT NULL DEFAULT 0, lock_reason TEXT,
        UNIQUE (repo_id, number)
      )`,
  `CREATE TABLE pull_comments (
        id INTEGER PRIMARY KEY,
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        author_id INTEGER NOT NULL REFERENCES users(id),
        text TEXT NOT NULL,
        created_at TEXT NOT NULL
      , updated_at TEXT NOT NULL DEFAULT '')`,
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
  `CREATE INDEX issues_by_repo ON issues (repo_id, number)`,
  `CREATE INDEX pulls_by_repo ON pull_requests (repo_id, number)`,
  `CREATE INDEX comments_by_pull ON pull_comments (pull_id, id)`,
  `CREATE INDEX repositories_by_owner ON repositories (owner_id, name_lower)`,
  `CREATE INDEX sessions_by_user ON sessions (user_id)`,
  `CREATE INDEX tokens_by_user ON api_tokens (user_id)`,
  `CREATE TABLE collaborators (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        permission TEXT NOT NULL CHECK (permission IN ('read', 'write', 'admin')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (repo_id, user_id)
      )`,
  `CREATE INDEX collaborators_by_user ON collaborators (user_id, repo_id)`,
  `CREATE TABLE issue_comments (
        id INTEGER PRIMARY KEY,
        issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        author_id INTEGER NOT NULL REFERENCES users(id),
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
  `CREATE INDEX issue_comments_by_issue ON issue_comments (issue_id, id)`,
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
  `CREATE INDEX issue_labels_by_label ON issue_labels (label_id, issue_id)`,
  `CREATE INDEX pulls_by_branch ON pull_requests (repo_id, status, head_branch, base_branch)`,
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
  `CREATE INDEX commit_statuses_by_sha ON commit_statuses (repo_id, sha, context, id)`,
  `CREATE INDEX commit_statuses_newest ON commit_statuses (repo_id, sha, id)`,
  `CREATE INDEX issues_by_status ON issues (repo_id, status, number)`,
  `CREATE INDEX issues_by_update ON issues (repo_id, updated_at, id)`,
  `CREATE INDEX issues_by_status_update ON issues (repo_id, status, updated_at, id)`,
  `CREATE INDEX pulls_by_status ON pull_requests (repo_id, status, number)`,
  `CREATE INDEX ci_runs_by_repo ON ci_runs (repo_id, id)`,
  `CREATE INDEX ci_run_events_by_run ON ci_run_events (ci_run_id, id)`,
  `CREATE TABLE list_counts (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (repo_id, kind, status)
      )`,
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
        updated_at TEXT NOT NULL, enforce_admins INTEGER NOT NULL DEFAULT 1, required_approvals INTEGER NOT NULL DEFAULT 0,
        UNIQUE (repo_id, pattern)
      )`,
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
      , installation_id INTEGER REFERENCES app_installations(id) ON DELETE CASCADE)`,
  `CREATE INDEX webhooks_by_repo ON webhooks (repo_id, id)`,
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
  `CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (hook_id, id)`,
  `CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (state, hook_id, id)`,
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
      , holder TEXT NOT NULL DEFAULT '')`,
  `CREATE INDEX ref_intents_by_repo ON ref_intents (repo_id)`,
  `CREATE TABLE ref_backfills (
        repo_id INTEGER PRIMARY KEY REFERENCES repositories(id) ON DELETE CASCADE
      )`,
  `CREATE TABLE id_sequences (
        name TEXT PRIMARY KEY,
        next_id INTEGER NOT NULL
      )`,
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
  `CREATE INDEX releases_by_repo ON releases (repo_id, id)`,
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
  `CREATE INDEX pull_reviews_by_pull ON pull_reviews (pull_id, id)`,
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
      , subject_type TEXT NOT NULL DEFAULT 'line')`,
  `CREATE INDEX pull_review_comments_by_pull ON pull_review_comments (pull_id, id)`,
  `CREATE INDEX pull_review_comments_by_repo ON pull_review_comments (repo_id, id)`,
  `CREATE INDEX pull_review_comments_by_review ON pull_review_comments (review_id, id)`,
  `CREATE INDEX pull_review_comments_by_reply ON pull_review_comments (in_reply_to_id)`,
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
  `CREATE INDEX conversation_milestones_by_milestone ON conversation_milestones (milestone_id)`,
  `CREATE TABLE pull_labels (
        pull_id INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
        label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        PRIMARY KEY (pull_id, label_id)
      )`,
  `CREATE INDEX pull_labels_by_label ON pull_labels (label_id)`,
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
  `CREATE INDEX ssh_keys_by_user ON ssh_keys (user_id, id)`,
  `CREATE INDEX ssh_keys_by_repo ON ssh_keys (repo_id, id)`,
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
  `CREATE INDEX lfs_locks_by_repo ON lfs_locks (repo_id, id)`,
  `CREATE TABLE repository_redirects (
        owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name_lower TEXT NOT NULL,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (owner_id, name_lower)
      )`,
  `CREATE INDEX repository_redirects_by_repo ON repository_redirects (repo_id)`,
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
      , before_commit TEXT, commit_count INTEGER, review_id INTEGER, review_state TEXT, dismissal_message TEXT, dismissal_commit TEXT, lock_reason TEXT)`,
  `CREATE INDEX issue_events_by_number ON issue_events (repo_id, number, id)`,
  `CREATE INDEX issue_events_by_source ON issue_events (source_repo_id)`,
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
  `CREATE INDEX pull_file_views_by_user ON pull_file_views (user_id)`,
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
  `CREATE INDEX app_installations_by_account ON app_installations (account_id)`,
  `CREATE TABLE app_installation_repos (
        installation_id INTEGER NOT NULL REFERENCES app_installations(id) ON DELETE CASCADE,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        PRIMARY KEY (installation_id, repo_id)
      )`,
  `CREATE INDEX app_installation_repos_by_repo ON app_installation_repos (repo_id)`,
  `CREATE TABLE installation_tokens (
        id INTEGER PRIMARY KEY,
        installation_id INTEGER NOT NULL REFERENCES app_installations(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        permissions TEXT NOT NULL,
        repository_ids TEXT,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
  `CREATE INDEX installation_tokens_by_installation ON installation_tokens (installation_id)`,
  `CREATE INDEX webhooks_by_installation ON webhooks (installation_id)`,
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
  `CREATE INDEX notifications_by_user ON notifications (user_id, unread, updated_at)`,
  `CREATE INDEX notifications_by_thread ON notifications (repo_id, number)`,
  `CREATE TABLE "check_suites" (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        head_sha TEXT NOT NULL,
        head_branch TEXT,
        app_id INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL, requeued INTEGER NOT NULL DEFAULT 0,
        UNIQUE (repo_id, head_sha, app_id)
      )`,
  `CREATE TABLE "check_runs" (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        suite_id INTEGER NOT NULL REFERENCES "check_suites"(id) ON DELETE CASCADE,
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
  `CREATE TABLE "check_annotations" (
        id INTEGER PRIMARY KEY,
        check_run_id INTEGER NOT NULL REFERENCES "check_runs"(id) ON DELETE CASCADE,
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
  `CREATE INDEX check_runs_by_commit ON check_runs (repo_id, head_sha, name)`,
  `CREATE INDEX check_runs_by_suite ON check_runs (suite_id, name, id)`,
  `CREATE INDEX check_annotations_by_run ON check_annotations (check_run_id, id)`,
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
  `CREATE TABLE repository_topics (
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (repo_id, position)
      )`,
  `CREATE TABLE environments (
        id INTEGER PRIMARY KEY,
        repo_id INTEGER NOT NULL REFERENCES repositories(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        name_lower TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (repo_id, name_lower)
      )`,
  `CREATE INDEX users_by_email ON users (lower(email))`,
  `INSERT INTO id_sequences (name, next_id) VALUES ('comment', 1)`,
  `INSERT INTO id_sequences (name, next_id) VALUES ('repository', 1)`,
  `INSERT INTO id_sequences (name, next_id) VALUES ('ssh_key', 1)`,
  `INSERT INTO id_sequences (name, next_id) VALUES ('installation', 1)`,
];
