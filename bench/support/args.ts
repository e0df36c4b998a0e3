/**
 * A bench's positional arguments (flags such as `--shaped` aside), each a whole number >= 1, or its default when
 * absent: `const [CALLS, ROUNDS] = wholeArgs(['calls', 2_000], ['rounds', 5])`. A bad one stops the bench, named.
 */
export function wholeArgs<T extends [name: string, fallback: number][]>(...specs: T): { [K in keyof T]: number } {
  const given = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  return specs.map(([name, fallback], index) => {
    const value = Number(given[index] ?? fallback);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1, got ${given[index]}`);
    return value;
  }) as { [K in keyof T]: number };
}
