-- A study prepared for the viewer (transfer_status 'completed': series metadata built, or the study
-- pushed to the external DICOMweb store) is no longer prepared once instances are added to it or
-- replaced, whichever module or process writes them: the next view prepares it again. A running
-- preparation sees the reset and goes round again (transfer-study.job.ts).
CREATE FUNCTION "reset_study_transfer"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "studies" SET "transfer_status" = NULL
    WHERE "transfer_status" IS NOT NULL AND "id" IN (SELECT DISTINCT "study_id" FROM "changed_instances");
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Once per statement (an ingest inserts instances in batches), with the rows it wrote.
CREATE TRIGGER "instances_reset_transfer_insert" AFTER INSERT ON "instances"
  REFERENCING NEW TABLE AS "changed_instances"
  FOR EACH STATEMENT EXECUTE FUNCTION "reset_study_transfer"();--> statement-breakpoint
CREATE TRIGGER "instances_reset_transfer_update" AFTER UPDATE ON "instances"
  REFERENCING NEW TABLE AS "changed_instances"
  FOR EACH STATEMENT EXECUTE FUNCTION "reset_study_transfer"();
