import type { Kysely, Migration } from 'kysely';

/**
 * A filter on `verified` with a range of `created` (PocketBase's record list and the Members
 * table, `verified = true && created > "…"`), counted for its total up to 10,001 matches: with
 * this index the count reads the matching index entries alone (on PostgreSQL an index-only scan of
 * ~90 pages at a million members); without it PostgreSQL's planner, expecting matches spread
 * evenly, read the table from its start past half a million older members (~19,000 pages)
 * before the first match (bench/README.md, docs/decisions/0052).
 */
export const usersVerifiedCreated: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('users_verified_created')
      .on('users')
      .columns(['verified', 'created', 'id'])
      .execute();
  },
};
