/**
 * One build for all three targets (Vite environments): the renderer (`client`),
 * the Electron main process (ESM) and the preload (CommonJS, because a
 * sandboxed preload cannot load ES modules), plus the key-derivation worker
 * with libsodium bundled in, so it loads from inside app.asar. Output in dist/.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;
// Node built-ins and runtime dependencies stay external to the main bundle; they ship in node_modules.
const external = ['electron', /^electron\//, /^node:/, ...builtinModules, 'libsodium-wrappers-sumo', 'fs-native-extensions', /^@anthropic-ai\/sdk/, 'zod', /^zod\//];

export default defineConfig({
  root: path.join(root, 'renderer'),
  base: './',
  plugins: [react()],
  builder: {},
  environments: {
    client: {
      build: {
        outDir: path.join(root, 'dist/renderer'),
        emptyOutDir: true,
        target: 'chrome130',
        sourcemap: false,
      },
    },
    main: {
      consumer: 'server',
      build: {
        outDir: path.join(root, 'dist/main'),
        emptyOutDir: true,
        target: 'node20',
        ssr: true,
        rolldownOptions: {
          input: path.join(root, 'electron/main/index.ts'),
          external,
          output: { format: 'es', entryFileNames: 'index.js' },
        },
      },
    },
    preload: {
      consumer: 'server',
      // A sandboxed preload can require only `electron`: everything else (zod) is bundled in.
      resolve: { noExternal: true },
      build: {
        outDir: path.join(root, 'dist/preload'),
        emptyOutDir: true,
        target: 'node20',
        ssr: true,
        rolldownOptions: {
          input: path.join(root, 'electron/preload/index.ts'),
          external: ['electron'],
          output: { format: 'cjs', entryFileNames: 'index.cjs' },
        },
      },
    },
    // Built after `main` (environments build in this order), into the same folder: kdf.ts looks
    // for the worker beside the main bundle. Everything but Node built-ins is bundled in.
    kdfWorker: {
      consumer: 'server',
      resolve: { noExternal: true },
      build: {
        outDir: path.join(root, 'dist/main'),
        emptyOutDir: false,
        target: 'node20',
        ssr: true,
        rolldownOptions: {
          input: path.join(root, 'electron/core/vault/kdf-worker.cjs'),
          external: [/^node:/, ...builtinModules],
          output: { format: 'cjs', entryFileNames: 'kdf-worker.cjs' },
        },
      },
    },
  },
});
