import { sql, type Kysely, type Migration, PostgresAdapter } from 'kysely';

/**
 * PostgreSQL only: every committed change to a user, a session or an invite code, by any
 * instance or the CLI, is announced on the events channel (core/events.ts) so that each
 * instance drops what its read cache holds about that member (docs/decisions/0039).
 */
export const changeNotifications: Migration = {
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
};
