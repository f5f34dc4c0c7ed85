import { sql, type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * The operator console at a million members (docs/decisions/0031): the email search through a
 * trigram index, the list's totals kept by the writes, and the invite tree's branch sizes kept
 * by the writes. All three are maintained by triggers, so every way a row reaches `users` (the
 * API, the CLI, an import) keeps them right.
 */
export const memberSearch: Migration = {
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
};
