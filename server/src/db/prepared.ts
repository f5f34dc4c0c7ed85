import type { Compilable, Kysely } from 'kysely';
import type { Database, User } from './schema.js';

/**
 * A query built and compiled once, then run with new parameter values. For the queries on every
 * authenticated request, Kysely's builder and compiler cost more than SQLite running the query;
 * compiled SQL is parameterised and dialect-specific, so this stays portable across databases.
 */
function prepare<Row, Args extends string[]>(
  db: Kysely<Database>,
  build: (...slots: Args) => Compilable<Row>,
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const slots = Array.from({ length: arity }, (_, i) => `\u0000slot:${i}`) as Args;
  const compiled = build(...slots).compile();
  const source = compiled.parameters.map((p) => (typeof p === 'string' ? slots.indexOf(p) : -1));
  return async (...args) => {
    const parameters = compiled.parameters.map((p, i) => (source[i]! >= 0 ? args[source[i]!] : p));
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}

/** The hot-path reads, compiled once per database handle. */
export function preparedQueries(db: Kysely<Database>) {
  const userById = prepare(
    db,
    (id: string) => db.selectFrom('users').selectAll().where('id', '=', id),
    1,
  );
  const unusedCodes = prepare(
    db,
    (ownerId: string) =>
      db
        .selectFrom('invite_codes')
        .select(['id', 'code', 'created'])
        .where('owner_id', '=', ownerId)
        .where('used_at', 'is', null)
        .orderBy('created', 'desc')
        .orderBy('id'),
    1,
  );
  return {
    userById: async (id: string): Promise<User | undefined> => (await userById(id))[0],
    unusedCodes,
  };
}

export type PreparedQueries = ReturnType<typeof preparedQueries>;
