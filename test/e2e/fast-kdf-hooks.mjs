// Module resolution hook for the e2e test processes (see fast-kdf.ts): keys.ts's import of kdf.ts
// resolves to the stand-in; every other importer, the stand-in itself included, gets the real kdf.ts.
const KDF = '/electron/core/vault/kdf.ts';
const KEYS = '/electron/core/vault/keys.ts';
const STAND_IN = new URL('./fast-kdf.ts', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (context.parentURL?.endsWith(KEYS) && result.url.endsWith(KDF)) return { ...result, url: STAND_IN };
  return result;
}
