import { defineConfig } from 'vite';

// Relative asset paths: the page is served by Wails' asset server in the desktop window
// and by `plugboard serve` over HTTP, from the same embedded dist/ folder.
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
