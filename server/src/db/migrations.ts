import type { Database } from './schema.js';
import {
  sql,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  PostgresAdapter,
} from 'kysely';

/**
 * The one set of migrations, for SQLite and PostgreSQL. Kept in code (not files on disk) so the
 * same list runs from TypeScript sources and from the compiled build. Never edit a shipped
 * migration: add the next one.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('token_key', 'text', (c) => c.notNull())
        .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('email_visibility', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_initial_user', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('invite_code', 'text', (c) => c.notNull())
        .addColumn('invited_by', 'text')
        .addColumn('verification_sent_at', 'text')
        .addColumn('reset_sent_at', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('updated', 'text', (c) => c.notNull())
        .execute();
      // At most one initial user, enforced by the database itself.
      await db.schema
        .createIndex('users_one_initial_user')
        .on('users')
        .column('is_initial_user')
        .unique()
        .where(sql.ref('is_initial_user'), '=', 1)
        .execute();

      await db.schema
        .createTable('invite_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('code', 'text', (c) => c.notNull().unique())
        .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('bootstrap', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used_by', 'text')
        .addColumn('used_at', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('invite_codes_owner')
        .on('invite_codes')
        .columns(['owner_id', 'used_at'])
        .execute();

      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text', (c) => c.notNull())
        .addColumn('html_body', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('outbox_due').on('outbox').column('next_attempt_at').execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002_sessions_and_security_events': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('security_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text')
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('security_events_user')
        .on('security_events')
        .columns(['user_id', 'created'])
        .execute();
      await db.schema
        .createIndex('security_events_created')
        .on('security_events')
        .column('created')
        .execute();
    },
  },
  '0003_token_secrets_out_of_the_database': {
    // The signing secret now lives outside the database (DATA_DIR/secret.key or TOKEN_SECRET),
    // so that a copy of the database cannot sign tokens. Tokens signed with these end once.
    async up(db: Kysely<unknown>) {
      await (db as Kysely<Database>)
        .deleteFrom('settings')
        .where('key', 'in', [
          'token_secret.auth',
          'token_secret.verification',
          'token_secret.passwordReset',
          'token_secret.emailChange',
        ])
        .execute();
    },
  },
  // Mail whose link has expired is not sent (docs/decisions/0019): what kind of mail a row is,
  // when its link dies, and when the worker gave up on it (kept a while for the operator).
  '0004_outbox_expiry': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('outbox').addColumn('kind', 'text').execute();
      await db.schema.alterTable('outbox').addColumn('expires_at', 'text').execute();
      await db.schema.alterTable('outbox').addColumn('expired_at', 'text').execute();
      await db.schema.createIndex('outbox_expires').on('outbox').column('expires_at').execute();
    },
  },
  // Each time sign-up told a code's holder "this email has an account" (docs/decisions/0019).
  '0005_taken_email_answers': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('taken_email_answers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('code_id', 'text', (c) =>
          c.notNull().references('invite_codes.id').onDelete('cascade'),
        )
        .addColumn('owner_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('taken_email_answers_code')
        .on('taken_email_answers')
        .column('code_id')
        .execute();
      await db.schema
        .createIndex('taken_email_answers_owner')
        .on('taken_email_answers')
        .columns(['owner_id', 'created'])
        .execute();
    },
  },
  '0006_two_step': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('two_step')
        .addColumn('user_id', 'text', (c) =>
          c.primaryKey().references('users.id').onDelete('cascade'),
        )
        .addColumn('secret', 'text')
        .addColumn('pending_secret', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_step', 'integer')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked_until', 'text')
        .addColumn('updated', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('recovery_codes_user')
        .on('recovery_codes')
        .columns(['user_id', 'code_hash'])
        .execute();

      await db.schema
        .createTable('mfa_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('expires', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('mfa_challenges_expires')
        .on('mfa_challenges')
        .column('expires')
        .execute();

      await db.schema
        .createTable('passkeys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('credential_id', 'text', (c) => c.notNull().unique())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('transports', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('last_used', 'text')
        .execute();
      await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();

      await db.schema
        .createTable('passkey_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('challenge', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('expires', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('passkey_challenges_expires')
        .on('passkey_challenges')
        .column('expires')
        .execute();
    },
  },
  '0007_operators': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('users')
        .addColumn('is_operator', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE users SET is_operator = 1 WHERE is_initial_user = 1`.execute(db);
      // The console's members list: newest/oldest first, by email, and each filtered by status
      // (disabled, verified) without sorting a million rows; and the invite tree's parent link.
      await db.schema.createIndex('users_created').on('users').columns(['created', 'id']).execute();
      await db.schema
        .createIndex('users_status_created')
        .on('users')
        .columns(['disabled', 'verified', 'created', 'id'])
        .execute();
      await db.schema
        .createIndex('users_status_email')
        .on('users')
        .columns(['disabled', 'verified', 'email'])
        .execute();
      await db.schema
        .createIndex('users_invited_by')
        .on('users')
        .columns(['invited_by', 'id'])
        .execute();
      await db.schema
        .createIndex('security_events_type')
        .on('security_events')
        .columns(['type', 'created'])
        .execute();
      await db.schema
        .createTable('mail_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mail_log_created').on('mail_log').column('created').execute();
    },
  },
  '0008_change_notifications': {
    // PostgreSQL only: every committed change to a user, a session or an invite code, by any
    // instance or the CLI, is announced on the events channel (core/events.ts) so that each
    // instance drops what its read cache holds about that member (docs/decisions/0039).
    async up(db: Kysely<unknown>): Promise<void> {
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql`
        CREATE FUNCTION gatehouse_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          row_data record;
          member text;
          event jsonb;
        BEGIN
          IF TG_OP = 'DELETE' THEN row_data := OLD; ELSE row_data := NEW; END IF;
          IF TG_TABLE_NAME = 'users' THEN
            event := jsonb_build_object('type', 'user-changed', 'userId', row_data.id);
          ELSIF TG_TABLE_NAME = 'sessions' THEN
            event := jsonb_build_object('type', 'session-ended', 'userId', row_data.user_id,
                                        'sessionId', row_data.id);
          ELSE
            member := row_data.owner_id;
            IF member IS NULL THEN RETURN NULL; END IF;
            event := jsonb_build_object('type', 'user-changed', 'userId', member);
          END IF;
          PERFORM pg_notify('gatehouse_events', jsonb_build_object('o', 'db', 'e', event)::text);
          RETURN NULL;
        END $$`.execute(db);
      await sql`CREATE TRIGGER users_notify AFTER UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change()`.execute(db);
      await sql`CREATE TRIGGER sessions_notify AFTER DELETE ON sessions
        FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change()`.execute(db);
      await sql`CREATE TRIGGER invite_codes_notify AFTER INSERT OR UPDATE OR DELETE ON invite_codes
        FOR EACH ROW EXECUTE FUNCTION gatehouse_notify_change()`.execute(db);
    },
  },
  '0009_external_auths': {
    async up(db: Kysely<unknown>) {
      // Accounts made with a provider have no password of the member's: a random one is hashed in
      // its place (as PocketBase does) and this says so (docs/decisions/0036).
      await db.schema
        .alterTable('users')
        .addColumn('password_set', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .createTable('external_auths')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('created', 'text', (c) => c.notNull())
        .execute();
      // One member per provider identity, and one identity per provider per member.
      await db.schema
        .createIndex('external_auths_identity')
        .on('external_auths')
        .columns(['provider', 'provider_id'])
        .unique()
        .execute();
      await db.schema
        .createIndex('external_auths_user_provider')
        .on('external_auths')
        .columns(['user_id', 'provider'])
        .unique()
        .execute();
    },
  },
  // The operator console at a million members (docs/decisions/0031): the email search through a
  // trigram index, the list's totals kept by the writes, and the invite tree's branch sizes kept
  // by the writes. All three are maintained by triggers, so every way a row reaches `users` (the
  // API, the CLI, an import) keeps them right.
  '0010_member_search': {
    async up(db: Kysely<unknown>) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      const run = async (...statements: string[]) => {
        for (const statement of statements) await sql.raw(statement).execute(db);
      };

      // Totals: one row per status, as the list's `status` filter splits members.
      await db.schema
        .createTable('member_counts')
        .addColumn('status', 'text', (c) => c.primaryKey())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .execute();
      await run(
        `INSERT INTO member_counts (status, n) VALUES
           ('verified', (SELECT count(*) FROM users WHERE disabled = 0 AND verified = 1)),
           ('unverified', (SELECT count(*) FROM users WHERE disabled = 0 AND verified = 0)),
           ('disabled', (SELECT count(*) FROM users WHERE disabled = 1))`,
      );

      // The invite tree as the console shows it: `parent_id` is the inviter, or the initial user
      // when the inviter's account is gone; `children` and `descendants` count below each member.
      await db.schema
        .createTable('invite_tree')
        .addColumn('user_id', 'text', (c) => c.primaryKey())
        .addColumn('parent_id', 'text')
        .addColumn('created', 'text', (c) => c.notNull())
        .addColumn('children', 'bigint', (c) => c.notNull())
        .addColumn('descendants', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('invite_tree_parent')
        .on('invite_tree')
        .columns(['parent_id', 'created', 'user_id'])
        .execute();
      await run(
        `INSERT INTO invite_tree (user_id, parent_id, created, children, descendants)
         SELECT u.id,
                CASE WHEN u.invited_by IS NULL THEN NULL
                     WHEN EXISTS (SELECT 1 FROM users p WHERE p.id = u.invited_by) THEN u.invited_by
                     ELSE (SELECT i.id FROM users i WHERE i.is_initial_user = 1) END,
                u.created, 0, 0
         FROM users u`,
        `UPDATE invite_tree SET children = c.n
         FROM (SELECT parent_id, count(*) AS n FROM invite_tree
               WHERE parent_id IS NOT NULL GROUP BY parent_id) AS c
         WHERE c.parent_id = invite_tree.user_id`,
        // One row per (member, ancestor): counted per ancestor, that is its branch's size.
        `UPDATE invite_tree SET descendants = c.n
         FROM (WITH RECURSIVE up(anc) AS (
                 SELECT parent_id FROM invite_tree WHERE parent_id IS NOT NULL
                 UNION ALL
                 SELECT t.parent_id FROM up JOIN invite_tree t ON t.user_id = up.anc
                 WHERE t.parent_id IS NOT NULL)
               SELECT anc, count(*) AS n FROM up GROUP BY anc) AS c
         WHERE c.anc = invite_tree.user_id`,
      );

      const status = (row: string) =>
        `CASE WHEN ${row}.disabled = 1 THEN 'disabled' WHEN ${row}.verified = 1 THEN 'verified'
              ELSE 'unverified' END`;
      if (postgres) {
        // pg_trgm answers `email LIKE '%…%'` from a GIN index. Creating the extension needs the
        // CREATE privilege on the database (it is a trusted extension); without it the search
        // still works, reading every row, until an administrator runs the two statements
        // (docs/operations.md).
        await run(`DO $$ BEGIN
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            CREATE INDEX IF NOT EXISTS users_email_trgm ON users USING gin (email gin_trgm_ops);
          EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'pg_trgm is not available (%): the members search reads every row', SQLERRM;
          END $$`);
        // Statement triggers with transition tables: a bulk insert (an import, the benchmark)
        // updates each counter and each ancestor once per statement, not once per row. A row
        // updated thousands of times in one transaction leaves a chain of versions that every
        // later read walks: row triggers made a 20,000-row insert take 10 minutes.
        // Rows are locked in the order of their keys (ORDER BY … FOR UPDATE), so that concurrent
        // sign-ups and deletions wait for each other instead of deadlocking.
        const counts = (name: string, sides: Array<'added' | 'removed'>) =>
          `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             PERFORM 1 FROM member_counts ORDER BY status FOR UPDATE;
             UPDATE member_counts m SET n = n + c.k
               FROM (SELECT s, sum(k) AS k FROM (
                       ${sides
                         .map((side) =>
                           side === 'added'
                             ? `SELECT ${status('a')} AS s, 1 AS k FROM added a`
                             : `SELECT ${status('r')} AS s, -1 AS k FROM removed r`,
                         )
                         .join(' UNION ALL ')}) d
                     GROUP BY s) c
               WHERE m.status = c.s AND c.k <> 0;
             RETURN NULL;
           END $$`;
        await run(
          counts('member_counts_added', ['added']),
          counts('member_counts_removed', ['removed']),
          counts('member_counts_changed', ['added', 'removed']),
          `CREATE TRIGGER member_counts_insert AFTER INSERT ON users
           REFERENCING NEW TABLE AS added
           FOR EACH STATEMENT EXECUTE FUNCTION member_counts_added()`,
          `CREATE TRIGGER member_counts_update AFTER UPDATE ON users
           REFERENCING OLD TABLE AS removed NEW TABLE AS added
           FOR EACH STATEMENT EXECUTE FUNCTION member_counts_changed()`,
          `CREATE TRIGGER member_counts_delete AFTER DELETE ON users
           REFERENCING OLD TABLE AS removed
           FOR EACH STATEMENT EXECUTE FUNCTION member_counts_removed()`,
          // The new members' rows, then their ancestors level by level: `up` holds one entry per
          // (new member, ancestor) pair, so an ancestor's count in it is how much its branch grew.
          // Planned on every call (plan_cache_mode): a plan cached while the table was small (a
          // sequential scan) would otherwise be kept at a million rows.
          `CREATE FUNCTION invite_tree_added() RETURNS trigger LANGUAGE plpgsql
           SET plan_cache_mode = force_custom_plan AS $$
           DECLARE initial text; level text[]; firsts text[]; up text[] := '{}'; ancs text[]; ns bigint[]; ks bigint[];
           BEGIN
             SELECT id INTO initial FROM users WHERE is_initial_user = 1;
             INSERT INTO invite_tree (user_id, parent_id, created, children, descendants)
               SELECT a.id,
                      CASE WHEN a.invited_by IS NULL THEN NULL
                           WHEN EXISTS (SELECT 1 FROM users p WHERE p.id = a.invited_by)
                             THEN a.invited_by
                           ELSE initial END,
                      a.created, 0, 0
               FROM added a;
             SELECT array_agg(t.parent_id) INTO level
               FROM added a JOIN invite_tree t ON t.user_id = a.id
               WHERE t.parent_id IS NOT NULL;
             firsts := level;
             WHILE level IS NOT NULL LOOP
               up := up || level;
               SELECT array_agg(t.parent_id) INTO level
                 FROM unnest(level) AS l(id) JOIN invite_tree t ON t.user_id = l.id
                 WHERE t.parent_id IS NOT NULL;
             END LOOP;
             -- Per ancestor: by how much its branch grew (n) and its own invitees (k).
             SELECT array_agg(g.id ORDER BY g.id), array_agg(g.n ORDER BY g.id),
                    array_agg(coalesce(f.k, 0) ORDER BY g.id)
               INTO ancs, ns, ks
               FROM (SELECT id, count(*) AS n FROM unnest(up) AS u(id) GROUP BY id) g
               LEFT JOIN (SELECT id, count(*) AS k FROM unnest(firsts) AS f(id) GROUP BY id) f
                 ON f.id = g.id;
             IF ancs IS NULL THEN RETURN NULL; END IF;
             PERFORM 1 FROM invite_tree WHERE user_id = ANY (ancs) ORDER BY user_id FOR UPDATE;
             UPDATE invite_tree t
               SET descendants = t.descendants + g.n, children = t.children + g.k
               FROM unnest(ancs, ns, ks) AS g(id, n, k)
               WHERE t.user_id = g.id;
             RETURN NULL;
           END $$`,
          `CREATE TRIGGER invite_tree_insert AFTER INSERT ON users
           REFERENCING NEW TABLE AS added
           FOR EACH STATEMENT EXECUTE FUNCTION invite_tree_added()`,
          `CREATE FUNCTION invite_tree_delete() RETURNS trigger LANGUAGE plpgsql
           SET plan_cache_mode = force_custom_plan AS $$
           DECLARE node invite_tree%ROWTYPE; initial text; cur text; up text[] := '{}';
           BEGIN
             SELECT * INTO node FROM invite_tree WHERE user_id = OLD.id;
             IF NOT FOUND THEN RETURN NULL; END IF;
             SELECT id INTO initial FROM users WHERE is_initial_user = 1;
             cur := node.parent_id;
             WHILE cur IS NOT NULL LOOP
               up := up || cur;
               SELECT parent_id INTO cur FROM invite_tree WHERE user_id = cur;
             END LOOP;
             PERFORM 1 FROM invite_tree
               WHERE user_id = ANY (up || initial) OR parent_id = OLD.id
               ORDER BY user_id FOR UPDATE;
             -- Its branch leaves its inviters' branches; its invitees hang under the initial user.
             UPDATE invite_tree
               SET descendants = descendants - 1 - node.descendants,
                   children = children - (CASE WHEN user_id = node.parent_id THEN 1 ELSE 0 END)
               WHERE user_id = ANY (up);
             UPDATE invite_tree
               SET children = children + node.children,
                   descendants = descendants + node.descendants
               WHERE user_id = initial;
             UPDATE invite_tree SET parent_id = initial WHERE parent_id = OLD.id;
             DELETE FROM invite_tree WHERE user_id = OLD.id;
             RETURN NULL;
           END $$`,
          // Deletions come one account at a time: a row trigger.
          `CREATE TRIGGER invite_tree_delete AFTER DELETE ON users
           FOR EACH ROW EXECUTE FUNCTION invite_tree_delete()`,
        );
        return;
      }

      // SQLite: FTS5 with the trigram tokenizer answers `email LIKE '%…%'` (3 characters or more)
      // from its index. Its rows are found again by the email itself (a LIKE on the index) and
      // the id, not by rowid: `users` has no INTEGER PRIMARY KEY, so VACUUM may renumber rowids.
      const forget = (row: 'old') =>
        `DELETE FROM users_email_search WHERE rowid IN (
           SELECT rowid FROM users_email_search WHERE email LIKE ${row}.email AND id = ${row}.id)`;
      await run(
        `CREATE VIRTUAL TABLE users_email_search
           USING fts5(email, id UNINDEXED, tokenize = 'trigram', detail = 'none')`,
        `INSERT INTO users_email_search (email, id) SELECT email, id FROM users`,
        `CREATE TRIGGER users_email_search_insert AFTER INSERT ON users BEGIN
           INSERT INTO users_email_search (email, id) VALUES (new.email, new.id);
         END`,
        `CREATE TRIGGER users_email_search_update AFTER UPDATE OF email ON users
         WHEN new.email IS NOT old.email BEGIN
           ${forget('old')};
           INSERT INTO users_email_search (email, id) VALUES (new.email, new.id);
         END`,
        `CREATE TRIGGER users_email_search_delete AFTER DELETE ON users BEGIN
           ${forget('old')};
         END`,
        `CREATE TRIGGER member_counts_insert AFTER INSERT ON users BEGIN
           UPDATE member_counts SET n = n + 1 WHERE status = ${status('new')};
         END`,
        `CREATE TRIGGER member_counts_delete AFTER DELETE ON users BEGIN
           UPDATE member_counts SET n = n - 1 WHERE status = ${status('old')};
         END`,
        `CREATE TRIGGER member_counts_update AFTER UPDATE OF verified, disabled ON users
         WHEN ${status('old')} <> ${status('new')} BEGIN
           UPDATE member_counts SET n = n - 1 WHERE status = ${status('old')};
           UPDATE member_counts SET n = n + 1 WHERE status = ${status('new')};
         END`,
        // SQLite allows no WITH inside a trigger, but a trigger may read a view that has one:
        // the trigger writes the member into invite_tree_cursor, the view walks up from there.
        `CREATE TABLE invite_tree_cursor (k INTEGER PRIMARY KEY, user_id TEXT NOT NULL)`,
        `CREATE VIEW invite_tree_cursor_ancestors AS
         WITH RECURSIVE up(id) AS (
           SELECT parent_id FROM invite_tree
           WHERE user_id = (SELECT user_id FROM invite_tree_cursor WHERE k = 1)
           UNION
           SELECT t.parent_id FROM invite_tree t JOIN up ON t.user_id = up.id
           WHERE t.parent_id IS NOT NULL)
         SELECT id FROM up WHERE id IS NOT NULL`,
        `CREATE TRIGGER invite_tree_insert AFTER INSERT ON users BEGIN
           INSERT INTO invite_tree (user_id, parent_id, created, children, descendants)
           VALUES (new.id,
                   CASE WHEN new.invited_by IS NULL THEN NULL
                        WHEN EXISTS (SELECT 1 FROM users p WHERE p.id = new.invited_by)
                          THEN new.invited_by
                        ELSE (SELECT i.id FROM users i WHERE i.is_initial_user = 1) END,
                   new.created, 0, 0);
           UPDATE invite_tree SET children = children + 1
             WHERE user_id = (SELECT parent_id FROM invite_tree WHERE user_id = new.id);
           INSERT OR REPLACE INTO invite_tree_cursor (k, user_id) VALUES (1, new.id);
           UPDATE invite_tree SET descendants = descendants + 1
             WHERE user_id IN (SELECT id FROM invite_tree_cursor_ancestors);
           DELETE FROM invite_tree_cursor;
         END`,
        `CREATE TRIGGER invite_tree_delete AFTER DELETE ON users BEGIN
           INSERT OR REPLACE INTO invite_tree_cursor (k, user_id) VALUES (1, old.id);
           UPDATE invite_tree
             SET descendants = descendants - 1
                               - (SELECT d.descendants FROM invite_tree d WHERE d.user_id = old.id)
             WHERE user_id IN (SELECT id FROM invite_tree_cursor_ancestors);
           DELETE FROM invite_tree_cursor;
           UPDATE invite_tree SET children = children - 1
             WHERE user_id = (SELECT parent_id FROM invite_tree WHERE user_id = old.id);
           UPDATE invite_tree
             SET children = children
                            + (SELECT d.children FROM invite_tree d WHERE d.user_id = old.id),
                 descendants = descendants
                               + (SELECT d.descendants FROM invite_tree d WHERE d.user_id = old.id)
             WHERE user_id = (SELECT i.id FROM users i WHERE i.is_initial_user = 1);
           UPDATE invite_tree SET parent_id = (SELECT i.id FROM users i WHERE i.is_initial_user = 1)
             WHERE parent_id = old.id;
           DELETE FROM invite_tree WHERE user_id = old.id;
         END`,
      );
    },
  },
  // "Confirm it's you" (docs/decisions/0046): when the session last proved who is behind it (its
  // sign-in, or a re-authentication). Sessions made before count from their sign-in.
  '0011_session_confirmed_at': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('sessions').addColumn('confirmed_at', 'text').execute();
      await (db as Kysely<Database>)
        .updateTable('sessions')
        .set((eb) => ({ confirmed_at: eb.ref('created') }))
        .execute();
    },
  },
};

const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateToLatest());
}

/** Brings a database exactly to `name` (upgrade tests start from an older schema this way). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  db: Kysely<Database>,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : '';
    throw new Error(`Database migration failed${name}: ${String(error)}`, { cause: error });
  }
}
