CREATE TABLE "study_list_versions" (
	"owner_id" uuid PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DROP INDEX "studies_owner_uid_key";--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "deleting_since" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "studies_deleting_idx" ON "studies" USING btree ("deleting_since") WHERE "studies"."deleting_since" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "studies_owner_uid_key" ON "studies" USING btree ("owner_id","study_instance_uid") WHERE "studies"."deleting_since" is null;--> statement-breakpoint
CREATE FUNCTION "bump_study_list_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO "study_list_versions" AS v ("owner_id", "version") VALUES (OLD."owner_id", 1)
      ON CONFLICT ("owner_id") DO UPDATE SET "version" = v."version" + 1;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."owner_id" IS DISTINCT FROM OLD."owner_id") THEN
    INSERT INTO "study_list_versions" AS v ("owner_id", "version") VALUES (NEW."owner_id", 1)
      ON CONFLICT ("owner_id") DO UPDATE SET "version" = v."version" + 1;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "studies_bump_list_version" AFTER INSERT OR UPDATE OR DELETE ON "studies"
  FOR EACH ROW EXECUTE FUNCTION "bump_study_list_version"();
