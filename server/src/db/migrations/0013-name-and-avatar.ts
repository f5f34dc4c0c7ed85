import { type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * A name and a face (docs/decisions/0050): PocketBase's `name` and `avatar` fields on the users
 * record ('' when unset), and the table that holds members' files on PostgreSQL, where every
 * instance must serve them. On SQLite the files live in DATA_DIR/files and the table stays empty
 * (a backup carries them in it: server/src/cli.ts).
 */
export const nameAndAvatar: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('avatar', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await db.schema
      .createTable('member_files')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      // The file's name as the record holds it (`name_random10.ext`).
      .addColumn('name', 'text', (c) => c.notNull())
      // '' for the file itself; a thumb's size (`100x100`) for a thumb made of it.
      .addColumn('variant', 'text', (c) => c.notNull())
      .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('member_files_pkey', ['user_id', 'name', 'variant'])
      .execute();
  },
};
