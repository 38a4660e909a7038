ALTER TABLE "studies" ADD COLUMN "deidentified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "deidentification" jsonb;