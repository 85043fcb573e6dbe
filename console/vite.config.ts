import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web console: Preact, built into console/dist and served by the API process under /console/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, assetsInlineLimit: 0 },
  logLevel: 'warn',
});
