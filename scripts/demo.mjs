// `npm run demo`: `npm start` with the labelled demo data (DEMO_DATA=true, apps/server/src/modules/demo/demo.service.ts).
process.env.DEMO_DATA = 'true';
await import('./start.mjs');
