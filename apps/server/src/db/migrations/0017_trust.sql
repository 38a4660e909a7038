CREATE TABLE "provider_ratings" (
	"order_id" uuid PRIMARY KEY NOT NULL,
	"provider_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"stars" integer NOT NULL,
	"comment" text,
	"comment_hidden_at" timestamp with time zone,
	"comment_hidden_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_ratings_stars" CHECK ("provider_ratings"."stars" between 1 and 5)
);
--> statement-breakpoint
DROP INDEX "providers_directory_email_key";--> statement-breakpoint
ALTER TABLE "professional_profiles" ADD COLUMN "offers_paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "kind" text DEFAULT 'organisation' NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "demo" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "analysis_services" ADD COLUMN "default_price_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "service_offers" ADD COLUMN "turnaround" text;--> statement-breakpoint
ALTER TABLE "service_offers" ADD COLUMN "modalities" text[];--> statement-breakpoint
ALTER TABLE "service_offers" ADD COLUMN "retired_by" text;--> statement-breakpoint
ALTER TABLE "provider_ratings" ADD CONSTRAINT "provider_ratings_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_ratings" ADD CONSTRAINT "provider_ratings_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_ratings" ADD CONSTRAINT "provider_ratings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "provider_ratings_provider_idx" ON "provider_ratings" USING btree ("provider_id");--> statement-breakpoint
CREATE UNIQUE INDEX "providers_professional_key" ON "providers" USING btree ("linked_user_id") WHERE "providers"."kind" = 'professional';--> statement-breakpoint
CREATE UNIQUE INDEX "providers_directory_email_key" ON "providers" USING btree ("email_normalized") WHERE "providers"."listed" = 'directory' and "providers"."kind" <> 'professional';--> statement-breakpoint
-- The fictional practitioners and clinics earlier installations were seeded with leave the directory:
-- nobody could deliver their readings. Retired, not deleted, so past orders keep their provider.
UPDATE "providers" SET "retired_at" = now(), "updated_at" = now()
WHERE "listed" = 'directory' AND "retired_at" IS NULL AND "linked_user_id" IS NULL AND "vendor_webhook_url" IS NULL
  AND "email_normalized" IN ('amelia.hartwell@example.org','rafael.quintero@example.org','hannah.whitaker@example.net','kenji.morimoto@example.org','sofia.lindqvist@example.net','northgate.reports@example.org','priya.raman@example.org','thomas.becker@example.net','grace.mensah@example.org','luca.bianchi@example.org','eleanor.fitzgerald@example.net','ahmed.elsayed@example.org','isabelle.laurent@example.org','marcus.oyelaran@example.net','chloe.tremblay@example.org','daniel.okonkwo@example.org','mei.chen@example.net','oliver.brandt@example.org','nadia.haddad@example.net','samuel.adeyemi@example.org','laura.jensen@example.net','rohan.kapoor@example.org','ana.ribeiro@example.org','harbourview.reads@example.net');
--> statement-breakpoint
-- The product's list prices: what a new offer of each service starts from.
UPDATE "analysis_services" SET "default_price_cents" = CASE "name"
  WHEN 'AI Quick Analysis' THEN 4999 WHEN 'Expert Review' THEN 19999 WHEN 'Complete Analysis Package' THEN 24999
  ELSE coalesce((SELECT min("price_cents") FROM "service_offers" o WHERE o."service_id" = "analysis_services"."id"), 0) END;
--> statement-breakpoint
CREATE VIEW "provider_fulfillers" AS
SELECT p."id" AS "provider_id",
  (p."kind" = 'automated' OR (p."vendor_webhook_url" IS NOT NULL AND p."vendor_secret_sealed" IS NOT NULL)) AS "automates",
  EXISTS (
    SELECT 1 FROM "users" u JOIN "professional_profiles" pp ON pp."user_id" = u."id"
    WHERE u."id" = p."linked_user_id" AND u."role" = 'professional' AND u."account_status" = 'active'
      AND u."email_verified_at" IS NOT NULL AND pp."offers_paused_at" IS NULL
  ) AS "reads"
FROM "providers" p;
--> statement-breakpoint
CREATE VIEW "sellable_offers" AS
SELECT o."service_id", o."provider_id", o."price_cents",
  coalesce(o."turnaround", s."typical_time") AS "turnaround",
  coalesce(o."modalities", s."supported_modalities") AS "modalities"
FROM "service_offers" o
JOIN "analysis_services" s ON s."id" = o."service_id"
JOIN "providers" p ON p."id" = o."provider_id"
JOIN "provider_fulfillers" f ON f."provider_id" = p."id"
WHERE o."retired_at" IS NULL AND s."retired_at" IS NULL AND p."retired_at" IS NULL AND p."listed" = 'directory'
  AND (p."kind" <> 'professional' OR p."published_at" IS NOT NULL)
  AND CASE WHEN s."type" = 'AI' THEN f."automates" ELSE f."reads" END;
