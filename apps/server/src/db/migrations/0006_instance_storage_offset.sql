DROP INDEX "instances_storage_key_key";--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "storage_offset" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "instances_storage_location_key" ON "instances" USING btree ("storage_key","storage_offset");