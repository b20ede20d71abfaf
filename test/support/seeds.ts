/**
 * Seeds for the randomized tests. `npm test` runs each on its fixed list, so CI is the same run every time; a
 * failure message names its seed. `FUZZ_SEEDS=1,2,3` (set by `npm run fuzz`) replaces every list, to explore new
 * seeds outside `npm test`. A seed that once failed goes into its test's list with the fix, so it is replayed
 * forever.
 */
export function seedsFor(fixed: readonly number[], env: NodeJS.ProcessEnv = process.env): number[] {
  const given = env.FUZZ_SEEDS;
  if (given === undefined || given.trim() === "") return [...fixed];
  const seeds = given.split(",").map((s) => s.trim());
  const bad = seeds.filter((s) => !/^\d{1,10}$/.test(s));
  if (bad.length > 0) throw new Error(`FUZZ_SEEDS must be comma-separated non-negative integers; got ${JSON.stringify(bad)}`);
  return seeds.map(Number);
}

/** How to replay a seed, for failure messages. */
export const replayHint = (seed: number) => `seed ${seed} (FUZZ_SEEDS=${seed} replays it)`;

/** Small seeded PRNG (mulberry32): a run is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every test file that draws from these seeds (`npm run fuzz` runs exactly these; a test checks the list). */
export const RANDOMIZED_TESTS = ["test/ingress/fuzz.test.ts", "test/core/observability/redaction-property.test.ts", "test/steps/result-marker.test.ts", "test/ingress/adversarial-card-text.test.ts", "test/core/observability/bearer-redaction.test.ts"];
