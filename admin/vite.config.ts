import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built by `npm run build:admin` into admin/dist; the service serves it at /admin/ (ServiceConfig.adminDir).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  plugins: [react()],
  logLevel: 'warn',
  // One chunk: react-admin and MUI are most of it, and every page needs them (docs/benchmarks.md, "The admin: bundle size and first load").
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
  // `npm run dev:admin` proxies the API to a running service (npm start).
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
