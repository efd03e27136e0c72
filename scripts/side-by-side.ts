/**
 * What the side-by-side benches (bench-engine-vs, bench-env-vs) share: CPU-time clocks, rotating
 * rounds over this checkout and older ones, and the report of medians and new/old ratios.
 */

/** This process's CPU time (user + system) in ms: unlike the wall clock, it does not count the time other processes had the core. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The sides' names: the old checkouts ("old", or "old1", "old2", ...) then "new". */
export function sideNames(olds: readonly string[]): string[] {
  return [...olds.map((_, i) => (olds.length === 1 ? "old" : `old${i + 1}`)), "new"];
}

/**
 * Runs `measure(side, round)` for every side once per round, each round starting with the next
 * side, so that no side always runs first or after the same one. Returns each side's rates.
 */
export async function rotatingRounds<S>(
  sides: readonly S[],
  rounds: number,
  measure: (side: S, round: number) => number | Promise<number>,
): Promise<number[][]> {
  const rates: number[][] = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (r + k) % sides.length;
      const side = sides[i];
      if (side !== undefined) rates[i]?.push(await measure(side, r));
    }
  }
  return rates;
}

/** Prints each side's median and best rate (the last side is this checkout) and the new/old ratios of medians. */
export function reportSides(olds: readonly string[], rates: readonly number[][], unit: string, indent: string, extra?: (rate: number) => string): void {
  const names = sideNames(olds);
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  names.forEach((name, i) => {
    const mine = rates[i] ?? [];
    const m = median(mine);
    const where = i < olds.length ? ` (${olds[i]})` : "";
    console.log(`${indent}${name} median ${fmt(m)}${extra ? ` ${extra(m)}` : ""}  best ${fmt(Math.max(...mine))} ${unit}${where}`);
  });
  const newMedian = median(rates[rates.length - 1] ?? []);
  olds.forEach((_, i) => console.log(`${indent}new/${names[i]} (median) ${(newMedian / median(rates[i] ?? [])).toFixed(2)}x`));
}
