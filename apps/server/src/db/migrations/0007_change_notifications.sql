-- Caches in every API process (studies lists, sessions) are invalidated by notifications that the
-- database sends in the same transaction as the change, whichever module or process writes.
-- Study lists: the version bump stays (a process whose listener is down reads it instead).
CREATE OR REPLACE FUNCTION "bump_study_list_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO "study_list_versions" AS v ("owner_id", "version") VALUES (OLD."owner_id", 1)
      ON CONFLICT ("owner_id") DO UPDATE SET "version" = v."version" + 1;
    PERFORM pg_notify('study_list_changed', OLD."owner_id"::text);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."owner_id" IS DISTINCT FROM OLD."owner_id") THEN
    INSERT INTO "study_list_versions" AS v ("owner_id", "version") VALUES (NEW."owner_id", 1)
      ON CONFLICT ("owner_id") DO UPDATE SET "version" = v."version" + 1;
    PERFORM pg_notify('study_list_changed', NEW."owner_id"::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Sessions: any change but the activity timestamp (revocation, token rotation, deletion).
CREATE FUNCTION "notify_session_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'last_seen_at') = (to_jsonb(OLD) - 'last_seen_at') THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('auth_changed', 's:' || OLD."id"::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sessions_notify_change" AFTER UPDATE OR DELETE ON "sessions"
  FOR EACH ROW EXECUTE FUNCTION "notify_session_change"();--> statement-breakpoint
-- Users: any change (account status, role, profile, quota) reaches the cached copy of the account.
CREATE FUNCTION "notify_user_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', 'u:' || OLD."id"::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "users_notify_change" AFTER UPDATE OR DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "notify_user_change"();--> statement-breakpoint
CREATE FUNCTION "notify_auth_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', '*');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sessions_notify_truncate" AFTER TRUNCATE ON "sessions"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_truncate"();--> statement-breakpoint
CREATE TRIGGER "users_notify_truncate" AFTER TRUNCATE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_truncate"();
