import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import { firstLoadBudget } from './scripts/first-load-budget';

// Where `vite` / `vite preview` send /api (the server's default port unless overridden).
const apiTarget = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:3000';

export default defineConfig({
  // firstLoadBudget fails the build when the first load grows past its budget (scripts/first-load-budget.ts).
  plugins: [react(), tailwindcss(), firstLoadBudget()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: { '/api': { target: apiTarget } },
  },
  preview: {
    proxy: { '/api': { target: apiTarget } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Nothing inlined as data: URLs, so a strict CSP (no data: scripts/workers) holds.
    assetsInlineLimit: 0,
  },
  worker: { format: 'es' },
});
