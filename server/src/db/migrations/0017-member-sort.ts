import { sql, type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * The Members table's sort by two-step sign-in, last sign-in and inviter at a million members
 * (docs/decisions/0057): one row per member holding what those columns show, kept by triggers
 * (every way a row changes, the API, the CLI, an import, keeps it right), each with an index in
 * the list's order so a page reads 30 entries of it, not every member. Kept apart from `users`:
 * a sign-in writing to `users` would run that table's own triggers (the kept counts) each time.
 * `last_sign_in` and `inviter_email` are NULL for a member who never signed in or has no inviter
 * on record; the list puts them first going up and last going down, on both databases (SQLite's
 * own order, asked for explicitly on PostgreSQL, whose indexes here are built that way).
 */
export const memberSort: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    const run = async (...statements: string[]) => {
      for (const statement of statements) await sql.raw(statement).execute(db);
    };
    await db.schema
      .createTable('member_sort')
      .addColumn('user_id', 'text', (c) => c.primaryKey())
      .addColumn('two_step', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_sign_in', 'text')
      .addColumn('inviter_email', 'text')
      .execute();
    await run(
      `INSERT INTO member_sort (user_id, two_step, last_sign_in, inviter_email)
       SELECT u.id,
              CASE WHEN EXISTS (SELECT 1 FROM two_step t WHERE t.user_id = u.id AND t.enabled = 1)
                   THEN 1 ELSE 0 END,
              (SELECT max(e.created) FROM security_events e
                WHERE e.user_id = u.id AND e.type = 'sign_in' AND e.outcome = 'success'),
              (SELECT i.email FROM users i WHERE i.id = u.invited_by)
       FROM users u`,
    );
    const nulls = postgres ? ' NULLS FIRST' : '';
    await run(
      `CREATE INDEX member_sort_two_step ON member_sort (two_step, user_id)`,
      `CREATE INDEX member_sort_last_sign_in ON member_sort (last_sign_in${nulls}, user_id)`,
      `CREATE INDEX member_sort_inviter_email ON member_sort (inviter_email${nulls}, user_id)`,
    );

    // What each trigger does, in both dialects' bodies.
    const inserted = (row: string) =>
      `INSERT INTO member_sort (user_id, inviter_email)
         VALUES (${row}.id, (SELECT email FROM users WHERE id = ${row}.invited_by))`;
    const emailChanged = (row: string) =>
      `UPDATE member_sort SET inviter_email = ${row}.email
         WHERE user_id IN (SELECT id FROM users WHERE invited_by = ${row}.id)`;
    const inviterChanged = (row: string) =>
      `UPDATE member_sort SET inviter_email = (SELECT email FROM users WHERE id = ${row}.invited_by)
         WHERE user_id = ${row}.id`;
    const deleted = (row: string) =>
      `DELETE FROM member_sort WHERE user_id = ${row}.id;
       UPDATE member_sort SET inviter_email = NULL
         WHERE user_id IN (SELECT id FROM users WHERE invited_by = ${row}.id)`;
    const twoStep = (row: string, value: string) =>
      `UPDATE member_sort SET two_step = ${value} WHERE user_id = ${row}.user_id`;
    const signedIn = (row: string) =>
      `UPDATE member_sort SET last_sign_in = ${row}.created
         WHERE user_id = ${row}.user_id AND (last_sign_in IS NULL OR last_sign_in < ${row}.created)`;
    const isSignIn = (row: string) =>
      `${row}.type = 'sign_in' AND ${row}.outcome = 'success' AND ${row}.user_id IS NOT NULL`;

    const triggers: Array<{
      name: string;
      on: string;
      when: string;
      body: string;
      condition?: string;
      row: 'NEW' | 'OLD';
    }> = [
      {
        name: 'member_sort_user_insert',
        on: 'users',
        when: 'AFTER INSERT',
        row: 'NEW',
        body: inserted('NEW'),
      },
      {
        name: 'member_sort_user_email',
        on: 'users',
        when: 'AFTER UPDATE OF email',
        row: 'NEW',
        body: emailChanged('NEW'),
        condition: 'OLD.email <> NEW.email',
      },
      {
        name: 'member_sort_user_inviter',
        on: 'users',
        when: 'AFTER UPDATE OF invited_by',
        row: 'NEW',
        body: inviterChanged('NEW'),
      },
      {
        name: 'member_sort_user_delete',
        on: 'users',
        when: 'AFTER DELETE',
        row: 'OLD',
        body: deleted('OLD'),
      },
      {
        name: 'member_sort_two_step_insert',
        on: 'two_step',
        when: 'AFTER INSERT',
        row: 'NEW',
        body: twoStep('NEW', 'NEW.enabled'),
      },
      {
        name: 'member_sort_two_step_update',
        on: 'two_step',
        when: 'AFTER UPDATE OF enabled',
        row: 'NEW',
        body: twoStep('NEW', 'NEW.enabled'),
      },
      {
        name: 'member_sort_two_step_delete',
        on: 'two_step',
        when: 'AFTER DELETE',
        row: 'OLD',
        body: twoStep('OLD', '0'),
      },
      {
        name: 'member_sort_sign_in',
        on: 'security_events',
        when: 'AFTER INSERT',
        row: 'NEW',
        body: signedIn('NEW'),
        condition: isSignIn('NEW'),
      },
    ];
    for (const t of triggers) {
      if (postgres && t.name === 'member_sort_user_insert') {
        // A statement trigger, as the kept counts' (0010): an import of many members joins them
        // to their inviters once, not one lookup each.
        await run(
          `CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO member_sort (user_id, inviter_email)
               SELECT a.id, i.email FROM added a LEFT JOIN users i ON i.id = a.invited_by;
             RETURN NULL;
           END $$`,
          `CREATE TRIGGER ${t.name} AFTER INSERT ON users REFERENCING NEW TABLE AS added
           FOR EACH STATEMENT EXECUTE FUNCTION ${t.name}()`,
        );
      } else if (postgres) {
        await run(
          `CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             ${t.body};
             RETURN NULL;
           END $$`,
          `CREATE TRIGGER ${t.name} ${t.when} ON ${t.on} FOR EACH ROW
           ${t.condition ? `WHEN (${t.condition})` : ''} EXECUTE FUNCTION ${t.name}()`,
        );
      } else {
        await run(
          `CREATE TRIGGER ${t.name} ${t.when} ON ${t.on} FOR EACH ROW
           ${t.condition ? `WHEN ${t.condition}` : ''} BEGIN ${t.body}; END`,
        );
      }
    }
  },
};
