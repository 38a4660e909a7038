CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"inviter_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"email" text,
	"allowed_roles" text[] DEFAULT '{patient}'::text[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"used_at" timestamp with time zone,
	"used_by" uuid,
	"uploads" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ownership_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"study_id" uuid NOT NULL,
	"requester_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"specialty" text,
	"description" text,
	"years_of_experience" text,
	"rating" real,
	"credentials" text[] DEFAULT '{}'::text[] NOT NULL,
	"location" jsonb,
	"academic_profile" jsonb,
	"email" text NOT NULL,
	"email_normalized" text NOT NULL,
	"mobile" text,
	"website" text,
	"working_hours" jsonb,
	"listed" text DEFAULT 'directory' NOT NULL,
	"created_by" uuid,
	"linked_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "study_shares" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"study_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"email" text NOT NULL,
	"email_normalized" text NOT NULL,
	"target_user_id" uuid,
	"provider_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"first_opened_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "user_providers" (
	"user_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_providers_user_id_provider_id_pk" PRIMARY KEY("user_id","provider_id")
);
--> statement-breakpoint
ALTER TABLE "study_uploads" ADD COLUMN "uploaded_by" uuid;--> statement-breakpoint
ALTER TABLE "study_uploads" ADD COLUMN "invitation_id" uuid;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_inviter_id_users_id_fk" FOREIGN KEY ("inviter_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_used_by_users_id_fk" FOREIGN KEY ("used_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ownership_requests" ADD CONSTRAINT "ownership_requests_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ownership_requests" ADD CONSTRAINT "ownership_requests_requester_id_users_id_fk" FOREIGN KEY ("requester_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ownership_requests" ADD CONSTRAINT "ownership_requests_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_linked_user_id_users_id_fk" FOREIGN KEY ("linked_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_shares" ADD CONSTRAINT "study_shares_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_shares" ADD CONSTRAINT "study_shares_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_shares" ADD CONSTRAINT "study_shares_target_user_id_users_id_fk" FOREIGN KEY ("target_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_shares" ADD CONSTRAINT "study_shares_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_providers" ADD CONSTRAINT "user_providers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_providers" ADD CONSTRAINT "user_providers_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invitations_inviter_idx" ON "invitations" USING btree ("inviter_id","kind","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ownership_requests_open_key" ON "ownership_requests" USING btree ("study_id","requester_id") WHERE "ownership_requests"."status" = 'open';--> statement-breakpoint
CREATE INDEX "providers_email_idx" ON "providers" USING btree ("email_normalized");--> statement-breakpoint
CREATE UNIQUE INDEX "providers_directory_email_key" ON "providers" USING btree ("email_normalized") WHERE "providers"."listed" = 'directory';--> statement-breakpoint
CREATE UNIQUE INDEX "providers_contact_email_key" ON "providers" USING btree ("created_by","email_normalized") WHERE "providers"."listed" = 'contact';--> statement-breakpoint
CREATE UNIQUE INDEX "study_shares_active_email_key" ON "study_shares" USING btree ("study_id","email_normalized") WHERE "study_shares"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "study_shares_target_idx" ON "study_shares" USING btree ("target_user_id","study_id") WHERE "study_shares"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "study_shares_pending_email_idx" ON "study_shares" USING btree ("email_normalized") WHERE "study_shares"."target_user_id" is null and "study_shares"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "study_shares_study_idx" ON "study_shares" USING btree ("study_id","created_at");--> statement-breakpoint
CREATE INDEX "study_shares_provider_idx" ON "study_shares" USING btree ("provider_id","owner_id");--> statement-breakpoint
ALTER TABLE "study_uploads" ADD CONSTRAINT "study_uploads_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Shared Studies lists are cached per recipient (modules/sharing/shared-list-cache.ts): any change
-- to a share names the recipients whose list it touches, in the same transaction.
CREATE FUNCTION "notify_shared_list_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only who receives it, whether it is live and whose study it is change a recipient's list.
  IF TG_OP = 'UPDATE' AND NEW."target_user_id" IS NOT DISTINCT FROM OLD."target_user_id"
     AND NEW."revoked_at" IS NOT DISTINCT FROM OLD."revoked_at"
     AND NEW."owner_id" IS NOT DISTINCT FROM OLD."owner_id" THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' AND OLD."target_user_id" IS NOT NULL THEN
    PERFORM pg_notify('shared_list_changed', OLD."target_user_id"::text);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW."target_user_id" IS NOT NULL THEN
    PERFORM pg_notify('shared_list_changed', NEW."target_user_id"::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "study_shares_notify_change" AFTER INSERT OR UPDATE OR DELETE ON "study_shares"
  FOR EACH ROW EXECUTE FUNCTION "notify_shared_list_change"();
