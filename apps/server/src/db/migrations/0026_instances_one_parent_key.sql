CREATE UNIQUE INDEX "series_id_study_key" ON "series" USING btree ("id","study_id");--> statement-breakpoint
ALTER TABLE "instances" DROP CONSTRAINT "instances_study_id_studies_id_fk";
--> statement-breakpoint
ALTER TABLE "instances" DROP CONSTRAINT "instances_series_id_series_id_fk";
--> statement-breakpoint
DROP INDEX "instances_sop_idx";--> statement-breakpoint
ALTER TABLE "instances" ADD CONSTRAINT "instances_series_study_fk" FOREIGN KEY ("series_id","study_id") REFERENCES "public"."series"("id","study_id") ON DELETE cascade ON UPDATE no action;
