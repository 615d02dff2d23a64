import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run build:examples` → examples/refine/dist, with relative asset URLs so that any path can
// serve it next to the service (the e2e test serves it at /refine/). `vite --config
// examples/refine/vite.config.ts` runs it against the demo (`npm start`) through the proxy.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 4096 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
