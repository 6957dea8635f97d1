/**
 * `npm run test:deep` sets MNEMO_DEEP=1: the long attack loops (hundreds of
 * kills, every byte, every crash point, hostile fuzz) run at full size. Under
 * `npm test` they run a sample: one half picked by a fixed seed (the same
 * every run) and one half by a random seed that is printed, so a failure can
 * be replayed with MNEMO_SEED=<seed>.
 */
export const DEEP = process.env.MNEMO_DEEP === '1';

/** The seed the fixed half of every sample uses. */
export const FIXED_SEED = 1;

/** MNEMO_SEED if set, else a fresh random seed; printed with `what` so a failing sample can be replayed. */
export function randomSeed(what: string): number {
  const fromEnv = process.env.MNEMO_SEED;
  const seed = fromEnv ? Number(fromEnv) >>> 0 : Math.floor(Math.random() * 2 ** 31);
  console.log(`${what}: random seed ${seed} (replay with MNEMO_SEED=${seed})`);
  return seed;
}

/** A small seeded PRNG (mulberry32) returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * All of `items` under MNEMO_DEEP, else about `n` of them (in their original
 * order): half by FIXED_SEED, the rest by `seed` (from randomSeed).
 */
export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  if (DEEP || n >= items.length) return [...items];
  const picked = new Set<number>();
  const pick = (rand: () => number, count: number) => {
    for (let tries = 0; picked.size < count && tries < 100 * items.length; tries++) picked.add(Math.floor(rand() * items.length));
  };
  pick(prng(FIXED_SEED), Math.ceil(n / 2));
  pick(prng(seed), n);
  return [...picked].sort((a, b) => a - b).map((i) => items[i]!);
}

/**
 * All of `always` and `rest` under MNEMO_DEEP; else `always` plus `n` of `rest` picked by `seed` alone (so
 * each of `rest` is taken in turn across runs), in their original order. For the per-language specs:
 * one language per run by the printed seed, all five in `npm run test:deep`.
 */
export function rotate<A, B>(always: readonly A[], rest: readonly B[], n: number, seed: number): (A | B)[] {
  if (DEEP || n >= rest.length) return [...always, ...rest];
  const rand = prng(seed);
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(rand() * rest.length));
  return [...always, ...rest.filter((_, i) => picked.has(i))];
}
