CREATE TABLE "instances" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"study_id" uuid NOT NULL,
	"series_id" uuid NOT NULL,
	"sop_instance_uid" text NOT NULL,
	"sop_class_uid" text,
	"instance_number" integer,
	"transfer_syntax_uid" text,
	"size_bytes" bigint NOT NULL,
	"crc32" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"read" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "series" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"study_id" uuid NOT NULL,
	"series_instance_uid" text NOT NULL,
	"modality" text,
	"series_number" integer,
	"series_description" text,
	"body_part" text,
	"instance_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "studies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"study_instance_uid" text NOT NULL,
	"patient_name" text,
	"patient_id" text,
	"patient_birth_date" date,
	"patient_sex" text,
	"patient_age" text,
	"study_date" date,
	"study_time" text,
	"study_description" text,
	"accession_number" text,
	"institution_name" text,
	"body_part" text,
	"modalities" text[] DEFAULT '{}'::text[] NOT NULL,
	"process_status" text DEFAULT 'completed' NOT NULL,
	"process_reason" text,
	"transfer_status" text,
	"series_count" integer DEFAULT 0 NOT NULL,
	"instance_count" integer DEFAULT 0 NOT NULL,
	"size_bytes" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "study_uploads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"object_name" text NOT NULL,
	"upload_type" text DEFAULT 'regular' NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"job_id" text,
	"reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"size_bytes" bigint,
	"summary" jsonb,
	"study_ids" uuid[],
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "upload_objects" (
	"upload_id" uuid NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_objects_upload_id_storage_key_pk" PRIMARY KEY("upload_id","storage_key")
);
--> statement-breakpoint
ALTER TABLE "instances" ADD CONSTRAINT "instances_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "instances" ADD CONSTRAINT "instances_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "series" ADD CONSTRAINT "series_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "studies" ADD CONSTRAINT "studies_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_uploads" ADD CONSTRAINT "study_uploads_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upload_objects" ADD CONSTRAINT "upload_objects_upload_id_study_uploads_id_fk" FOREIGN KEY ("upload_id") REFERENCES "public"."study_uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "instances_study_sop_key" ON "instances" USING btree ("study_id","sop_instance_uid");--> statement-breakpoint
CREATE INDEX "instances_series_idx" ON "instances" USING btree ("series_id");--> statement-breakpoint
CREATE UNIQUE INDEX "instances_storage_key_key" ON "instances" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "notifications_user_created_idx" ON "notifications" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "series_study_uid_key" ON "series" USING btree ("study_id","series_instance_uid");--> statement-breakpoint
CREATE UNIQUE INDEX "studies_owner_uid_key" ON "studies" USING btree ("owner_id","study_instance_uid");--> statement-breakpoint
CREATE INDEX "studies_owner_status_created_idx" ON "studies" USING btree ("owner_id","process_status","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE UNIQUE INDEX "study_uploads_object_name_key" ON "study_uploads" USING btree ("object_name");--> statement-breakpoint
CREATE INDEX "study_uploads_owner_idx" ON "study_uploads" USING btree ("owner_id","created_at");