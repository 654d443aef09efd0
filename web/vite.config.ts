import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Two pages, one build: web/app/index.html (the personal account, served at /app) and web/admin/index.html (the
 * operator console, at /admin), written to dist/public with their hashed scripts and styles in dist/public/assets,
 * which Herald serves at /web-assets/ (src/web/webRoutes.ts). No CDN: everything is bundled.
 */
export default defineConfig({
  root,
  base: '/web-assets/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../dist/public', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Small pages: no inlined data URLs, so the Content-Security-Policy stays strict and every asset is cacheable.
    assetsInlineLimit: 0,
    sourcemap: true,
    rollupOptions: {
      input: {
        app: fileURLToPath(new URL('app/index.html', import.meta.url)),
        admin: fileURLToPath(new URL('admin/index.html', import.meta.url)),
      },
    },
  },
  experimental: {
    // Assets live in dist/public/assets but are served at /web-assets/<name>, without the folder.
    renderBuiltUrl: (filename) => `/web-assets/${filename.replace(/^assets\//, '')}`,
  },
});
