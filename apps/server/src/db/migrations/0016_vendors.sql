CREATE TABLE "vendor_callbacks" (
	"signature_hash" text PRIMARY KEY NOT NULL,
	"provider_id" uuid NOT NULL,
	"order_id" uuid,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vendor_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"order_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"study_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "vendor_webhook_url" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "vendor_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "vendor_secret_created_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_fulfilments" ADD COLUMN "automated_report_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_fulfilments" ADD COLUMN "automated_report_pdf_key" text;--> statement-breakpoint
ALTER TABLE "order_fulfilments" ADD COLUMN "automated_report_series_uid" text;--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vendor_callbacks" ADD CONSTRAINT "vendor_callbacks_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_credentials" ADD CONSTRAINT "vendor_credentials_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_credentials" ADD CONSTRAINT "vendor_credentials_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_credentials" ADD CONSTRAINT "vendor_credentials_study_id_studies_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vendor_credentials_token_key" ON "vendor_credentials" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "vendor_credentials_order_idx" ON "vendor_credentials" USING btree ("order_id");