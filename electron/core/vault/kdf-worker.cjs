/**
 * The Argon2id worker started by kdf.ts. Plain CommonJS so one file serves
 * both ways Mnemo runs: from the source tree (tests, CLI) it loads libsodium
 * from node_modules; for the app, vite bundles libsodium into a copy of this
 * file beside the main bundle, so it runs from inside app.asar with nothing
 * unpacked and stays under the archive's integrity check.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, so the same file runs unbundled and bundles with libsodium's CommonJS build */
const { parentPort, workerData } = require('node:worker_threads');
const sodium = require('libsodium-wrappers-sumo');

sodium.ready.then(() => {
  const { password, salt, opslimit, memlimit } = workerData;
  try {
    const start = performance.now();
    const key = sodium.crypto_pwhash(32, password, salt, opslimit, memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13);
    const ms = performance.now() - start;
    sodium.memzero(password);
    parentPort.postMessage({ key, ms }, [key.buffer]);
  } catch {
    sodium.memzero(password);
    parentPort.postMessage({ error: 'derivation failed' });
  }
});
