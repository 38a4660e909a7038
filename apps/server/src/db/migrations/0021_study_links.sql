CREATE TABLE "study_link_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"link_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"recipient" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "study_link_credentials_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "study_link_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"link_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"credential_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"body" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "study_link_files_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "study_link_studies" (
	"link_id" uuid NOT NULL,
	"study_id" uuid NOT NULL,
	CONSTRAINT "study_link_studies_link_id_study_id_pk" PRIMARY KEY("link_id","study_id")
);
--> statement-breakpoint
CREATE TABLE "study_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"manifest_id" text NOT NULL,
	"sealed_key" text NOT NULL,
	"mode" text NOT NULL,
	"label" text,
	"sealed_passcode" text,
	"passcode_attempts_left" integer NOT NULL,
	"allow_download" boolean DEFAULT false NOT NULL,
	"max_opens" integer,
	"opens" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"paused_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"last_opened_at" timestamp with time zone,
	"last_recipient" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "study_links_manifest_id_unique" UNIQUE("manifest_id")
);
--> statement-breakpoint
ALTER TABLE "viewer_grants" ADD COLUMN "link_credential_id" uuid;--> statement-breakpoint
ALTER TABLE "study_link_credentials" ADD CONSTRAINT "study_link_credentials_link_id_study_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."study_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_link_files" ADD CONSTRAINT "study_link_files_link_id_study_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."study_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_link_files" ADD CONSTRAINT "study_link_files_credential_id_study_link_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."study_link_credentials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_link_studies" ADD CONSTRAINT "study_link_studies_link_id_study_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."study_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_link_studies" ADD CONSTRAINT "study_link_studies_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_links" ADD CONSTRAINT "study_links_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "study_link_credentials_link_idx" ON "study_link_credentials" USING btree ("link_id");--> statement-breakpoint
CREATE INDEX "study_link_files_link_idx" ON "study_link_files" USING btree ("link_id");--> statement-breakpoint
CREATE INDEX "study_link_studies_study_idx" ON "study_link_studies" USING btree ("study_id");--> statement-breakpoint
CREATE INDEX "study_links_owner_idx" ON "study_links" USING btree ("owner_id","created_at");--> statement-breakpoint
ALTER TABLE "viewer_grants" ADD CONSTRAINT "viewer_grants_link_credential_id_study_link_credentials_id_fk" FOREIGN KEY ("link_credential_id") REFERENCES "public"."study_link_credentials"("id") ON DELETE cascade ON UPDATE no action;